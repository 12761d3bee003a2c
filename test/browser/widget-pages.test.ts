/**
 * The widget on a page in Chromium: outcomes, reloads, its states, hand-offs to a person, and its
 * isolation from the host page.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("widget-outcomes", async () => {
  await import("./widget-outcomes.part.ts");
});
describe("widget-reload", async () => {
  await import("./widget-reload.part.ts");
});
describe("widget-states", async () => {
  await import("./widget-states.part.ts");
});
describe("widget-handoff", async () => {
  await import("./widget-handoff.part.ts");
});
describe("host-isolation", async () => {
  await import("./host-isolation.part.ts");
});
