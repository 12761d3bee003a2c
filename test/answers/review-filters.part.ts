import { rmSync } from "node:fs";
import type { Agent, Conversation } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, startTestServer, type TestServer } from "../helpers/server.ts";
import { call } from "../ingestion/source-helpers.ts";
import { askShop, type ShopAgent, startShopAgent } from "./shop-agent.ts";

const FALLBACK = "The shop handbook does not say.";

const dataDir = makeTempDir();
let shop: ShopAgent;
let server: TestServer;
let token: string;
let agent: Agent;
const ids: Record<string, string> = {};

const ask = (message: string, conversationId?: string) => askShop(shop, message, conversationId);
const rate = async (messageId: string, rating: "up" | "down") => {
  const res = await call(server, "POST", `/agents/${agent.id}/messages/${messageId}/feedback/`, token, {
    rating,
  });
  expect(res.status).toBe(204);
};
const list = async (query: string) => {
  const res = await call<{ count: number; next: string | null; results: Conversation[] }>(
    server,
    "GET",
    `/agents/${agent.id}/conversations/${query}`,
    token,
  );
  expect(res.status).toBe(200);
  return res.body;
};
const titles = async (query: string) => (await list(query)).results.map((c) => c.id);

beforeAll(async () => {
  shop = await startShopAgent({ fallbackMessage: FALLBACK }, { LORE_DATA_DIR: dataDir });
  ({ server, token, agent } = shop);

  const shipping = await ask("How long does standard shipping take?");
  await rate(shipping.messageId, "up");
  ids.shipping = shipping.conversationId;

  const warranty = await ask("Does the warranty cover water damage?");
  await rate(warranty.messageId, "down");
  ids.warranty = warranty.conversationId;

  // One conversation with a fallback answer, later rated down, then a good follow-up.
  const unknown = await ask("Do you sell tickets to the Moon?");
  expect(unknown.response).toBe(FALLBACK);
  await rate(unknown.messageId, "down");
  await ask("How do I pay by bank transfer?", unknown.conversationId);
  ids.moon = unknown.conversationId;

  ids.plain = (await ask("When does the Amsterdam store open?")).conversationId;
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the conversation list's review filters", () => {
  it("shows each row's rated and fallback answers", async () => {
    const page = await list("");
    expect(page.count).toBe(4);
    const byId = new Map(page.results.map((c) => [c.id, c]));
    expect(byId.get(ids.shipping ?? "")).toMatchObject({ upvotes: 1, downvotes: 0, unanswered: 0 });
    expect(byId.get(ids.moon ?? "")).toMatchObject({
      upvotes: 0,
      downvotes: 1,
      unanswered: 1,
      messageCount: 4,
    });
    expect(byId.get(ids.plain ?? "")).toMatchObject({ upvotes: 0, downvotes: 0, unanswered: 0 });
  });

  it("filters by rating, fallback answers and text, and combines them", async () => {
    expect(new Set(await titles("?feedback=down"))).toEqual(new Set([ids.warranty, ids.moon]));
    expect(await titles("?feedback=up")).toEqual([ids.shipping]);
    expect(await titles("?unanswered=true")).toEqual([ids.moon]);
    expect(await titles("?q=BANK%20transfer")).toEqual([ids.moon]);
    expect(await titles("?q=moon&feedback=down&unanswered=true")).toEqual([ids.moon]);
    expect(await titles("?q=warranty&unanswered=true")).toEqual([]);
    // The text is matched in answers too: the shipping answer names business days.
    expect(await titles("?q=business%20days")).toContain(ids.shipping);
  });

  it("pages the filtered list with the same envelope", async () => {
    const first = await list("?feedback=down&page_size=1");
    expect(first.count).toBe(2);
    expect(first.results).toHaveLength(1);
    expect(first.next).toContain("page=2");
  });

  it("moves a re-rated conversation between the up and down queues", async () => {
    const detail = await call<{ messages: { id: string; role: string }[] }>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/${ids.shipping}/`,
      token,
    );
    const answer = detail.body.messages.find((m) => m.role === "assistant");
    await rate(answer?.id ?? "", "down");
    expect(await titles("?feedback=up")).toEqual([]);
    expect(await titles("?feedback=down")).toContain(ids.shipping);
  });

  it("forgets a deleted conversation", async () => {
    const res = await call(server, "DELETE", `/agents/${agent.id}/conversations/${ids.warranty}/`, token);
    expect(res.status).toBe(204);
    expect(await titles("?feedback=down")).not.toContain(ids.warranty);
  });

  it("refuses unknown filter values", async () => {
    for (const query of ["?feedback=sideways", "?unanswered=yes"]) {
      const res = await call(server, "GET", `/agents/${agent.id}/conversations/${query}`, token);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: "validation_error" });
    }
  });
});

describe("counts after a restart", () => {
  it("reads the flags and ratings back from the stored messages", async () => {
    await server.close();
    server = await startTestServer({ LORE_DATA_DIR: dataDir });
    token = (await server.login()).access;
    shop = { server, token, agent };
    const page = await list("?unanswered=true");
    expect(page.results.map((c) => [c.id, c.unanswered, c.downvotes])).toEqual([[ids.moon, 1, 1]]);
  });
});
