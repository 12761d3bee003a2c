/**
 * Many documents at once: text entries in bulk, and syncs interrupted by kill -9.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("text-entries", async () => {
  await import("./text-entries.part.ts");
});
describe("crash-safety", async () => {
  await import("./crash-safety.part.ts");
});
