/**
 * Recovery: backups taken under writes and restored, and the event-loop watchdog.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("backup", async () => {
  await import("./backup.part.ts");
});
describe("watchdog", async () => {
  await import("./watchdog.part.ts");
});
