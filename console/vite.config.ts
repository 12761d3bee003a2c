import { resolve } from "node:path";
import { defineConfig } from "vite";
import { precompress } from "../widget/vite.config.ts";

// The console is a page of its own at /console/: index.html is the server's page template (it fills
// {{apiPrefix}}), the hashed assets under /console/assets/ are immutable. Asset URLs are relative,
// so the console works under a proxy's path prefix too (/support/console/).
export default defineConfig({
  root: import.meta.dirname,
  base: "./",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  plugins: [precompress()],
  build: {
    target: "es2020",
    outDir: resolve(import.meta.dirname, "dist"),
    emptyOutDir: true,
    reportCompressedSize: true,
    // The preload polyfill is an inline script; the strict CSP refuses inline scripts.
    modulePreload: { polyfill: false },
    // CSS stays a file: style-src 'self' refuses inline <style>.
    assetsInlineLimit: 0,
    rollupOptions: {
      output: {
        entryFileNames: "assets/console-[hash].js",
        assetFileNames: "assets/console-[hash][extname]",
      },
    },
  },
});
