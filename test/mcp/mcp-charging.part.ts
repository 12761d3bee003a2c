import type { ErrorBody } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { startEarlyInWindow } from "../helpers/rate-window.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

// Issue #34: a batch of 20 `ask` used to give 20 answers while X-RateLimit-Remaining dropped by 1.

interface RpcReply {
  id: number;
  result?: { structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string; data?: ErrorBody };
}

const AGENT_LIMIT = 8;
let server: TestServer;
let admin: string;
let sourceId: string;

beforeAll(async () => {
  server = await startTestServer({ LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: String(AGENT_LIMIT) });
  admin = (await server.login()).access;
  sourceId = (await readyTextSource(server, admin, "FAQ", shopEntries.slice(0, 3))).id;
});
afterAll(() => server?.close());

/** A fresh agent: a fresh per-minute query budget. */
const newAgent = async () =>
  (await createAgent(server, admin, { name: "Shop", dataSourceIds: [sourceId] })).id;

const ask = (id: number, question = "How long does standard shipping take?") => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "ask", arguments: { question } },
});
const search = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "search", arguments: { query: "shipping" } },
});
const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});
const initialize = (id: number) =>
  rpc(id, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "probe", version: "1" },
  });

const post = (agentId: string, body: unknown) =>
  call<RpcReply[] | RpcReply | ErrorBody>(server, "POST", `/agents/${agentId}/mcp/`, admin, body);
const remaining = (res: { headers: Headers }) => Number(res.headers.get("x-ratelimit-remaining"));

describe("MCP charging (issue #34)", () => {
  it("charges a batch one question per search/ask call: 5 calls cost 5", async () => {
    const agentId = await newAgent();
    const res = await post(agentId, [ask(1), search(2), ask(3), search(4), ask(5)]);
    expect(res.status).toBe(200);
    const replies = res.body as RpcReply[];
    expect(replies.filter((r) => r.result).length).toBe(5);
    expect(res.headers.get("x-ratelimit-limit")).toBe(String(AGENT_LIMIT));
    expect(remaining(res)).toBe(AGENT_LIMIT - 5);
  });

  it("answers the calls that fit the quota and refuses the rest with the contract's 429 per call", async () => {
    const agentId = await newAgent();
    // The batch and the call after it must fall in one clock minute, the limit's window.
    await startEarlyInWindow();
    const res = await post(
      agentId,
      Array.from({ length: 12 }, (_, i) => ask(i + 1)),
    );
    expect(res.status).toBe(200);
    expect(remaining(res)).toBe(0);
    const replies = (res.body as RpcReply[]).sort((a, b) => a.id - b.id);
    expect(replies.length).toBe(12);
    const answered = replies.filter((r) => r.result);
    const refused = replies.filter((r) => r.error);
    // The first 8 in the batch's order are answered, the last 4 refused.
    expect(answered.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(refused.map((r) => r.id)).toEqual([9, 10, 11, 12]);
    for (const r of refused) {
      expect(r.error?.data).toMatchObject({
        error: "rate_limited",
        details: { limit: "agent_queries_per_minute", max: AGENT_LIMIT, windowSeconds: 60 },
      });
      expect(r.error?.data?.details.retryAfter).toBeGreaterThanOrEqual(1);
    }
    // Spent: the next question is refused as a whole, as a single over-quota call always was.
    const next = await post(agentId, ask(99));
    expect(next.status).toBe(429);
    expect(next.body).toMatchObject({
      error: "rate_limited",
      details: { limit: "agent_queries_per_minute" },
    });
    expect(Number(next.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("does not charge initialize, ping, tools/list or resources to the agent's questions", async () => {
    const agentId = await newAgent();
    // A client reconnecting 3 × AGENT_LIMIT times: initialize, the initialized notification, tools/list, ping.
    for (let i = 0; i < 3 * AGENT_LIMIT; i++) {
      // initialize may not be batched (the SDK's rule): a POST of its own, like a client sends it.
      expect((await post(agentId, initialize(1))).status).toBe(200);
      const res = await post(agentId, [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        rpc(2, "tools/list"),
        rpc(3, "ping"),
        rpc(4, "resources/list"),
        rpc(5, "tools/call", { name: "list_sources", arguments: {} }),
      ]);
      expect(res.status).toBe(200);
      expect((res.body as RpcReply[]).every((r) => r.result)).toBe(true);
    }
    // The agent's whole budget is still there.
    const res = await post(
      agentId,
      Array.from({ length: AGENT_LIMIT }, (_, i) => ask(i + 1)),
    );
    expect((res.body as RpcReply[]).filter((r) => r.result).length).toBe(AGENT_LIMIT);
    expect(remaining(res)).toBe(0);
  });

  it("counts a message that asks nothing against the caller's ordinary request limit", async () => {
    const limited = await startTestServer({ LORE_LIMIT_USER_PER_HOUR: "5" });
    try {
      const token = (await limited.login()).access;
      // Login is not charged; creating the agent is the first of 5 requests, then 4 pings fit.
      await startEarlyInWindow(3_600_000); // one clock hour, the limit's window
      const agentId = (await createAgent(limited, token, { name: "Empty" })).id;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await call<ErrorBody>(limited, "POST", `/agents/${agentId}/mcp/`, token, rpc(1, "ping"));
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.body).toMatchObject({ error: "rate_limited", details: { limit: "user_per_hour" } });
          break;
        }
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});
