/**
 * The owner console in Chromium: its pages, keyboard use, and the owner's loop from a question to
 * a correction.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("console", async () => {
  await import("./console.part.ts");
});
describe("console-keyboard", async () => {
  await import("./console-keyboard.part.ts");
});
describe("owner-loop", async () => {
  await import("./owner-loop.part.ts");
});
