import { type Agent, type SuggestedQuestionsCheck, suggestedQuestionsCheckSchema } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.ts";
import { call, createAgent } from "../ingestion/source-helpers.ts";
import { startShopAgent } from "./shop-agent.ts";

const FALLBACK = "The shop handbook does not say.";
const ANSWERABLE = "How long does standard shipping take?";
const UNANSWERABLE = "Do you sell tickets to the Moon?";

let server: TestServer;
let token: string;
let agent: Agent;

const check = (agentId = agent.id) =>
  call<SuggestedQuestionsCheck>(server, "POST", `/agents/${agentId}/suggested-questions/check/`, token);

beforeAll(async () => {
  ({ server, token, agent } = await startShopAgent({
    fallbackMessage: FALLBACK,
    suggestedQuestions: [ANSWERABLE, UNANSWERABLE],
  }));
}, 60_000);
afterAll(() => server?.close());

describe("checking an agent's suggested questions", () => {
  it("answers each in order and flags the fallback", async () => {
    const res = await check();
    expect(res.status).toBe(200);
    const { results } = suggestedQuestionsCheckSchema.parse(res.body);
    expect(results.map((r) => r.question)).toEqual([ANSWERABLE, UNANSWERABLE]);
    const [good, bad] = results;
    expect(good).toMatchObject({ fallback: false });
    expect(good?.response).toMatch(/three to five business days/);
    expect(good?.sources.length).toBeGreaterThan(0);
    expect(good?.score).toBe(Math.max(...(good?.sources ?? []).map((s) => s.score)));
    // Weak means the contract's doubt when it judged the answer, else a weak best source.
    expect(good?.weak).toBe(good?.outcome ? good.outcome === "uncertain" : (good?.score ?? 0) < 0.5);
    expect(bad).toMatchObject({ response: FALLBACK, fallback: true, weak: false, score: 0, sources: [] });
  });

  it("stores no conversation and counts nothing in analytics", async () => {
    await call(server, "POST", `/agents/${agent.id}/query/`, token, {
      message: "Which payment methods do you accept?",
    });
    await check();
    const conversations = await call<{ count: number }>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/`,
      token,
    );
    expect(conversations.body.count).toBe(1);
    const analytics = await call<{ totals: { queries: number; unanswered: number } }>(
      server,
      "GET",
      `/analytics/agents/${agent.id}/`,
      token,
    );
    expect(analytics.body.totals).toMatchObject({ queries: 1, unanswered: 0 });
  });

  it("answers a suggested question from a correction when one matches", async () => {
    const added = await call<{ id: string }>(server, "POST", `/agents/${agent.id}/corrections/`, token, {
      question: "Do you sell Moon tickets?",
      answer: "No, only appliances.",
    });
    expect(added.status).toBe(201);
    const bad = (await check()).body.results[1];
    expect(bad).toMatchObject({
      response: "No, only appliances.",
      fallback: false,
      weak: false,
      outcome: "answered",
      correctionId: added.body.id,
      sources: [],
    });
  });

  it("returns no results for an agent without suggested questions", async () => {
    const bare = await createAgent(server, token, { name: "Bare" });
    const res = await check(bare.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ results: [] });
  });
});
