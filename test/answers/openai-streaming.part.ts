import {
  type Agent,
  chatCompletionChunkSchema,
  citationSchema,
  conversationDetailSchema,
  type DataSource,
  errorBodySchema,
  type QueryResponse,
} from "@lore/shared";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  defaultAnswer,
  type FakeChatBody,
  type FakeOpenAI,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import { call, createAgent, readyTextSource, streamQuery } from "../ingestion/source-helpers.ts";

const INSTRUCTIONS = "You are Captain Lore. Always mention the marker PIRATE-7731 in your tone.";
const CONDENSE_MARKER = "Rewrite the user's last question";
const WIDGET_ORIGIN = "https://shop.example";

let fake: FakeOpenAI;
let server: TestServer;
let token: string;
let shop: DataSource;
let agent: Agent;

const isCondense = (body: FakeChatBody) => (body.messages?.[0]?.content ?? "").startsWith(CONDENSE_MARKER);
const chatBodies = () =>
  fake.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.body as FakeChatBody);
const generationBodies = () => chatBodies().filter((b) => !isCondense(b));

/** The fake: rewrites follow-ups like a real model would, and otherwise quotes source [1]. */
function answer(body: FakeChatBody): string {
  if (isCondense(body)) {
    const last = body.messages?.at(-1)?.content ?? "";
    return /express/i.test(last)
      ? "How long does express shipping take?"
      : (/Last question: (.*)$/m.exec(last)?.[1] ?? "");
  }
  return defaultAnswer(body);
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ answer });
  server = await startTestServer({
    LORE_OPENAI_BASE_URL: fake.url,
    LORE_OPENAI_TIMEOUT_MS: "1500",
    // A dropped stream waits this long for its client to resume (Last-Event-ID) before it stops.
    LORE_STREAM_RESUME_GRACE_MS: "300",
  });
  token = (await server.login()).access;
  shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  agent = await createAgent(server, token, {
    name: "Pirate",
    model: "openai:fake-chat",
    instructions: INSTRUCTIONS,
    dataSourceIds: [shop.id],
    allowedOrigins: [WIDGET_ORIGIN],
  });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.resetBehaviour();
});

const ask = (body: Record<string, unknown>) =>
  call<QueryResponse>(server, "POST", `/agents/${agent.id}/query/`, token, body);
const queryUrl = () => `${server.api}/agents/${agent.id}/query/`;

