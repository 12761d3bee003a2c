import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * A worker thread's bootstrap (`new Worker(source, { eval: true })`). The built server (`npm run
 * build`) ships each worker compiled beside it (`bundled`), imported as it is. From the source tree
 * the server runs TypeScript through tsx (and tests through vitest), but on Node 20 a worker's
 * `--import` loader is not active for its entry module, so the worker registers tsx's ESM hooks
 * itself and then imports the TypeScript `entry`.
 */
export function workerSource(bundled: URL, entry: URL): string {
  const built = builtWorkers ? new URL(basename(bundled.pathname), builtWorkers) : bundled;
  if (existsSync(built)) return `import(${JSON.stringify(built.href)});`;
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(
    join(dirname(require.resolve("tsx/package.json")), "dist", "esm", "api", "index.mjs"),
  ).href;
  return `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}

let builtWorkers: URL | null = null;

/**
 * Runs the workers of a build (`npm run build`'s output dir, its `*-worker.mjs`) instead of the
 * source tree's: the end-to-end tests start servers from source in each test process, and a worker
 * bundled once costs ~0.5 s of CPU to start where tsx transpiling its modules costs ~1.3 s.
 */
export function useBuiltWorkers(dir: string): void {
  builtWorkers = pathToFileURL(join(dir, "/"));
}
