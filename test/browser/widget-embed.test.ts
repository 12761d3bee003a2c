/**
 * The widget embedded in Chromium: the widget itself and installing it on a site.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("widget", async () => {
  await import("./widget.part.ts");
});
describe("widget-install", async () => {
  await import("./widget-install.part.ts");
});
