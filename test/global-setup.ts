/**
 * Once before the end-to-end tests: the server built as `npm run build` builds it (scripts/build.mjs)
 * into a temp dir. The tests that run `lore` as a real process (signals, kill -9, restarts, the CLI,
 * the fleet) run that build with node alone, as the container image does, instead of transpiling the
 * source through tsx at every start (about 1.5 s more per process here). The build's runtime packages
 * resolve through a link to the server's installed ones (`--link-modules`), the versions it pins.
 *
 * Both end-to-end projects (vitest.config.ts: `e2e`, and `e2e-alone` for the files that run by
 * themselves) list this setup; vitest runs it once per project, in the same process, so the first
 * run builds and the others reuse that build (the last teardown deletes it).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The directory holding the built `lore.mjs`. */
    serverBuild: string;
  }
}

const repoRoot = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** Kept on globalThis: each project loads this module on its own, in the one vitest process. */
interface SharedBuild {
  dir: string;
  users: number;
}
const key = Symbol.for("lore.test.serverBuild");
const holder = globalThis as { [key]?: SharedBuild };

function build(): string {
  const dir = mkdtempSync(join(tmpdir(), "lore-test-build-"));
  const built = spawnSync(
    process.execPath,
    [join(repoRoot, "scripts/build.mjs"), "--out", dir, "--link-modules"],
    { cwd: repoRoot, encoding: "utf8" },
  );
  if (built.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `the server build failed (npm test builds the widget and console first):\n${built.stderr}`,
    );
  }
  return dir;
}

export default function setup(project: TestProject): () => void {
  holder[key] ??= { dir: build(), users: 0 };
  const shared = holder[key];
  shared.users++;
  project.provide("serverBuild", shared.dir);
  return () => {
    shared.users--;
    if (shared.users > 0) return;
    rmSync(shared.dir, { recursive: true, force: true });
    holder[key] = undefined;
  };
}
