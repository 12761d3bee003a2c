/**
 * What reaches an agent's owner: the analytics of its conversations, hand-offs to a person, and
 * webhooks.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("agent-analytics", async () => {
  await import("./analytics/agent-analytics.part.ts");
});
describe("handoffs", async () => {
  await import("./handoffs/handoffs.part.ts");
});
describe("webhooks", async () => {
  await import("./webhooks/webhooks.part.ts");
});
