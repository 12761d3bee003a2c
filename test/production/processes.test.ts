/**
 * Production processes: the storage lease, graceful shutdown, and resuming a stream on another replica.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("lease", async () => {
  await import("./lease.part.ts");
});
describe("shutdown", async () => {
  await import("./shutdown.part.ts");
});
describe("stream-resume-fleet", async () => {
  await import("./stream-resume-fleet.part.ts");
});
