import { configDefaults, defineConfig } from "vitest/config";
import { LongestFirst } from "./test/longest-first.ts";

/**
 * End-to-end files that measure the machine as much as the code: throughput of a three-replica fleet
 * under steady load, an event loop answering /healthz within a second while a hostile request runs,
 * the help-center benchmark's smoke run (a minute and a half at most). Next to other test files they
 * fail for want of CPU, not for a fault, so they run after the others, one at a time (project
 * `e2e-alone`), as the whole suite used to.
 */
const alone = [
  "test/production/fleet.test.ts",
  "test/production/partitioned-fleet.test.ts",
  "test/security/cpu-bounds.test.ts",
  "test/bench-helpcenter-smoke.test.ts",
];

const e2e = {
  globalSetup: ["test/global-setup.ts"],
  setupFiles: ["test/built-workers.setup.ts"],
  environment: "node",
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // expect.poll waits for what a page or the server shows eventually; vitest gives up after 1 s by
  // default, which a busy machine overruns (a failing poll still fails, 9 s later).
  expect: { poll: { timeout: 10_000 } },
};

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: {
    // Three workers on any machine: most end-to-end files wait on child processes, browsers and
    // timers, so three overlap that waiting even on 2 cores (883 s against 1,275 s with one, clean
    // clones on a quiet machine). The files that measure the machine still run alone, last
    // (`e2e-alone`). On a machine busy with other work, `npm test -- --maxWorkers=1` (bench/README.md,
    // "Test suite time").
    maxWorkers: 3,
    // The longest files first, from a recorded run, so none of them starts last on a fresh clone.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["shared/src/**/*.test.ts", "server/src/**/*.test.ts"],
          environment: "node",
          // Running beside end-to-end files, a unit test that takes 2 s alone can take 8.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: { name: "widget", include: ["widget/src/**/*.test.{ts,tsx}"], environment: "happy-dom" },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          // Replaces vitest's default list (node_modules, dist…), so it is kept.
          exclude: [...configDefaults.exclude, ...alone],
          ...e2e,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e-alone",
          include: alone,
          ...e2e,
          // In one worker, after the other files have finished (vitest runs a project's single-fork
          // files once its parallel ones are done).
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
