/**
 * Data sources through the API: creating and listing them, uploading and editing files, Notion and
 * web sources.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("data-sources-api", async () => {
  await import("./data-sources-api.part.ts");
});
describe("file-uploads", async () => {
  await import("./file-uploads.part.ts");
});
describe("file-editing", async () => {
  await import("./file-editing.part.ts");
});
describe("notion-source", async () => {
  await import("./notion-source.part.ts");
});
describe("web-source", async () => {
  await import("./web-source.part.ts");
});
