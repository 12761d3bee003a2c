/**
 * Longer console flows in Chromium: reviewing answers, the session across reloads and expiry, and
 * managing sources.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("console-review", async () => {
  await import("./console-review.part.ts");
});
describe("console-session", async () => {
  await import("./console-session.part.ts");
});
describe("console-sources", async () => {
  await import("./console-sources.part.ts");
});
