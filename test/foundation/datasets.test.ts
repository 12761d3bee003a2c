// `npm test` passes on a bare clone (issue 33): the public datasets live beside the checkout, not
// in it, so every test or benchmark reaches them through bench/src/datasets.ts, which skips with one
// line when they are missing and fails under CI. scripts/check-bare-clone.mjs (in .ci/run) runs the
// tests that use it from a clone with no ../shared/.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/server.ts";

const work = mkdtempSync(join(tmpdir(), "lore-datasets-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mjs|js)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Runs `hasDatasets("the smoke run", "squad-v1.1-dev")` in a fresh process with `env`. */
function askForSquad(env: Record<string, string>) {
  const script = `import { hasDatasets } from ${JSON.stringify(join(repoRoot, "bench/src/datasets.ts"))};
console.log("result=" + hasDatasets("the smoke run", "squad-v1.1-dev"));`;
  const { CI: _ci, LORE_DATASETS_DIR: _dir, ...rest } = process.env;
  return spawnSync(join(repoRoot, "node_modules/.bin/tsx"), ["--eval", script], {
    cwd: repoRoot,
    env: { ...rest, ...env },
    encoding: "utf8",
  });
}

describe("public datasets", () => {
  it("are read only through bench/src/datasets.ts, never from a fixed path", () => {
    const offenders: string[] = [];
    for (const dir of [
      "test",
      "server/src",
      "bench/src",
      "widget/src",
      "console/src",
      "shared/src",
      "scripts",
    ]) {
      for (const file of sourceFiles(join(repoRoot, dir))) {
        const rel = relative(repoRoot, file);
        if (rel === "bench/src/datasets.ts" || rel === "test/foundation/datasets.test.ts") continue;
        const text = readFileSync(file, "utf8");
        if (/\/work\/shared|shared\/datasets|\.\.\/shared\/|"shared",\s*"datasets"/.test(text))
          offenders.push(rel);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("skip with one line saying what is missing and where to get it", () => {
    const run = askForSquad({ LORE_DATASETS_DIR: join(work, "empty") });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[lore\] skipped the smoke run: public dataset squad-v1\.1-dev missing/);
    expect(lines[0]).toContain(join(work, "empty", "squad-v1.1-dev", "dev-v1.1.json"));
    expect(lines[0]).toContain("https://github.com/bloomsburyai/question-generation");
    expect(lines[0]).toContain("LORE_DATASETS_DIR");
    expect(lines[1]).toBe("result=false");
  });

  it("fail instead of skipping under CI", () => {
    const run = askForSquad({ LORE_DATASETS_DIR: join(work, "empty"), CI: "true" });
    expect(run.status).not.toBe(0);
    expect(run.stdout).not.toContain("result=");
    expect(run.stderr).toMatch(
      /the smoke run: public dataset squad-v1\.1-dev missing.*fails instead of skipping/,
    );
  });

  it("run, silently, when LORE_DATASETS_DIR points at them", () => {
    const squad = join(work, "elsewhere", "squad-v1.1-dev");
    mkdirSync(squad, { recursive: true });
    for (const half of ["dev", "test"]) writeFileSync(join(squad, `${half}-v1.1.json`), '{"data":[]}');
    const run = askForSquad({ LORE_DATASETS_DIR: join(work, "elsewhere"), CI: "true" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("result=true");
  });
});
