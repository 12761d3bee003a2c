/**
 * Questions and help centers in other languages than English, with and without dictionaries.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("languages", async () => {
  await import("./languages.part.ts");
});
describe("cross-language", async () => {
  await import("./cross-language.part.ts");
});
describe("dictionary-thread", async () => {
  await import("./dictionary-thread.part.ts");
});
