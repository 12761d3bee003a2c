/**
 * Client libraries against the real server: OpenAI clients, the MCP SDK, the typed clients.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("openai-clients", async () => {
  await import("./openai-clients.part.ts");
});
describe("mcp-sdk", async () => {
  await import("./mcp-sdk.part.ts");
});
describe("typed-clients", async () => {
  await import("./typed-clients.part.ts");
});
