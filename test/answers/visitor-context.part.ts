// Issue #31 item 4: where a conversation came from. The widget's page URL and device class are stored on
// the conversation it starts; the console's "Try it" questions are tagged `console` and left out of the
// review queue and analytics unless `includeConsole=true`; only an owner's session may tag them.
import type { AgentAnalytics, ApiKey, Conversation, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpRequest } from "../helpers/server.ts";
import { call } from "../ingestion/source-helpers.ts";
import { type ShopAgent, startShopAgent } from "./shop-agent.ts";

const ORIGIN = "https://shop.example";
let shop: ShopAgent;
let apiKey: string;

const widgetAsk = (body: Record<string, unknown>) =>
  httpRequest<QueryResponse & { visitorToken: string; error?: string; details?: unknown }>(
    shop.server.api,
    "POST",
    `/widget/${shop.agent.widgetId}/query/`,
    { body, headers: { Origin: ORIGIN } },
  );
const agentAsk = (body: Record<string, unknown>, token = shop.token) =>
  call<QueryResponse & { error?: string; details?: { fields?: Record<string, string[]> } }>(
    shop.server,
    "POST",
    `/agents/${shop.agent.id}/query/`,
    token,
    body,
  );
const listed = async (query = "") => {
  const res = await call<{ count: number; results: Conversation[] }>(
    shop.server,
    "GET",
    `/agents/${shop.agent.id}/conversations/${query}`,
    shop.token,
  );
  expect(res.status).toBe(200);
  return res.body.results;
};
const analytics = async (query = "") => {
  const res = await call<AgentAnalytics>(
    shop.server,
    "GET",
    `/analytics/agents/${shop.agent.id}/${query}`,
    shop.token,
  );
  expect(res.status).toBe(200);
  return res.body;
};

beforeAll(async () => {
  shop = await startShopAgent({ allowedOrigins: [ORIGIN] });
  apiKey = (
    await call<ApiKey & { key: string }>(
      shop.server,
      "POST",
      `/agents/${shop.agent.id}/api-keys/`,
      shop.token,
      {
        name: "ci",
      },
    )
  ).body.key;
}, 60_000);
afterAll(async () => {
  await shop?.server.close();
});

