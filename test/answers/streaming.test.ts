/**
 * Streamed answers: from an OpenAI-compatible model server, and resumed after a dropped connection.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("openai-streaming", async () => {
  await import("./openai-streaming.part.ts");
});
describe("stream-resume", async () => {
  await import("./stream-resume.part.ts");
});
