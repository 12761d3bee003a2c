/**
 * Hostile or unusual requests: malformed bodies, forwarded headers and client addresses, per-IP and
 * anonymous limits, the demo preview, how far an API key reaches, and a PDF bomb.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("malformed-body", async () => {
  await import("./malformed-body.part.ts");
});
describe("query-body", async () => {
  await import("./query-body.part.ts");
});
describe("forwarded-headers", async () => {
  await import("./forwarded-headers.part.ts");
});
describe("client-ip", async () => {
  await import("./client-ip.part.ts");
});
describe("widget-ip-limits", async () => {
  await import("./widget-ip-limits.part.ts");
});
describe("anonymous-query-limit", async () => {
  await import("./anonymous-query-limit.part.ts");
});
describe("demo-preview", async () => {
  await import("./demo-preview.part.ts");
});
describe("api-key-reach", async () => {
  await import("./api-key-reach.part.ts");
});
describe("pdf-bomb", async () => {
  await import("./pdf-bomb.part.ts");
});