describe("the page and device a widget conversation began on", () => {
  let conversationId = "";

  it("stores them on the conversation and returns them in its JSON and the list", async () => {
    const first = await widgetAsk({
      message: "How long does standard shipping take?",
      pageUrl: "https://shop.example/help/shipping?lang=en",
      device: "mobile",
    });
    expect(first.status).toBe(200);
    conversationId = first.body.conversationId;
    const detail = await call<Conversation>(
      shop.server,
      "GET",
      `/agents/${shop.agent.id}/conversations/${conversationId}/`,
      shop.token,
    );
    expect(detail.body).toMatchObject({
      channel: "widget",
      pageUrl: "https://shop.example/help/shipping?lang=en",
      device: "mobile",
    });
    const row = (await listed()).find((c) => c.id === conversationId);
    expect(row).toMatchObject({ channel: "widget", pageUrl: "https://shop.example/help/shipping?lang=en" });

    // A follow-up from another page leaves the conversation's first page as it was.
    const next = await widgetAsk({
      message: "And express?",
      conversationId,
      visitorToken: first.body.visitorToken,
      pageUrl: "https://shop.example/other",
      device: "desktop",
    });
    expect(next.status).toBe(200);
    const after = (await listed()).find((c) => c.id === conversationId);
    expect(after).toMatchObject({ pageUrl: "https://shop.example/help/shipping?lang=en", device: "mobile" });
  });

  it("is null where the widget sent none, and on API conversations", async () => {
    const bare = await widgetAsk({ message: "Does the warranty cover water damage?" });
    expect(bare.status).toBe(200);
    const api = await agentAsk({ message: "When does the Amsterdam store open?" }, apiKey);
    expect(api.status).toBe(200);
    const rows = await listed();
    expect(rows.find((c) => c.id === bare.body.conversationId)).toMatchObject({
      channel: "widget",
      pageUrl: null,
      device: null,
    });
    expect(rows.find((c) => c.id === api.body.conversationId)).toMatchObject({
      channel: "api",
      pageUrl: null,
      device: null,
    });
  });

  it("refuses a page that is not http(s), has a fragment or is too long, and unknown devices", async () => {
    for (const body of [
      { pageUrl: "javascript:alert(1)" },
      { pageUrl: "file:///etc/passwd" },
      { pageUrl: "https://shop.example/a#secret" },
      { pageUrl: `https://shop.example/${"a".repeat(2048)}` },
      { pageUrl: "not a url" },
      { device: "watch" },
      { userAgent: "Mozilla/5.0" },
    ]) {
      const res = await widgetAsk({ message: "Hello?", ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("validation_error");
    }
  });
});

describe("questions from the console's Try it", () => {
  let tryIt: QueryResponse;
  let before: AgentAnalytics;

  beforeAll(async () => {
    before = await analytics("?includeConsole=true");
    const res = await agentAsk({ message: "Do you ship to Norway?", channel: "console" });
    expect(res.status).toBe(200);
    tryIt = res.body;
    // Rated in the console: the rating is not a visitor's either.
    const rated = await call(
      shop.server,
      "POST",
      `/agents/${shop.agent.id}/messages/${tryIt.messageId}/feedback/`,
      shop.token,
      { rating: "down" },
    );
    expect(rated.status).toBe(204);
  });

  it("are left out of the review queue by default, and listed with includeConsole=true", async () => {
    expect((await listed()).map((c) => c.id)).not.toContain(tryIt.conversationId);
    expect((await listed("?includeConsole=false")).map((c) => c.id)).not.toContain(tryIt.conversationId);
    expect((await listed("?feedback=down")).map((c) => c.id)).not.toContain(tryIt.conversationId);
    const all = await listed("?includeConsole=true");
    expect(all.find((c) => c.id === tryIt.conversationId)).toMatchObject({
      channel: "console",
      downvotes: 1,
    });
    expect((await listed("?includeConsole=true&feedback=down")).map((c) => c.id)).toEqual([
      tryIt.conversationId,
    ]);
  });

  it("are not counted in analytics by default, and are with includeConsole=true", async () => {
    const visitors = await analytics();
    const withConsole = await analytics("?includeConsole=true");
    // Three visitor/API questions above, plus the Try-it one only when asked for.
    expect(visitors.totals.queries).toBe(4);
    expect(visitors.totals.feedbackDown).toBe(0);
    expect(visitors.topQuestions.map((q) => q.question.toLowerCase()).join("|")).not.toContain("norway");
    expect(withConsole.totals.queries).toBe(5);
    expect(withConsole.totals.queries - before.totals.queries).toBe(1);
    expect(withConsole.totals.feedbackDown).toBe(1);
    expect(withConsole.totals.conversations).toBe(visitors.totals.conversations + 1);
    expect(withConsole.topQuestions.map((q) => q.question.toLowerCase()).join("|")).toContain("norway");
  });

  it("a follow-up continues the console conversation, still out of the queue", async () => {
    const next = await agentAsk({
      message: "And to Sweden?",
      conversationId: tryIt.conversationId,
      channel: "console",
    });
    expect(next.status).toBe(200);
    expect((await listed()).map((c) => c.id)).not.toContain(tryIt.conversationId);
    expect((await analytics()).totals.queries).toBe(4);
  });

  it("can only be tagged by an owner's login session: an API key or a widget visitor gets 400", async () => {
    const key = await agentAsk({ message: "Do you ship to Norway?", channel: "console" }, apiKey);
    expect(key.status).toBe(400);
    expect(key.body.error).toBe("validation_error");
    expect(key.body.details?.fields).toHaveProperty("channel");
    const visitor = await widgetAsk({ message: "Do you ship to Norway?", channel: "console" });
    expect(visitor.status).toBe(400);
    expect(visitor.body.error).toBe("validation_error");
    const other = await agentAsk({ message: "Do you ship to Norway?", channel: "widget" });
    expect(other.status).toBe(400);
    expect(await analytics()).toMatchObject({ totals: { queries: 4 } });
  });
});
