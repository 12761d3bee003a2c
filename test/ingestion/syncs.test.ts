/**
 * Syncs over time: resyncing and deleting, sources created and deleted in quick succession, the sync
 * history, and stopping a text file's sync.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("resync-and-delete", async () => {
  await import("./resync-and-delete.part.ts");
});
describe("source-churn", async () => {
  await import("./source-churn.part.ts");
});
describe("sync-history", async () => {
  await import("./sync-history.part.ts");
});
describe("text-file-stop", async () => {
  await import("./text-file-stop.part.ts");
});
