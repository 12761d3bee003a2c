/**
 * Issue #49 item 4: visitor tokens no longer get around the per-IP widget limit. From one address a
 * client asked without a token (minting a visitor), reused it until its quota ran out, and minted
 * another: 220 answers in 3.5 minutes under a 100-an-hour limit, and the agent's per-minute quota at
 * 0 for every other visitor. Now every widget question counts per client IP (an IPv6 /64) whatever
 * its token, new visitors are limited per IP, and one IP uses at most a quarter of the agent's
 * per-minute quota.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startEarlyInWindow } from "../helpers/rate-window.ts";
import { httpRequest, startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent } from "../ingestion/source-helpers.ts";

const ORIGIN = "https://shop.example";
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Answer {
  visitorToken?: string;
  details?: { limit?: string };
}

async function widgetAgent(
  env: Record<string, string>,
): Promise<{ s: TestServer; widgetId: string; agentId: string; token: string }> {
  const s = await startTestServer({ LORE_TRUST_PROXY: "true", ...env });
  server = s;
  const token = (await s.login()).access;
  const agent = await createAgent(s, token, { name: "Shop", allowedOrigins: [ORIGIN] });
  return { s, widgetId: agent.widgetId, agentId: agent.id, token };
}

/**
 * The client: asks with its current visitor token, and on a 429 (or at first) asks without
 * one to mint a new visitor. Returns how many questions were answered and the limits that refused.
 */
async function drain(
  s: TestServer,
  widgetId: string,
  address: (i: number) => string,
  attempts: number,
): Promise<{ answered: number; refusedBy: Set<string> }> {
  let token: string | undefined;
  let answered = 0;
  const refusedBy = new Set<string>();
  for (let i = 0; i < attempts; i++) {
    const res = await httpRequest<Answer>(s.api, "POST", `/widget/${widgetId}/query/`, {
      body: token
        ? { message: "Do you ship abroad?", visitorToken: token }
        : { message: "Do you ship abroad?" },
      headers: { Origin: ORIGIN, "X-Forwarded-For": address(i) },
    });
    if (res.status === 200) {
      answered++;
      token = res.body.visitorToken;
    } else {
      expect(res.status).toBe(429);
      refusedBy.add(res.body.details?.limit ?? "");
      token = undefined; // mint another visitor
    }
  }
  return { answered, refusedBy };
}

describe("widget questions from one address", () => {
  it("are capped at three times the anonymous limit an hour, whatever tokens it mints (an IPv6 /64 is one address)", async () => {
    const { s, widgetId } = await widgetAgent({ LORE_LIMIT_ANON_PER_HOUR: "4" });
    // Eight addresses of one /64, taken in turn.
    const sameNet = (i: number) => `2001:db8:aa:1::${(i % 8) + 1}`;
    const result = await drain(s, widgetId, sameNet, 40);
    // Documented: 3 × LORE_LIMIT_ANON_PER_HOUR (12) questions an hour per address; 4 visitors an hour.
    expect(result.answered).toBe(12);
    expect(result.refusedBy).toContain("ip_questions_per_hour");
    // A visitor from another address is still answered.
    const other = await httpRequest(s.api, "POST", `/widget/${widgetId}/query/`, {
      body: { message: "Do you ship abroad?" },
      headers: { Origin: ORIGIN, "X-Forwarded-For": "2001:db8:aa:2::1" },
    });
    expect(other.status).toBe(200);
  }, 120_000);

  it("use at most a quarter of the agent's per-minute quota, so other visitors keep being answered", async () => {
    const { s, widgetId } = await widgetAgent({ LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "8" });
    await startEarlyInWindow();
    const greedy = await drain(s, widgetId, () => "203.0.113.5", 10);
    expect(greedy.answered).toBe(2);
    expect([...greedy.refusedBy]).toEqual(["agent_queries_per_minute_per_ip"]);
    // Three other addresses, two questions each: all answered within the same minute.
    for (const address of ["203.0.113.6", "203.0.113.7", "198.51.100.9"]) {
      const other = await drain(s, widgetId, () => address, 2);
      expect(other.answered, address).toBe(2);
    }
  }, 120_000);
});

describe("the page a question was asked on", () => {
  it("is stored by its real host, without credentials or direction overrides (issue #49)", async () => {
    const { s, widgetId, agentId, token } = await widgetAgent({});
    const asked = await httpRequest<{ conversationId: string }>(s.api, "POST", `/widget/${widgetId}/query/`, {
      body: { message: "Hello?", pageUrl: "https://site-a.test@evil.test/\u202eabc\\x" },
      headers: { Origin: ORIGIN },
    });
    expect(asked.status).toBe(200);
    const detail = await s.request<{ pageUrl: string | null }>(
      "GET",
      `/agents/${agentId}/conversations/${asked.body.conversationId}/`,
      { token },
    );
    expect(detail.body.pageUrl).toBe("https://evil.test/abc/x");
  }, 60_000);
});
