import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Agent,
  type Conversation,
  conversationDetailSchema,
  conversationSchema,
  type DataSource,
  type ErrorBody,
  errorBodySchema,
  type Page,
  pageSchema,
  type QueryResponse,
  queryResponseSchema,
  searchResponseSchema,
} from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shopEntries, shopQuestions } from "../fixtures/shop-corpus.ts";
import { startEarlyInWindow } from "../helpers/rate-window.ts";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";
import {
  call,
  createAgent,
  createTextSource,
  percentile,
  readyTextSource,
  search,
} from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let shop: DataSource;
let other: DataSource;
let agent: Agent;

const ask = (body: Record<string, unknown>, agentId = agent.id, auth = token) =>
  call<QueryResponse>(server, "POST", `/agents/${agentId}/query/`, auth, body);

let silentSite: { url: string; close(): Promise<void> };

/** An HTTP server on loopback that never responds. */
async function startSilentSite(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>();
  const site = createServer(() => {});
  site.on("connection", (s) => sockets.add(s));
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  const { port } = site.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        site.close(() => r());
      }),
  };
}

beforeAll(async () => {
  silentSite = await startSilentSite();
  server = await startTestServer({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" });
  token = (await server.login()).access;
  shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  other = await readyTextSource(server, token, "Zoo", [
    { title: "Penguins", content: "The zoo keeps twelve penguins; shipping penguins abroad is forbidden." },
  ]);
  agent = await createAgent(server, token, { name: "Shop assistant", dataSourceIds: [shop.id, other.id] });
});
afterAll(async () => {
  await server?.close();
  await silentSite?.close();
});

describe("query (JSON)", () => {
  it("answers with a response that validates against the contract, cited and ranked from 1", async () => {
    const res = await ask({ message: "How long does standard shipping take?" });
    expect(res.status).toBe(200);
    const body = queryResponseSchema.strict().parse(res.body);
    expect(body.response).toMatch(/three to five business days/);
    expect(body.sources.length).toBeGreaterThan(0);
    body.sources.forEach((s, i) => {
      expect(s.rank).toBe(i + 1);
      expect(s).toMatchObject({
        displayMode: "expandable",
        dataSourceName: "Shop FAQ",
        dataSourceType: "text",
        dataSourceId: shop.id,
      });
      for (const field of ["documentId", "chunkId", "title", "content", "sourceUrl"] as const)
        expect(typeof s[field]).toBe("string");
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(1);
    });
    expect(body.sources[0]?.title).toBe("Shipping");
    const markers = new Set([...body.response.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
    expect(markers.size).toBeGreaterThan(0);
    expect([...markers].sort()).toEqual(body.sources.map((s) => s.rank).sort());
    expect(body.model).toBe("extractive");
    expect(body.retrievedChunks).toBeGreaterThanOrEqual(body.sources.length);
    expect(body.metadata.tokensUsed).toBeGreaterThan(0);
    const parts = body.metadata.retrievalTime + body.metadata.generationTime;
    expect(body.latency).toBeGreaterThanOrEqual(Math.floor(parts));
    expect(body.latency - parts).toBeLessThan(15);
  });

  it("answers each question of the corpus from the right entry", async () => {
    for (const [question, expected] of shopQuestions) {
      const res = await ask({ message: question });
      expect(res.body.response, question).toMatch(expected);
    }
  });

  it("validates the message: missing, blank and over 10,000 characters are 400; exactly 10,000 is fine", async () => {
    for (const body of [
      {},
      { message: "" },
      { message: "   \n\t " },
      { message: "x".repeat(10_001) },
      { message: 42 },
    ]) {
      const res = await ask(body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      const error = errorBodySchema.parse(res.body);
      expect(error.error).toBe("validation_error");
      expect(Object.keys((error.details as { fields: Record<string, unknown> }).fields)).toContain("message");
    }
    const long = `${"shipping ".repeat(1111)}x`.padEnd(10_000, "y");
    expect(long).toHaveLength(10_000);
    expect((await ask({ message: long })).status).toBe(200);
  });

  it("continues a conversation by id, starts a new one without, and 404s unknown or foreign conversations", async () => {
    const first = await ask({ message: "How long does standard shipping take?" });
    const second = await ask({
      message: "Is shipping free above 50 euros?",
      conversationId: first.body.conversationId,
    });
    expect(second.status).toBe(200);
    expect(second.body.conversationId).toBe(first.body.conversationId);
    expect(second.body.messageId).not.toBe(first.body.messageId);
    const fresh = await ask({ message: "How long does standard shipping take?" });
    expect(fresh.body.conversationId).not.toBe(first.body.conversationId);

    const unknown = await ask({ message: "hi", conversationId: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(errorBodySchema.parse(unknown.body).error).toBe("not_found");
    const otherAgent = await createAgent(server, token, { name: "Other", dataSourceIds: [shop.id] });
    const foreign = await ask({ message: "hi", conversationId: first.body.conversationId }, otherAgent.id);
    expect(foreign.status).toBe(404);
    const malformed = await ask({ message: "hi", conversationId: "not-a-uuid" });
    expect(malformed.status).toBe(400);
  });

  it("makes a follow-up standalone before retrieval", async () => {
    const alone = await ask({ message: "and express?" });
    expect(alone.body.sources[0]?.title).toBe("Checkout");
    const first = await ask({ message: "How long does shipping take?" });
    expect(first.body.sources[0]?.title).toBe("Shipping");
    const follow = await ask({ message: "and express?", conversationId: first.body.conversationId });
    expect(follow.body.sources[0]?.title).toBe("Shipping");
    expect(follow.body.response).toMatch(/Express shipping delivers the next business day/);
  });

  it("restricts retrieval to dataSourceIds and names ids that are not attached", async () => {
    const onlyZoo = await ask({ message: "Is shipping penguins abroad allowed?", dataSourceIds: [other.id] });
    expect(onlyZoo.status).toBe(200);
    expect(onlyZoo.body.sources.length).toBeGreaterThan(0);
    expect(onlyZoo.body.sources.every((s) => s.dataSourceId === other.id)).toBe(true);
    const onlyShop = await ask({ message: "Is shipping penguins abroad allowed?", dataSourceIds: [shop.id] });
    expect(onlyShop.body.sources.every((s) => s.dataSourceId === shop.id)).toBe(true);
    expect(onlyShop.body.response).not.toMatch(/forbidden/);

    const stray = await readyTextSource(server, token, "Unattached", [
      { title: "Stray", content: "Stray facts about shipping." },
    ]);
    const missing = crypto.randomUUID();
    const res = await ask({ message: "shipping", dataSourceIds: [shop.id, stray.id, missing] });
    expect(res.status).toBe(400);
    const text = JSON.stringify(errorBodySchema.parse(res.body).details);
    expect(text).toContain(stray.id);
    expect(text).toContain(missing);
    expect(text).not.toContain(shop.id);
  });

  it("answers with the fallback message and no sources when nothing matches", async () => {
    const custom = await createAgent(server, token, {
      name: "Strict",
      dataSourceIds: [shop.id],
      fallbackMessage: "Sorry, the shop handbook does not say.",
      retrieval: { minScore: 0.3 },
    });
    const res = await ask({ message: "Explain quantum chromodynamics gluon confinement" }, custom.id);
    expect(res.status).toBe(200);
    expect(res.body.response).toBe("Sorry, the shop handbook does not say.");
    expect(res.body.sources).toEqual([]);
    const empty = await createAgent(server, token, { name: "No sources", fallbackMessage: "Nothing here." });
    const none = await ask({ message: "How long does shipping take?" }, empty.id);
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ response: "Nothing here.", sources: [], retrievedChunks: 0 });
    // The visitor's language, which the widget's way out under the answer speaks (issue #52).
    expect(none.body.language).toBe("en");
    const spanish = await ask({ message: "¿Cuánto tarda el envío de mi pedido?" }, empty.id);
    expect(spanish.body.language).toBe("es");
  });

  it("refuses callers: 401 without credentials, 404 for another tenant, 403 for a foreign API key", async () => {
    expect(
      (await call(server, "POST", `/agents/${agent.id}/query/`, undefined, { message: "hi" })).status,
    ).toBe(401);
    expect((await ask({ message: "hi" }, agent.id, "not.a.jwt")).status).toBe(401);
    await server.createUser("other-tenant@example.com");
    const stranger = (await server.login("other-tenant@example.com", DEFAULT_PASSWORD)).access;
    const foreign = await ask({ message: "hi" }, agent.id, stranger);
    expect(foreign.status).toBe(404);
    expect((await ask({ message: "hi" }, crypto.randomUUID())).status).toBe(404);

    const second = await createAgent(server, token, { name: "Second", dataSourceIds: [shop.id] });
    const key = (
      await call<{ key: string }>(server, "POST", `/agents/${second.id}/api-keys/`, token, { name: "k" })
    ).body.key;
    expect((await ask({ message: "How long does shipping take?" }, second.id, key)).status).toBe(200);
    const wrongAgent = await ask({ message: "hi" }, agent.id, key);
    expect(wrongAgent.status).toBe(403);
    expect(errorBodySchema.parse(wrongAgent.body).error).toBe("permission_denied");
  });
});

describe("agent states", () => {
  it("is processing while an attached source was never ready: 503 with Retry-After, unless dataSourceIds names ready sources only", async () => {
    // A site that accepts connections and never answers: its source stays syncing.
    const res = await call<DataSource>(server, "POST", "/data-sources/", token, {
      name: "Never answers",
      type: "web",
      config: { url: `${silentSite.url}/`, mode: "page" },
    });
    expect(res.status).toBe(201);
    const waiting = await createAgent(server, token, {
      name: "Waiting",
      dataSourceIds: [shop.id, res.body.id],
    });
    expect(waiting.status).toBe("processing");
    expect((await call<Agent>(server, "GET", `/agents/${waiting.id}/`, token)).body.status).toBe(
      "processing",
    );

    const blocked = await ask({ message: "How long does shipping take?" }, waiting.id);
    expect(blocked.status).toBe(503);
    expect(errorBodySchema.parse(blocked.body).error).toBe("agent_processing");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);

    const ready = await ask(
      { message: "How long does standard shipping take?", dataSourceIds: [shop.id] },
      waiting.id,
    );
    expect(ready.status).toBe(200);
    expect(ready.body.response).toMatch(/three to five/);
    const stillBlocked = await ask({ message: "shipping", dataSourceIds: [res.body.id] }, waiting.id);
    expect(stillBlocked.status).toBe(503);

    // Detaching the never-ready source makes the agent ready.
    const patched = await call<Agent>(server, "PATCH", `/agents/${waiting.id}/`, token, {
      dataSourceIds: [shop.id],
    });
    expect(patched.body.status).toBe("ready");
    expect((await ask({ message: "How long does shipping take?" }, waiting.id)).status).toBe(200);
  });
});

describe("search", () => {
  it("returns ranked chunks with scores in 0..1, honouring topK, mode and dataSourceIds", async () => {
    const res = await call(server, "POST", `/agents/${agent.id}/search/`, token, { query: "shipping" });
    expect(res.status).toBe(200);
    const body = searchResponseSchema.parse(res.body);
    expect(body.retrievalTime).toBeGreaterThanOrEqual(0);
    expect(body.results.length).toBeGreaterThanOrEqual(2);
    for (const [i, r] of body.results.entries()) expect(r.rank).toBe(i + 1);
    const scores = body.results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores.every((s) => s >= 0 && s <= 1)).toBe(true);
    expect(new Set(body.results.map((r) => r.dataSourceId))).toEqual(new Set([shop.id, other.id]));

    expect((await search(server, token, agent.id, "shipping", { topK: 1 })).results).toHaveLength(1);
    const onlyShop = await search(server, token, agent.id, "shipping penguins", { dataSourceIds: [shop.id] });
    expect(onlyShop.results.length).toBeGreaterThan(0);
    expect(onlyShop.results.every((r) => r.dataSourceId === shop.id)).toBe(true);
    for (const mode of ["keyword", "semantic", "hybrid"]) {
      const r = await call<{ results: Array<{ title: string }> }>(
        server,
        "POST",
        `/agents/${agent.id}/search/`,
        token,
        { query: "return an item refund", mode },
      );
      expect(r.status, mode).toBe(200);
      expect(r.body.results[0]?.title, mode).toBe("Returns");
    }
    for (const bad of [
      { query: "" },
      { query: "x", topK: 0 },
      { query: "x", topK: 101 },
      { query: "x", mode: "psychic" },
    ]) {
      expect(
        (await call(server, "POST", `/agents/${agent.id}/search/`, token, bad)).status,
        JSON.stringify(bad),
      ).toBe(400);
    }
  });
});

describe("conversations", () => {
  it("lists newest first with title and messageCount, paginates with absolute links, clamps page_size at 100", async () => {
    const owner = await createAgent(server, token, { name: "Conversations", dataSourceIds: [shop.id] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const first = await ask({ message: `Question ${i}: how long does shipping take?` }, owner.id);
      ids.push(first.body.conversationId);
    }
    await ask({ message: "And returns?", conversationId: ids[1] }, owner.id);

    const list = await call<Page<Conversation>>(server, "GET", `/agents/${owner.id}/conversations/`, token);
    expect(list.status).toBe(200);
    pageSchema(conversationSchema.strict()).parse(list.body);
    expect(list.body.count).toBe(5);
    // The continued conversation moved to the top.
    expect(list.body.results.map((c) => c.id)).toEqual([ids[1], ids[4], ids[3], ids[2], ids[0]]);
    expect(list.body.results[0]).toMatchObject({
      title: "Question 1: how long does shipping take?",
      messageCount: 4,
    });
    expect(list.body.results[1]?.messageCount).toBe(2);
    const updated = list.body.results.map((c) => c.updatedAt);
    expect([...updated].sort().reverse()).toEqual(updated);

    const page1 = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${owner.id}/conversations/?page=1&page_size=2`,
      token,
    );
    expect(page1.body.results).toHaveLength(2);
    expect(page1.body.previous).toBeNull();
    expect(page1.body.next).toBe(`${server.api}/agents/${owner.id}/conversations/?page=2&page_size=2`);
    const page3 = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${owner.id}/conversations/?page=3&page_size=2`,
      token,
    );
    expect(page3.body.results.map((c) => c.id)).toEqual([ids[0]]);
    expect(page3.body.next).toBeNull();
    expect(page3.body.previous).toBe(`${server.api}/agents/${owner.id}/conversations/?page=2&page_size=2`);
    const clamped = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${owner.id}/conversations/?page_size=500`,
      token,
    );
    expect(clamped.status).toBe(200);
    expect(clamped.body.results).toHaveLength(5);
    const beyond = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${owner.id}/conversations/?page=9&page_size=2`,
      token,
    );
    // Django REST framework's pages: past the end, zero or not a number is 404 "Invalid page.".
    expect(beyond.status).toBe(404);
    for (const bad of ["page=0", "page=abc"]) {
      const res = await call<ErrorBody>(server, "GET", `/agents/${owner.id}/conversations/?${bad}`, token);
      expect([res.status, res.body.message], bad).toEqual([404, "Invalid page."]);
    }
    // An invalid page_size is the default.
    expect((await call(server, "GET", `/agents/${owner.id}/conversations/?page_size=0`, token)).status).toBe(
      200,
    );
  });

  it("returns one conversation with its messages (sources, timings, tokens, model), and deletes it", async () => {
    const first = await ask({ message: "How long does standard shipping take?" });
    await ask({
      message: "What about the warranty on appliances?",
      conversationId: first.body.conversationId,
    });
    const res = await call(
      server,
      "GET",
      `/agents/${agent.id}/conversations/${first.body.conversationId}/`,
      token,
    );
    expect(res.status).toBe(200);
    const detail = conversationDetailSchema.parse(res.body);
    expect(detail.messageCount).toBe(4);
    expect(detail.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(detail.messages[0]).toMatchObject({
      content: "How long does standard shipping take?",
      sources: [],
      model: null,
    });
    const answer = detail.messages[1];
    expect(answer).toMatchObject({
      id: first.body.messageId,
      content: first.body.response,
      model: "extractive",
      status: "complete",
      feedback: null,
      feedbackComment: null,
    });
    expect(answer?.sources).toEqual(first.body.sources);
    expect(answer?.latency).toBe(first.body.latency);
    expect(answer?.tokensUsed).toBe(first.body.metadata.tokensUsed);
    expect(answer?.retrievalTime).toBe(first.body.metadata.retrievalTime);
    expect(answer?.generationTime).toBe(first.body.metadata.generationTime);

    expect(
      (await call(server, "DELETE", `/agents/${agent.id}/conversations/${first.body.conversationId}/`, token))
        .status,
    ).toBe(204);
    expect(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${first.body.conversationId}/`, token))
        .status,
    ).toBe(404);
    expect((await ask({ message: "hi", conversationId: first.body.conversationId })).status).toBe(404);
    expect(
      (await call(server, "DELETE", `/agents/${agent.id}/conversations/${first.body.conversationId}/`, token))
        .status,
    ).toBe(404);
  });

  it("deletes 20 conversations at once: each gone with its messages, the others untouched", async () => {
    const asked = [];
    for (let i = 0; i < 24; i++)
      asked.push(await ask({ message: `Shipping question ${i}: how long does it take?` }));
    const doomed = asked.slice(0, 20);
    const kept = asked.slice(20);
    const statuses = await Promise.all(
      doomed.map(
        async (a) =>
          (await call(server, "DELETE", `/agents/${agent.id}/conversations/${a.body.conversationId}/`, token))
            .status,
      ),
    );
    expect(statuses).toEqual(doomed.map(() => 204));
    for (const a of doomed) {
      const url = `/agents/${agent.id}/conversations/${a.body.conversationId}/`;
      expect((await call(server, "GET", url, token)).status).toBe(404);
      const feedback = `/agents/${agent.id}/messages/${a.body.messageId}/feedback/`;
      expect((await call(server, "POST", feedback, token, { rating: "up" })).status).toBe(404);
    }
    for (const a of kept) {
      const res = await call(
        server,
        "GET",
        `/agents/${agent.id}/conversations/${a.body.conversationId}/`,
        token,
      );
      expect(conversationDetailSchema.parse(res.body).messages).toHaveLength(2);
      const feedback = `/agents/${agent.id}/messages/${a.body.messageId}/feedback/`;
      expect((await call(server, "POST", feedback, token, { rating: "up" })).status).toBe(204);
    }
  });
});

describe("feedback", () => {
  it("records a rating on an answer (204), refuses user messages (400) and unknown messages (404)", async () => {
    const answer = await ask({ message: "Which payment methods do you accept?" });
    const url = `/agents/${agent.id}/messages/${answer.body.messageId}/feedback/`;
    expect((await call(server, "POST", url, token, { rating: "up", comment: "Clear answer" })).status).toBe(
      204,
    );
    const detail = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${answer.body.conversationId}/`, token))
        .body,
    );
    expect(detail.messages[1]).toMatchObject({ feedback: "up", feedbackComment: "Clear answer" });
    expect((await call(server, "POST", url, token, { rating: "down" })).status).toBe(204);
    const changed = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${answer.body.conversationId}/`, token))
        .body,
    );
    // A new rating replaces the old one with its comment.
    expect(changed.messages[1]).toMatchObject({ feedback: "down", feedbackComment: null });

    const userMessage = detail.messages[0]?.id ?? "";
    const onUser = await call(
      server,
      "POST",
      `/agents/${agent.id}/messages/${userMessage}/feedback/`,
      token,
      { rating: "up" },
    );
    expect(onUser.status).toBe(400);
    expect(
      (
        await call(server, "POST", `/agents/${agent.id}/messages/${crypto.randomUUID()}/feedback/`, token, {
          rating: "up",
        })
      ).status,
    ).toBe(404);
    expect((await call(server, "POST", url, token, { rating: "meh" })).status).toBe(400);
    const otherAgent = await createAgent(server, token, { name: "Feedback other" });
    expect(
      (
        await call(
          server,
          "POST",
          `/agents/${otherAgent.id}/messages/${answer.body.messageId}/feedback/`,
          token,
          { rating: "up" },
        )
      ).status,
    ).toBe(404);
  });
});

describe("chat completions (non-streaming)", () => {
  it("answers in the OpenAI format and keeps the sources", async () => {
    const res = await call<{
      object: string;
      choices: Array<{ message: { role: string; content: string }; finish_reason: string }>;
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
      sources: QueryResponse["sources"];
    }>(server, "POST", `/agents/${agent.id}/chat/completions/`, token, {
      model: "anything",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "How long is the warranty on appliances?" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe("chat.completion");
    expect(res.body.choices[0]?.message.role).toBe("assistant");
    expect(res.body.choices[0]?.message.content).toMatch(/two year warranty/);
    expect(res.body.choices[0]?.finish_reason).toBe("stop");
    const { prompt_tokens, completion_tokens, total_tokens } = res.body.usage;
    expect(prompt_tokens).toBeGreaterThan(0);
    expect(completion_tokens).toBeGreaterThan(0);
    expect(total_tokens).toBe(prompt_tokens + completion_tokens);
    expect(res.body.sources[0]).toMatchObject({ rank: 1, title: "Warranty", displayMode: "expandable" });
    const bad = await call(server, "POST", `/agents/${agent.id}/chat/completions/`, token, {
      messages: [{ role: "assistant", content: "hi" }],
    });
    expect(bad.status).toBe(400);
  });
});

describe("performance", () => {
  it("measures extractive query latency over 50 queries", async () => {
    const latencies: number[] = [];
    const serverLatencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      const [question] = shopQuestions[i % shopQuestions.length] ?? ["shipping"];
      const started = performance.now();
      const res = await ask({ message: question });
      latencies.push(performance.now() - started);
      serverLatencies.push(res.body.latency);
      expect(res.status).toBe(200);
    }
    const p50 = percentile(latencies, 50);
    console.log(
      `extractive query latency over 50 queries (small corpus): client p50 ${p50.toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms; server-reported p50 ${percentile(serverLatencies, 50)} ms`,
    );
    expect(p50).toBeLessThan(500);
  });
});

describe("rate limits", () => {
  it("limits queries per agent (429 with Retry-After naming the limit)", async () => {
    const limited = await startTestServer({ LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "3" });
    try {
      const t = (await limited.login()).access;
      const s = await createTextSource(limited, t, "Tiny", [
        { title: "t", content: "The tiny fact is forty two." },
      ]);
      const a = await createAgent(limited, t, { dataSourceIds: [] });
      void s;
      await startEarlyInWindow();
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof call>> | null = null;
      for (let i = 0; i < 4; i++) {
        last = await call(limited, "POST", `/agents/${a.id}/query/`, t, {
          message: "What is the tiny fact?",
        });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(errorBodySchema.parse(last?.body).error).toBe("rate_limited");
      expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(JSON.stringify(errorBodySchema.parse(last?.body).details)).toContain("agent_queries_per_minute");
      // Another agent has its own budget.
      const b = await createAgent(limited, t, {});
      expect((await call(limited, "POST", `/agents/${b.id}/query/`, t, { message: "hi" })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
