/**
 * What an answer says and cites: readable answers, the README's example, the prompts sent to a model,
 * section answers, the model settings, the OpenAI-compatible routes and the visitor's context.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("readable-answers", async () => {
  await import("./readable-answers.part.ts");
});
describe("readme-example", async () => {
  await import("./readme-example.part.ts");
});
describe("help-article-prompt", async () => {
  await import("./help-article-prompt.part.ts");
});
describe("section-answers", async () => {
  await import("./section-answers.part.ts");
});
describe("models", async () => {
  await import("./models.part.ts");
});
describe("openai-compat", async () => {
  await import("./openai-compat.part.ts");
});
describe("visitor-context", async () => {
  await import("./visitor-context.part.ts");
});