describe("OpenAI-compatible generation", () => {
  it("sends the agent's instructions and numbered sources in the system prompt, and reports the model's token usage", async () => {
    const res = await ask({ message: "How long is the warranty on appliances?" });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe("openai:fake-chat");
    expect(res.body.response).toMatch(/two year warranty/);
    expect(res.body.sources[0]).toMatchObject({ rank: 1, title: "Warranty" });
    const body = generationBodies().at(-1);
    expect(body?.model).toBe("fake-chat");
    const system = body?.messages?.[0];
    expect(system?.role).toBe("system");
    expect(system?.content).toContain(INSTRUCTIONS);
    expect(system?.content).toMatch(/^\[1\] .*Warranty/m);
    expect(body?.messages?.at(-1)).toEqual({
      role: "user",
      content: "How long is the warranty on appliances?",
    });
    const words = (body?.messages ?? []).reduce(
      (n, m) => n + m.content.split(/\s+/).filter(Boolean).length,
      0,
    );
    const answerWords = res.body.response
      .replace(/\s*\[\d+\]/g, " [1]")
      .split(/\s+/)
      .filter(Boolean).length;
    // The model's own usage report, split as it gave it.
    expect(res.body.metadata).toMatchObject({
      promptTokens: words,
      completionTokens: answerWords,
      tokensUsed: words + answerWords,
    });
  });

  it("sends at most the last 10 messages of the conversation to the model", async () => {
    let conversationId: string | undefined;
    for (let i = 0; i < 7; i++) {
      const res = await ask({
        message: `Question number ${i} about the warranty on appliances?`,
        conversationId,
      });
      expect(res.status).toBe(200);
      conversationId = res.body.conversationId;
    }
    const before = generationBodies().length;
    const res = await ask({ message: "And what does the warranty not cover?", conversationId });
    expect(res.status).toBe(200);
    const body = generationBodies()[before];
    const history = (body?.messages ?? []).slice(1, -1);
    expect(history).toHaveLength(10);
    // The oldest two exchanges fell out of the window; the newest is there.
    expect(history[0]).toEqual({
      role: "user",
      content: "Question number 2 about the warranty on appliances?",
    });
    expect(history.at(-2)).toEqual({
      role: "user",
      content: "Question number 6 about the warranty on appliances?",
    });
    expect(history.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("makes a follow-up standalone before retrieval", async () => {
    // Alone, "and express?" finds the express checkout entry.
    const alone = await ask({ message: "and express?" });
    expect(alone.body.sources[0]?.title).toBe("Checkout");
    const first = await ask({ message: "How long does shipping take?" });
    const follow = await ask({ message: "and express?", conversationId: first.body.conversationId });
    expect(follow.status).toBe(200);
    expect(follow.body.sources[0]?.title).toBe("Shipping");
    const condense = chatBodies().filter(isCondense).at(-1);
    expect(condense?.messages?.at(-1)?.content).toMatch(/How long does shipping take\?/);
    // The model answers the standalone question, with the conversation as history.
    const generation = generationBodies().at(-1);
    expect(generation?.messages?.at(-1)).toEqual({
      role: "user",
      content: "How long does express shipping take?",
    });
    expect(generation?.messages?.[0]?.content).toMatch(
      /^\[1\] .*Express shipping delivers the next business day/m,
    );
  });
});

describe("SSE", () => {
  it("streams start, tokens, sources and done with the SSE headers, each event valid", async () => {
    const result = await streamQuery(queryUrl(), token, { message: "When does the Amsterdam store open?" });
    const { response, events } = result;
    expect(response.status).toBe(200);
    // Exactly this type: clients that compare it with === (fetch-event-source's README) accept it.
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toMatch(/no-cache/);
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const types = events.map((e) => e.event.type);
    expect(types[0]).toBe("start");
    expect(types.at(-2)).toBe("sources");
    expect(types.at(-1)).toBe("done");
    expect(types.slice(1, -2).every((t) => t === "token")).toBe(true);
    expect(types.filter((t) => t === "token").length).toBeGreaterThan(3);
    const start = events[0]?.event;
    const done = events.at(-1)?.event;
    if (start?.type !== "start" || done?.type !== "done") throw new Error("bad order");
    expect(done.conversationId).toBe(start.conversationId);
    expect(done.messageId).toBe(start.messageId);
    const text = events.map((e) => (e.event.type === "token" ? e.event.token : "")).join("");
    expect(text).toMatch(/nine in the morning/);
    const sources = events.at(-2)?.event;
    if (sources?.type !== "sources") throw new Error("no sources");
    expect(sources.sources).toEqual(done.sources);
    for (const s of sources.sources) citationSchema.parse(s);
    // The stored answer is what was streamed.
    const detail = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${start.conversationId}/`, token)).body,
    );
    expect(detail.messages[1]?.content).toBe(text);
  });

  it("flushes each token as the model produces it (time to first token)", async () => {
    fake.setBehaviour({ tokenDelayMs: 60 });
    const started = performance.now();
    const { events } = await streamQuery(queryUrl(), token, { message: "How long are gift cards valid?" });
    const tokens = events.filter((e) => e.event.type === "token");
    expect(tokens.length).toBeGreaterThan(5);
    const first = tokens[0]?.at ?? 0;
    const last = tokens.at(-1)?.at ?? 0;
    console.log(
      `OpenAI-compatible path (fake, 60 ms/token): time to first token ${first.toFixed(0)} ms, last token ${last.toFixed(0)} ms, ${tokens.length} tokens, total ${(performance.now() - started).toFixed(0)} ms`,
    );
    // Tokens arrive spread over time, not in one burst at the end.
    expect(last - first).toBeGreaterThan(60 * (tokens.length - 3));
    expect(first).toBeLessThan(last / 2);
  });

  it("measures time to first token without artificial delay", async () => {
    const ttft: number[] = [];
    for (let i = 0; i < 10; i++) {
      const { events } = await streamQuery(queryUrl(), token, { message: "How long are gift cards valid?" });
      ttft.push(events.find((e) => e.event.type === "token")?.at ?? Number.NaN);
    }
    ttft.sort((a, b) => a - b);
    console.log(
      `OpenAI-compatible path (fake, no delay): time to first token p50 ${ttft[4]?.toFixed(1)} ms over 10 streamed queries`,
    );
    expect(ttft[4]).toBeLessThan(1000);
  });

  it("reports an upstream failure as an error event after start, and as 502 in JSON mode", async () => {
    fake.setBehaviour({ failTimes: 100, failStatus: 500 });
    const { response, events } = await streamQuery(queryUrl(), token, {
      message: "How long is the warranty?",
    });
    expect(response.status).toBe(200);
    expect(events.map((e) => e.event.type)).toEqual(["start", "error"]);
    expect(events[1]?.event).toMatchObject({ type: "error", error: "upstream_error" });
    const json = await ask({ message: "How long is the warranty?" });
    expect(json.status).toBe(502);
    expect(errorBodySchema.parse(json.body).error).toBe("upstream_error");
    // The failed answer is stored with its status.
    const start = events[0]?.event;
    if (start?.type !== "start") throw new Error("no start");
    const detail = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${start.conversationId}/`, token)).body,
    );
    expect(detail.messages.at(-1)?.status).toBe("failed");
  });

  it("ends with an error instead of hanging when the model never answers", async () => {
    fake.setBehaviour({ hang: true });
    const started = performance.now();
    const { events } = await streamQuery(
      queryUrl(),
      token,
      { message: "How long is the warranty?" },
      { signal: AbortSignal.timeout(15_000) },
    );
    expect(events.map((e) => e.event.type)).toEqual(["start", "error"]);
    expect(events[1]?.event).toMatchObject({ type: "error", error: "upstream_error" });
    const json = await call(server, "POST", `/agents/${agent.id}/query/`, token, {
      message: "How long is the warranty?",
    });
    expect(json.status).toBe(502);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("reports a connection dropped mid-stream as an error after the tokens already sent", async () => {
    fake.setBehaviour({ dropAfterTokens: 3, tokenDelayMs: 5 });
    const { events } = await streamQuery(queryUrl(), token, { message: "How long are gift cards valid?" });
    const types = events.map((e) => e.event.type);
    expect(types[0]).toBe("start");
    expect(types.at(-1)).toBe("error");
    expect(types.filter((t) => t === "token").length).toBeGreaterThan(0);
  });

  const cutModes = [
    ["the connection drops", { dropAfterTokens: 3 }],
    ["the stream ends without a finish reason or [DONE]", { endAfterTokens: 3 }],
  ] as const;

  it.each(cutModes)(
    "stores the partial answer as failed when %s mid-answer (SSE, JSON and widget)",
    async (_, cut) => {
      fake.setBehaviour({ ...cut, tokenDelayMs: 5, answer: (b) => (isCondense(b) ? "x" : defaultAnswer(b)) });
      const { events } = await streamQuery(queryUrl(), token, { message: "How long are gift cards valid?" });
      expect(events.map((e) => e.event.type)).toEqual(["start", "token", "token", "token", "error"]);
      expect(events.at(-1)?.event).toMatchObject({ type: "error", error: "upstream_error" });
      const start = events[0]?.event;
      if (start?.type !== "start") throw new Error("no start");
      const received = events.map((e) => (e.event.type === "token" ? e.event.token : "")).join("");
      expect(received).toBe("According to the");
      const detail = conversationDetailSchema.parse(
        (await call(server, "GET", `/agents/${agent.id}/conversations/${start.conversationId}/`, token)).body,
      );
      expect(detail.messages.map((m) => [m.role, m.status, m.content])).toEqual([
        ["user", "complete", "How long are gift cards valid?"],
        ["assistant", "failed", received],
      ]);

      const json = await ask({ message: "How long are gift cards valid?" });
      expect(json.status).toBe(502);
      expect(errorBodySchema.parse(json.body).error).toBe("upstream_error");

      // The widget's visitor: the same partial answer, stored as failed.
      const visitor = await streamQuery(
        `${server.api}/widget/${agent.widgetId}/query/`,
        null,
        { message: "How long are gift cards valid?" },
        { headers: { Origin: WIDGET_ORIGIN } },
      );
      expect(visitor.events.map((e) => e.event.type)).toEqual(["start", "token", "token", "token", "error"]);
      const widgetStart = visitor.events[0]?.event;
      if (widgetStart?.type !== "start") throw new Error("no start");
      const widgetConversation = conversationDetailSchema.parse(
        (await call(server, "GET", `/agents/${agent.id}/conversations/${widgetStart.conversationId}/`, token))
          .body,
      );
      expect(widgetConversation.messages.at(-1)).toMatchObject({ status: "failed", content: received });
    },
  );

  it.each(cutModes)(
    "ends a chat completion stream with an OpenAI error chunk and stores the partial answer when %s",
    async (_, cut) => {
      fake.setBehaviour({ ...cut, tokenDelayMs: 5, answer: (b) => (isCondense(b) ? "x" : defaultAnswer(b)) });
      const before = new Set(
        (
          await call<{ results: Array<{ id: string }> }>(
            server,
            "GET",
            `/agents/${agent.id}/conversations/?page_size=100`,
            token,
          )
        ).body.results.map((c) => c.id),
      );
      const response = await fetch(`${server.api}/agents/${agent.id}/chat/completions/`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          stream: true,
          messages: [{ role: "user", content: "How long are gift cards valid?" }],
        }),
      });
      expect(response.status).toBe(200);
      const payloads = (await response.text())
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6));
      expect(payloads.at(-1)).not.toBe("[DONE]");
      const chunks = payloads.map((l) => JSON.parse(l) as Record<string, unknown>);
      const last = chunks.at(-1) as { error?: { type: string; code: string; message: string; param: null } };
      expect(last.error).toMatchObject({ type: "server_error", code: "upstream_error", param: null });
      const content = chunks
        .map(
          (c) =>
            (c as { choices?: Array<{ delta: { content?: string } }> }).choices?.[0]?.delta.content ?? "",
        )
        .join("");
      expect(content).toBe("According to the");
      const conversationId = (chunks[0] as { conversationId: string }).conversationId;
      expect(before.has(conversationId)).toBe(false);
      const detail = conversationDetailSchema.parse(
        (await call(server, "GET", `/agents/${agent.id}/conversations/${conversationId}/`, token)).body,
      );
      expect(detail.messages.at(-1)).toMatchObject({ role: "assistant", status: "failed", content });
    },
  );

  it("stops generation when the client disconnects and doesn't resume, and stores the partial answer as stopped", async () => {
    fake.setBehaviour({
      tokenDelayMs: 80,
      answer: (b) =>
        isCondense(b)
          ? "x"
          : `${defaultAnswer(b)} ${"More words keep coming from the model here.".repeat(6)}`,
    });
    const controller = new AbortController();
    const before = fake.requests.length;
    let conversationId = "";
    let received = "";
    await streamQuery(
      queryUrl(),
      token,
      { message: "How long are gift cards valid?" },
      {
        signal: controller.signal,
        onEvent: ({ event }) => {
          if (event.type === "start") conversationId = event.conversationId;
          if (event.type === "token") received += event.token;
          return event.type === "token" && received.split(/\s+/).length > 4;
        },
      },
    );
    controller.abort();
    const upstream = fake.requests[before];
    await upstream?.settled;
    expect(upstream?.closedEarly).toBe(true);
    expect(upstream?.tokensSent).toBeLessThan(30);

    const stored = await until(
      async () => {
        const conversation = conversationDetailSchema.parse(
          (await call(server, "GET", `/agents/${agent.id}/conversations/${conversationId}/`, token)).body,
        );
        return conversation.messages.length === 2 && conversation;
      },
      { timeout: 3_000, interval: 30, what: "the stopped answer to be stored" },
    );
    const answerMessage = stored.messages[1];
    expect(answerMessage?.status).toBe("stopped");
    expect(answerMessage?.content.length).toBeGreaterThan(0);
    expect(answerMessage?.content.startsWith(received.trimEnd().slice(0, 10))).toBe(true);
    expect(answerMessage?.content).not.toMatch(/(More words keep coming from the model here\.){6}/);
  });
});

