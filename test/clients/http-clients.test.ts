/**
 * HTTP clients against real deployments: behind proxies and prefixes, and the generated openapi-fetch
 * client.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("deployments", async () => {
  await import("./deployments.part.ts");
});
describe("openapi-fetch", async () => {
  await import("./openapi-fetch.part.ts");
});
