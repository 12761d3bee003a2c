import { rmSync } from "node:fs";
import type { Agent, AgentAnalytics, ApiKey, QueryResponse } from "@lore/shared";
import { analyticsSchema } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { DEFAULT_PASSWORD, makeTempDir, startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import { call, createAgent, readyTextSource, streamQuery } from "../ingestion/source-helpers.ts";

const ORIGIN = "https://shop.example";
/** Kept across the restart test's second server; deleted after all. */
const dataDir = makeTempDir();
let server: TestServer;
let token: string;
let agent: Agent;
let otherAgent: Agent;
let viewerToken: string;
let strangerToken: string;
let apiKey: string;
let otherKey: string;
/** Everything the answers said about themselves, to compare the analytics with. */
const answers: Array<Pick<QueryResponse, "latency" | "metadata" | "sources">> = [];

const today = () => new Date().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const analytics = (query = "", auth = token, agentId = agent.id) =>
  call<AgentAnalytics>(server, "GET", `/analytics/agents/${agentId}/${query}`, auth);

async function ask(message: string, conversationId?: string): Promise<QueryResponse> {
  const res = await call<QueryResponse>(server, "POST", `/agents/${agent.id}/query/`, token, {
    message,
    conversationId,
  });
  expect(res.status).toBe(200);
  answers.push(res.body);
  return res.body;
}

beforeAll(async () => {
  server = await startTestServer({ LORE_DATA_DIR: dataDir });
  token = (await server.login()).access;
  const shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  agent = await createAgent(server, token, {
    name: "Shop",
    dataSourceIds: [shop.id],
    allowedOrigins: [ORIGIN],
  });
  otherAgent = await createAgent(server, token, { name: "Other", dataSourceIds: [shop.id] });
  apiKey = (
    await call<ApiKey & { key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, {
      name: "ci",
    })
  ).body.key;
  otherKey = (
    await call<ApiKey & { key: string }>(server, "POST", `/agents/${otherAgent.id}/api-keys/`, token, {
      name: "ci",
    })
  ).body.key;
  await server.createUser("viewer@example.com");
  const member = await call(server, "POST", `/workspaces/${agent.workspaceId}/members/`, token, {
    email: "viewer@example.com",
    role: "viewer",
  });
  expect(member.status).toBe(201);
  viewerToken = (await server.login("viewer@example.com", DEFAULT_PASSWORD)).access;
  const invitationId = (member.body as { id: string }).id;
  expect((await call(server, "POST", `/invitations/${invitationId}/accept/`, viewerToken)).status).toBe(200);
  await server.createUser("stranger@example.com");
  strangerToken = (await server.login("stranger@example.com", DEFAULT_PASSWORD)).access;

  // The known sequence: 5 questions, 4 conversations, 2 callers, 1 streamed, 1 from the widget, 1 fallback.
  const first = await ask("How long does standard shipping take?");
  await ask("how long does STANDARD shipping take", first.conversationId);
  const streamed = await streamQuery(`${server.api}/agents/${agent.id}/query/`, token, {
    message: "Within how many days can I return an item?",
  });
  const done = streamed.events.find((e) => e.event.type === "done")?.event;
  if (done?.type !== "done") throw new Error("no done event");
  answers.push(done);
  const widget = await call<QueryResponse & { visitorToken: string }>(
    server,
    "POST",
    `/widget/${agent.widgetId}/query/`,
    undefined,
    { message: "When does the store open?" },
    { Origin: ORIGIN },
  );
  expect(widget.status).toBe(200);
  answers.push(widget.body);
  const fallback = await ask("Xylophone quantum zeppelin?");
  expect(fallback.sources).toEqual([]);

  // Ratings: up, then changed to down, on the first answer; up on the streamed; up from the widget visitor.
  const rate = (messageId: string, rating: string) =>
    call(server, "POST", `/agents/${agent.id}/messages/${messageId}/feedback/`, token, { rating });
  expect((await rate(first.messageId, "up")).status).toBeLessThan(300);
  expect((await rate(first.messageId, "down")).status).toBeLessThan(300);
  expect((await rate(done.messageId, "up")).status).toBeLessThan(300);
  const widgetRating = await call(
    server,
    "POST",
    `/widget/${agent.widgetId}/messages/${widget.body.messageId}/feedback/`,
    undefined,
    { rating: "up", visitorToken: widget.body.visitorToken },
    { Origin: ORIGIN },
  );
  expect(widgetRating.status).toBeLessThan(300);
  // Feedback reaches analytics through the event bus; the ratings arrive in order, so three rated
  // answers show only once the last rating has landed.
  await until(
    async () => {
      const { feedbackUp, feedbackDown } = (await analytics()).body.totals;
      return feedbackUp + feedbackDown >= 3;
    },
    { what: "the ratings to reach analytics" },
  );
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("GET /analytics/agents/{id}/", () => {
  it("counts the known sequence exactly", async () => {
    const res = await analytics();
    expect(res.status).toBe(200);
    const body = analyticsSchema.strict().parse(res.body);
    expect(body).toMatchObject({ agentId: agent.id, from: dayOffset(-29), to: today(), interval: "day" });
    expect(body.totals).toEqual({
      queries: 5,
      conversations: 4,
      visitors: 2,
      tokensUsed: answers.reduce((n, a) => n + a.metadata.tokensUsed, 0),
      streamedShare: 0.2,
      widgetShare: 0.2,
      apiShare: 0.8,
      errors: 0,
      unanswered: 1,
      feedbackUp: 2,
      feedbackDown: 1,
      // The outcomes as the answers carried them (the fallback is the one unanswered).
      answered: 4,
      uncertain: 0,
      answeredRate: 0.8,
      uncertainRate: 0,
      fallbackRate: 0.2,
      handoffs: 0,
      // Of four conversations one has a thumbs-down and one ended on the fallback (issue #52).
      unresolvedConversations: 2,
      resolutionRate: 0.5,
    });
    expect(body.timeseries).toHaveLength(30);
    expect(body.timeseries.at(-1)).toMatchObject({
      start: `${today()}T00:00:00.000Z`,
      queries: 5,
      conversations: 4,
      unanswered: 1,
      visitors: 2,
    });
    expect(body.timeseries.slice(0, -1).every((p) => p.queries === 0 && p.latencyP50 === null)).toBe(true);
  });

  it("reports latency percentiles and averages that match the answers", async () => {
    const { body } = await analytics();
    const latencies = answers.map((a) => a.latency).sort((a, b) => a - b);
    const exact = (p: number) => latencies[Math.ceil(p * latencies.length) - 1] ?? Number.NaN;
    for (const [p, got] of [
      [0.5, body.latency.total.p50],
      [0.95, body.latency.total.p95],
    ] as const) {
      expect(Math.abs((got ?? Number.NaN) - exact(p))).toBeLessThanOrEqual(exact(p) * 0.025 + 0.1);
    }
    expect(body.latency.total.avg).toBeCloseTo(latencies.reduce((a, b) => a + b, 0) / latencies.length, 1);
    expect(body.latency.retrieval.p50).not.toBeNull();
    expect(body.latency.generation.avg).not.toBeNull();
  });

  it("groups questions, lists the fallback as unanswered and ranks the cited documents", async () => {
    const { body } = await analytics();
    expect(body.topQuestions[0]).toEqual({ question: "how long does standard shipping take", count: 2 });
    expect(body.topQuestions).toHaveLength(4);
    expect(body.unansweredQuestions).toEqual([
      { question: "xylophone quantum zeppelin", count: 1, lastAskedAt: expect.stringMatching(/^\d{4}-.*Z$/) },
    ]);
    const cited = new Map<string, number>();
    for (const a of answers)
      for (const s of a.sources) cited.set(s.documentId, (cited.get(s.documentId) ?? 0) + 1);
    const expected = [...cited].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 10);
    expect(body.topSources.map((s) => [s.documentId, s.citations])).toEqual(expected);
    expect(body.topSources[0]?.title).toBe("Shipping");
  });

  it("filters by date and zero-fills hours and weeks", async () => {
    const past = await analytics(`?from=${dayOffset(-3)}&to=${dayOffset(-1)}`);
    expect(past.body.totals.queries).toBe(0);
    expect(past.body.timeseries.map((p) => p.queries)).toEqual([0, 0, 0]);
    const hourly = await analytics(`?from=${today()}&to=${today()}&interval=hour`);
    expect(hourly.body.timeseries).toHaveLength(24);
    expect(hourly.body.timeseries.reduce((n, p) => n + p.queries, 0)).toBe(5);
    const hour = new Date().getUTCHours();
    expect(hourly.body.timeseries[hour]?.queries ?? 0).toBeGreaterThan(0);
    const weekly = await analytics(`?from=${dayOffset(-20)}&to=${today()}&interval=week`);
    expect(weekly.body.timeseries[0]?.start).toBe(`${dayOffset(-20)}T00:00:00.000Z`);
    expect(weekly.body.timeseries.slice(1).every((p) => new Date(p.start).getUTCDay() === 1)).toBe(true);
    expect(weekly.body.timeseries.at(-1)?.queries).toBe(5);
  });

  it("refuses bad dates, reversed or oversized ranges and unknown intervals", async () => {
    for (const query of [
      "?from=2025-13-01",
      "?to=yesterday",
      "?from=2025-02-30",
      `?from=${today()}&to=${dayOffset(-1)}`,
      "?from=2023-01-01&to=2025-01-01",
      "?interval=month",
      "?from=2025-01-01&to=2025-03-01&interval=hour",
    ]) {
      const res = await analytics(query);
      expect({ query, status: res.status, error: (res.body as unknown as { error: string }).error }).toEqual({
        query,
        status: 400,
        error: "validation_error",
      });
    }
  });

  it("is readable by viewers and the agent's own key, and by no one else", async () => {
    expect((await analytics("", viewerToken)).status).toBe(200);
    expect((await analytics("", apiKey)).body.totals.queries).toBe(5);
    expect((await analytics("", otherKey)).status).toBe(403);
    expect((await analytics("", strangerToken)).status).toBe(404);
    expect((await call(server, "GET", `/analytics/agents/${agent.id}/`)).status).toBe(401);
    expect((await analytics("", token, crypto.randomUUID())).status).toBe(404);
    expect((await analytics("", token, otherAgent.id)).body.totals.queries).toBe(0);
  });

  it("survives a restart of the server", async () => {
    await server.close();
    server = await startTestServer({ LORE_DATA_DIR: dataDir });
    token = (await server.login()).access;
    expect((await analytics()).body.totals).toMatchObject({ queries: 5, feedbackUp: 2, feedbackDown: 1 });
  });
});
