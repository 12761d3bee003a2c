/**
 * Console pages in Chromium: contact requests, corrections, signing up from an invitation, the model
 * provider, the review loop, settings and a source's settings.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("console-contact-requests", async () => {
  await import("./console-contact-requests.part.ts");
});
describe("console-corrections", async () => {
  await import("./console-corrections.part.ts");
});
describe("console-invitation-signup", async () => {
  await import("./console-invitation-signup.part.ts");
});
describe("console-model-provider", async () => {
  await import("./console-model-provider.part.ts");
});
describe("console-review-loop", async () => {
  await import("./console-review-loop.part.ts");
});
describe("console-settings", async () => {
  await import("./console-settings.part.ts");
});
describe("console-source-settings", async () => {
  await import("./console-source-settings.part.ts");
});
