import { defineConfig } from "vite";

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    target: "es2020",
    outDir: "/tmp/wexp/dist",
    emptyOutDir: true,
    manifest: true,
    lib: { entry: { widget: "src/loader.ts" }, formats: ["es"] },
    rollupOptions: {
      output: { entryFileNames: "widget.js", chunkFileNames: "assets/[name]-[hash].js" },
    },
  },
});
