/**
 * Replicas sharing state: shared mode over Redis, and tables and files kept in an object store.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("shared-mode", async () => {
  await import("./shared-mode.part.ts");
});
describe("object-storage", async () => {
  await import("./object-storage.part.ts");
});
