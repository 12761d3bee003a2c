import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * A worker thread's bootstrap (`new Worker(source, { eval: true })`). The built server (`npm run
 * build`) ships each worker compiled beside it (`bundled`), imported as it is. From the source tree
 * the server runs TypeScript through tsx (and tests through vitest), but on Node 20 a worker's
 * `--import` loader is not active for its entry module, so the worker registers tsx's ESM hooks
 * itself and then imports the TypeScript `entry`.
 */
export function workerSource(bundled: URL, entry: URL): string {
  if (existsSync(bundled)) return `import(${JSON.stringify(bundled.href)});`;
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(
    join(dirname(require.resolve("tsx/package.json")), "dist", "esm", "api", "index.mjs"),
  ).href;
  return `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}
