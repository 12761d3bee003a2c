/**
 * Corrections, the review list and conversation outcomes: what an owner sees of the answers given
 * and how a correction changes the next one.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("correction-matches", async () => {
  await import("./correction-matches.part.ts");
});
describe("correction-paraphrases", async () => {
  await import("./correction-paraphrases.part.ts");
});
describe("correction-staleness", async () => {
  await import("./correction-staleness.part.ts");
});
describe("corrections", async () => {
  await import("./corrections.part.ts");
});
describe("review-filters", async () => {
  await import("./review-filters.part.ts");
});
describe("conversation-status", async () => {
  await import("./conversation-status.part.ts");
});
describe("outcomes", async () => {
  await import("./outcomes.part.ts");
});
describe("suggested-check", async () => {
  await import("./suggested-check.part.ts");
});