describe("a conversation deleted while its answer streams", () => {
  it("stays deleted: the late answer is dropped, not stored", async () => {
    fake.setBehaviour({
      tokenDelayMs: 20,
      answer: (b) => (isCondense(b) ? "x" : `${defaultAnswer(b)} And a few more words follow.`),
    });
    let conversationId = "";
    let messageId = "";
    let deleted: Promise<number> | null = null;
    const result = await streamQuery(
      queryUrl(),
      token,
      { message: "How long are gift cards valid?" },
      {
        onEvent: ({ event }) => {
          if (event.type === "start") ({ conversationId, messageId } = event);
          if (event.type === "token" && !deleted)
            deleted = call(
              server,
              "DELETE",
              `/agents/${agent.id}/conversations/${conversationId}/`,
              token,
            ).then((r) => r.status);
          return false;
        },
      },
    );
    expect(result.events.at(-1)?.event).toMatchObject({ type: "done" });
    // The answer is stored (here: dropped) before `done` is sent, and the delete has answered:
    // nothing of this exchange is still on its way to the store.
    expect(await deleted).toBe(204);
    const get = await call(server, "GET", `/agents/${agent.id}/conversations/${conversationId}/`, token);
    expect(get.status).toBe(404);
    const list = await call<{ results: Array<{ id: string }> }>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/?page_size=100`,
      token,
    );
    expect(list.body.results.map((c) => c.id)).not.toContain(conversationId);
    const feedback = await call(
      server,
      "POST",
      `/agents/${agent.id}/messages/${messageId}/feedback/`,
      token,
      {
        rating: "up",
      },
    );
    expect(feedback.status).toBe(404);
  });
});

describe("chat completions (streaming)", () => {
  const streamChat = async (extra: Record<string, unknown> = {}) => {
    const response = await fetch(`${server.api}/agents/${agent.id}/chat/completions/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        stream: true,
        messages: [{ role: "user", content: "Which payment methods do you accept?" }],
        ...extra,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const lines = (await response.text())
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => l.slice(6));
    expect(lines.at(-1)).toBe("[DONE]");
    const chunks = lines.slice(0, -1).map((l) => chatCompletionChunkSchema.parse(JSON.parse(l)));
    return chunks.map((c) => {
      if ("error" in c) throw new Error(`error chunk ${c.error.message}`);
      return c;
    });
  };

  it("streams OpenAI chunks ending with the sources and [DONE], with no usage unless asked", async () => {
    const chunks = await streamChat();
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(content).toMatch(/PayPal/);
    const last = chunks.at(-1);
    expect(last?.choices[0]?.finish_reason).toBe("stop");
    expect(last?.sources?.length).toBeGreaterThan(0);
    expect(citationSchema.parse(last?.sources?.[0]).title).toBe("Payment methods");
    expect(chunks.filter((c) => c.usage !== undefined)).toEqual([]);
  });

  it("sends the usage once, on a last chunk with no choices, when stream_options.include_usage asks", async () => {
    const chunks = await streamChat({ stream_options: { include_usage: true } });
    const withUsage = chunks.filter((c) => c.usage !== undefined);
    expect(withUsage).toHaveLength(1);
    const last = chunks.at(-1);
    expect(last).toBe(withUsage[0]);
    expect(last?.choices).toEqual([]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    const usage = last?.usage;
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
  });
});
