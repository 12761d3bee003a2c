#!/usr/bin/env node
// CI step after `npm test` (.ci/run): `npm test` must pass on a clone as a new user gets it, with no
// `shared` folder (and so no public datasets) beside it. Clones this checkout's HEAD into a fresh
// temp dir and runs `npm test` limited to the test files that read a public dataset (every one goes
// through bench/src/datasets.ts, so they are the files importing it) with CI and LORE_DATASETS_DIR
// unset: they must pass, and print one "[lore] skipped" line for what they could not measure.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const started = Date.now();

/** The *.test.ts files under `dir` that import bench/src/datasets.ts. */
function datasetTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...datasetTests(path));
    else if (entry.name.endsWith(".test.ts") && /bench\/src\/datasets\.ts"/.test(readFileSync(path, "utf8")))
      out.push(relative(root, path));
  }
  return out.sort();
}

const files = ["test", "server/src", "bench/src", "widget/src", "console/src", "shared/src"]
  .filter((dir) => existsSync(join(root, dir)))
  .flatMap((dir) => datasetTests(join(root, dir)));
if (files.length === 0) {
  console.error("[bare clone] no test file imports bench/src/datasets.ts: nothing to check");
  process.exit(1);
}

const base = mkdtempSync(join(tmpdir(), "lore-bare-"));
const clone = join(base, "lore");
let status = 1;
try {
  const cloned = spawnSync("git", ["clone", "-q", root, clone], { stdio: "inherit" });
  if (cloned.status !== 0) throw new Error("git clone failed");
  if (existsSync(join(clone, "..", "shared"))) throw new Error(`${join(clone, "..", "shared")} exists`);
  const env = { ...process.env };
  delete env.CI;
  delete env.LORE_DATASETS_DIR;
  console.log(`[bare clone] ${clone} (no shared folder beside it): npm test -- ${files.join(" ")}`);
  const run = spawnSync("npm", ["test", "--", ...files], { cwd: clone, env, encoding: "utf8" });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the colour codes a CI terminal may get.
  const output = `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
  const skips = output.split("\n").filter((line) => line.startsWith("[lore] skipped "));
  const summary = output.split("\n").filter((line) => /^\s*(Test Files|Tests) /.test(line));
  for (const line of [...skips, ...summary]) console.log(line);
  if (run.status !== 0) {
    console.log(output.slice(-8000));
    throw new Error(`npm test failed on the bare clone (exit ${run.status})`);
  }
  if (skips.length === 0) throw new Error("no dataset test printed a skip line on the bare clone");
  status = 0;
  console.log(`[bare clone] passed in ${Math.round((Date.now() - started) / 1000)} s`);
} catch (error) {
  console.error(`[bare clone] ${error instanceof Error ? error.message : String(error)}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
process.exit(status);
