import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { minify } from "terser";
import { defineConfig, type Plugin } from "vite";

const outDir = resolve(import.meta.dirname, "dist");

/**
 * Library mode keeps Vite's preload helper (and its inline <link> elements) out of the loader, but
 * it leaves ES output unminified; this minifies each chunk, checks the loader stays a classic script,
 * and writes dist/manifest.json (file names, sizes and SRI hashes) for the server and bench/.
 */
function finishWidget(): Plugin {
  return {
    name: "lore-widget-finish",
    // widget.js imports the panel by an absolute URL built from its own script URL: import() from a
    // cross-origin classic script resolves relative specifiers against about:blank.
    renderDynamicImport({ moduleId, targetModuleId }) {
      if (moduleId.endsWith("/src/loader.ts") && targetModuleId?.endsWith("/src/panel.ts")) {
        return { left: "import(new URL(", right: ", loreScriptUrl).href)" };
      }
      return null;
    },
    async generateBundle(_options, bundle) {
      const files: Record<string, { file: string; bytes: number; gzip: number; integrity: string }> = {};
      for (const item of Object.values(bundle)) {
        if (item.type !== "chunk") continue;
        // After Vite's own renderChunk, which re-prints library ES output with whitespace.
        // Terser rather than esbuild: three compress passes make the loader and the panel about 2 % smaller.
        // The loader runs in the host page's global scope: wrapped in a function, its names (`T`, `P`…)
        // can't collide with the page's own top-level declarations (a SyntaxError in one of the two
        // scripts) nor become properties of `window`.
        const source = item.isEntry ? `(()=>{${item.code}})()` : item.code;
        const minified = await minify(source, {
          module: !item.isEntry,
          ecma: 2020,
          // `unsafe` here only turns templates into concatenations, String(x) into x+"" (never a
          // Symbol here) and drops `new` from Array and Error; object methods are shorter as arrows
          // in the loader (its returned handle), as methods in the panel.
          compress: { passes: 3, unsafe_arrows: true, unsafe: true, unsafe_methods: !item.isEntry },
          // The loader is a classic script: ASCII, whatever charset the host page declares.
          format: { comments: false, ascii_only: item.isEntry },
        });
        item.code = minified.code ?? "";
        if (
          item.isEntry &&
          (item.imports.length > 0 || item.exports.length > 0 || item.code.includes("import.meta"))
        ) {
          // widget.js runs as a classic <script async>: a static import or export there is a syntax error.
          this.error(`widget.js must not import or export (imports: ${item.imports.join(", ")})`);
        }
        const bytes = Buffer.from(item.code);
        files[item.isEntry ? "loader" : item.name] = {
          file: item.fileName,
          bytes: bytes.length,
          gzip: gzipSync(bytes, { level: 9 }).length,
          integrity: `sha384-${createHash("sha384").update(bytes).digest("base64")}`,
        };
      }
      this.emitFile({
        type: "asset",
        fileName: "manifest.json",
        source: `${JSON.stringify(files, null, 2)}\n`,
      });
    },
  };
}

/**
 * Writes `<file>.br` and `<file>.gz` beside each JS/CSS file, at the highest levels: the server sends
 * them as they are to clients that accept them (server/src/site/static-files.ts). The console's build
 * uses it too.
 */
export function precompress(): Plugin {
  return {
    name: "lore-widget-precompress",
    writeBundle(options, bundle) {
      for (const fileName of Object.keys(bundle)) {
        if (!/\.(js|css)$/.test(fileName)) continue;
        const path = join(options.dir ?? outDir, fileName);
        const bytes = readFileSync(path);
        const br = brotliCompressSync(bytes, {
          params: {
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          },
        });
        writeFileSync(`${path}.br`, br);
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  // Class fields as assignments: no __publicField helper in the panel (ApiError is its only class).
  esbuild: {
    jsx: "automatic",
    jsxImportSource: "preact",
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: false } },
  },
  plugins: [finishWidget(), precompress()],
  build: {
    target: "es2020",
    outDir,
    emptyOutDir: true,
    reportCompressedSize: true,
    lib: { entry: { widget: resolve(import.meta.dirname, "src/loader.ts") }, formats: ["es"] },
    rollupOptions: {
      output: {
        entryFileNames: "widget.js",
        chunkFileNames: "assets/[name]-[hash].js",
        // The panel's module namespace (what the loader's import() resolves to) as a plain object: no
        // Object.freeze and no Symbol.toStringTag, bytes every page paid for and nothing reads.
        freeze: false,
        generatedCode: { symbols: false },
      },
    },
  },
});
