/**
 * The foundations: authentication, HTTP behaviour and compression, concurrent writes, rate limits,
 * the OpenAPI document, console messages and the docs.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("auth", async () => {
  await import("./auth.part.ts");
});
describe("http", async () => {
  await import("./http.part.ts");
});
describe("compression", async () => {
  await import("./compression.part.ts");
});
describe("concurrency", async () => {
  await import("./concurrency.part.ts");
});
describe("rate-limits", async () => {
  await import("./rate-limits.part.ts");
});
describe("openapi", async () => {
  await import("./openapi.part.ts");
});
describe("console-messages", async () => {
  await import("./console-messages.part.ts");
});
describe("docs", async () => {
  await import("./docs.part.ts");
});
