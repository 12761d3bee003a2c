/**
 * Refused questions are charged too (issue #16, item 4): an unauthenticated call to a query route
 * counts against the anonymous per-IP limit and carries the rate-limit headers; it never
 * touches the agent's own query limit.
 */

import type { ErrorBody } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEarlyInWindow } from "../helpers/rate-window.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agentId: string;

beforeAll(async () => {
  server = await startTestServer({ LORE_LIMIT_ANON_PER_HOUR: "4", LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "2" });
  token = (await server.login()).access;
  agentId = (await createAgent(server, token, { name: "Limited" })).id;
  // Both tests in one window of the agent's per-minute limit, or it could reset between them.
  await startEarlyInWindow();
}, 60_000);
afterAll(() => server?.close());

const headerOf = (res: { headers: Headers }, name: string) => res.headers.get(name);

describe("unauthenticated questions", () => {
  it("count against the anonymous limit, with the headers, until 429", async () => {
    const paths = [`/agents/${agentId}/query/`, `/agents/${agentId}/chat/completions/`];
    const bodies = [{ message: "hello?" }, { messages: [{ role: "user", content: "hello?" }] }];
    const seen: Array<{ status: number; error: string; limit: string | null; remaining: string | null }> = [];
    for (let i = 0; i < 4; i++) {
      const res = await server.request<ErrorBody | { error: { code: string } }>("POST", paths[i % 2] ?? "", {
        body: bodies[i % 2],
      });
      // The OpenAI-compatible route answers in OpenAI's error shape, Lore's code as `error.code`.
      const { error } = res.body;
      seen.push({
        status: res.status,
        error: typeof error === "string" ? error : error.code,
        limit: headerOf(res, "x-ratelimit-limit"),
        remaining: headerOf(res, "x-ratelimit-remaining"),
      });
      if (res.status === 401)
        expect(Number(headerOf(res, "x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    }
    // The admin's login in beforeAll was anonymous too: one of the 4 is gone.
    expect(seen).toEqual([
      { status: 401, error: "not_authenticated", limit: "4", remaining: "2" },
      { status: 401, error: "not_authenticated", limit: "4", remaining: "1" },
      { status: 401, error: "not_authenticated", limit: "4", remaining: "0" },
      { status: 429, error: "rate_limited", limit: "4", remaining: "0" },
    ]);
  });

  it("never spend the agent's query limit", async () => {
    // Had the refused calls above been charged to the agent, its 2 questions a minute would be gone.
    const ask = () =>
      server.request<ErrorBody>("POST", `/agents/${agentId}/query/`, { token, body: { message: "hello?" } });
    const first = await ask();
    expect(first.status).not.toBe(429);
    expect(headerOf(first, "x-ratelimit-remaining")).toBe("1");
    expect((await ask()).status).not.toBe(429);
    expect((await ask()).status).toBe(429);
  });
});
