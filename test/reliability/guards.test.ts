/**
 * Guards around the data: damaged messages, workspace isolation, login abuse and SSRF.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("damaged-messages", async () => {
  await import("./damaged-messages.part.ts");
});
describe("isolation", async () => {
  await import("./isolation.part.ts");
});
describe("login-abuse", async () => {
  await import("./login-abuse.part.ts");
});
describe("ssrf", async () => {
  await import("./ssrf.part.ts");
});
