/**
 * The widget's public routes: questions, allowed origins, reading a conversation back.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("widget-api", async () => {
  await import("./widget-api.part.ts");
});
describe("widget-origins", async () => {
  await import("./widget-origins.part.ts");
});
describe("widget-reload", async () => {
  await import("./widget-reload.part.ts");
});
