import { type Agent, type VisitorTranscript, visitorTranscriptSchema } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { httpRequest, startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import { createAgent, readyTextSource, streamQuery } from "../ingestion/source-helpers.ts";

const ORIGIN = "https://shop.example";
const ANSWER = "Returns are accepted within thirty days of delivery, unused and in their box [1].";

let fake: FakeOpenAI;
let server: TestServer;
let agent: Agent;

const readConversation = (conversationId: string, visitorToken: unknown, origin = ORIGIN) =>
  httpRequest<VisitorTranscript>(
    server.api,
    "POST",
    `/widget/${agent.widgetId}/conversations/${conversationId}/`,
    {
      body: { visitorToken },
      headers: { Origin: origin },
    },
  );

beforeAll(async () => {
  fake = await startFakeOpenAI({ answer: ANSWER });
  server = await startTestServer({ LORE_OPENAI_BASE_URL: fake.url });
  const token = (await server.login()).access;
  const source = await readyTextSource(server, token, "Shop", [
    {
      title: "Returns",
      content: "Returns are accepted within thirty days of delivery, unused and in their box.",
    },
  ]);
  agent = await createAgent(server, token, {
    name: "Shop",
    model: "openai:fake-chat",
    dataSourceIds: [source.id],
    allowedOrigins: [ORIGIN],
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe("a widget visitor reading their conversation back", () => {
  it("finishes and stores an answer whose visitor left mid-stream, and gives it back to that visitor", async () => {
    fake.setBehaviour({ tokenDelayMs: 40 });
    const abort = new AbortController();
    let started: { conversationId: string; messageId: string; visitorToken: string } | null = null;
    // The page reloads after the first token: the connection goes away mid-answer.
    await streamQuery(
      `${server.api}/widget/${agent.widgetId}/query/`,
      null,
      { message: "How long do I have to return an item?" },
      {
        headers: { Origin: ORIGIN },
        signal: abort.signal,
        onEvent: ({ event }) => {
          if (event.type === "start")
            started = {
              conversationId: event.conversationId,
              messageId: event.messageId,
              visitorToken: event.visitorToken ?? "",
            };
          return event.type === "token";
        },
      },
    );
    abort.abort();
    if (!started) throw new Error("no start event");
    const { conversationId, messageId, visitorToken } = started;

    const stored = await until(
      async () => {
        const res = await readConversation(conversationId, visitorToken);
        expect(res.status).toBe(200);
        const answer = visitorTranscriptSchema
          .strict()
          .parse(res.body)
          .messages.find((m) => m.id === messageId);
        return answer?.status === "complete" ? answer : null;
      },
      { timeout: 20_000, what: () => "the interrupted answer to be stored" },
    );
    expect(stored.content).toBe(ANSWER);
    expect(stored.sources.map((s) => s.title)).toEqual(["Returns"]);
    fake.setBehaviour({ tokenDelayMs: 0 });
  });

  it("refuses another visitor's token, a bad token and a page from elsewhere", async () => {
    const ask = (visitorToken?: string) =>
      httpRequest<{ conversationId: string; visitorToken: string }>(
        server.api,
        "POST",
        `/widget/${agent.widgetId}/query/`,
        {
          body: { message: "Can I return an item?", ...(visitorToken ? { visitorToken } : {}) },
          headers: { Origin: ORIGIN },
        },
      );
    const mine = (await ask()).body;
    const theirs = (await ask()).body;
    const own = await readConversation(mine.conversationId, mine.visitorToken);
    expect(own.status).toBe(200);
    expect(own.body.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(own.body)).not.toMatch(/latency|model|feedbackComment|correctionId/);

    expect((await readConversation(mine.conversationId, theirs.visitorToken)).status).toBe(404);
    expect((await readConversation(mine.conversationId, "not-a-token")).status).toBe(401);
    expect((await readConversation(mine.conversationId, "")).status).toBe(400);
    expect(
      (await readConversation(mine.conversationId, mine.visitorToken, "https://evil.example")).status,
    ).toBe(403);
  });
});
