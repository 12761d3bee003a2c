import {
  type Agent,
  type Conversation,
  conversationDetailSchema,
  type ErrorBody,
  type Page,
} from "@lore/shared";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { DEFAULT_PASSWORD, type TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { until } from "../helpers/until.ts";
import { call, type SseResult, streamQuery } from "../ingestion/source-helpers.ts";

const WIDGET_ORIGIN = "https://shop.example";
const QUESTION = { message: "How long are gift cards valid?" };

let fake: FakeOpenAI;
let server: TestServer;
let token: string;
let agent: Agent;

const queryUrl = () => `${server.api}/agents/${agent.id}/query/`;
const ids = (result: SseResult) => result.raw.filter((l) => l.startsWith("id: ")).map((l) => l.slice(4));
const tokens = (result: SseResult) =>
  result.events.map((e) => (e.event.type === "token" ? e.event.token : "")).join("");
const chatRequests = () => fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
const conversationCount = async () =>
  (await call<Page<Conversation>>(server, "GET", `/agents/${agent.id}/conversations/`, token)).body.count;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  ({ server, token, agent } = await startServerWithAgent({
    env: { LORE_OPENAI_BASE_URL: fake.url },
    source: { name: "Shop FAQ", entries: shopEntries },
    agent: {
      name: "Resumable",
      model: "openai:fake-chat",
      allowedOrigins: [WIDGET_ORIGIN],
    },
  }));
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});
beforeEach(() => fake.setBehaviour({ tokenDelayMs: 0 }));

describe("resuming an answer stream with Last-Event-ID", () => {
  it("after the answer: the missed events once, or 204 when none are missed; no new answer, no new model call", async () => {
    const first = await streamQuery(queryUrl(), token, QUESTION);
    expect(first.events.at(-1)?.event.type).toBe("done");
    const seen = ids(first);
    const [answers, calls] = [await conversationCount(), chatRequests()];

    // EventSource reconnecting after `done` with the last id: 204, so it stops.
    const again = await streamQuery(queryUrl(), token, QUESTION, {
      headers: { "Last-Event-ID": seen.at(-1) ?? "" },
    });
    expect(again.response.status).toBe(204);

    // A client that lost the connection after the third event gets the rest, each once.
    const resumed = await streamQuery(queryUrl(), token, QUESTION, {
      headers: { "Last-Event-ID": seen[2] ?? "" },
    });
    expect(resumed.response.status).toBe(200);
    expect(ids(resumed)).toEqual(seen.slice(3));
    expect(resumed.events.map((e) => e.event)).toEqual(first.events.slice(3).map((e) => e.event));

    expect(await conversationCount()).toBe(answers);
    expect(chatRequests()).toBe(calls);
  });

  it("while the answer runs: the missed events, then the rest live, each token once", async () => {
    fake.setBehaviour({ tokenDelayMs: 40 });
    let resumed: Promise<SseResult> | undefined;
    let messageId = "";
    const whole = await streamQuery(queryUrl(), token, QUESTION, {
      onEvent: ({ event }) => {
        if (event.type === "start") messageId = event.messageId;
        // At the first token, a second connection resumes from the start event (id `<messageId>:0`).
        if (event.type === "token" && !resumed)
          resumed = streamQuery(queryUrl(), token, QUESTION, {
            headers: { "Last-Event-ID": `${messageId}:0` },
          });
        return undefined;
      },
    });
    expect(whole.events.at(-1)?.event.type).toBe("done");
    const second = await (resumed as Promise<SseResult>);
    expect(second.response.status).toBe(200);
    expect(second.events.at(-1)?.event.type).toBe("done");
    expect(ids(second)).toEqual(ids(whole).slice(1));
    expect(tokens(second)).toBe(tokens(whole));
  });

  it("after the connection drops mid-answer: the answer goes on, and the resumed stream brings the rest live to `done`", async () => {
    fake.setBehaviour({ tokenDelayMs: 60 });
    const [answers, calls] = [await conversationCount(), chatRequests()];
    let conversationId = "";
    // The client goes away at the first token (its socket closed), as a dropped connection does.
    const cut = await streamQuery(queryUrl(), token, QUESTION, {
      onEvent: ({ event }) => {
        if (event.type === "start") conversationId = event.conversationId;
        return event.type === "token";
      },
    });
    const resumed = await streamQuery(queryUrl(), token, QUESTION, {
      headers: { "Last-Event-ID": ids(cut).at(-1) ?? "" },
    });
    expect(resumed.response.status).toBe(200);
    expect(resumed.events.at(-1)?.event.type).toBe("done");
    expect(ids(resumed)[0]).toBe(
      ids(cut)
        .at(-1)
        ?.replace(/\d+$/, (n) => String(Number(n) + 1)),
    );
    const stored = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${conversationId}/`, token)).body,
    );
    expect(stored.messages.map((m) => `${m.role} ${m.status}`)).toEqual([
      "user complete",
      "assistant complete",
    ]);
    // Each token once: what the two connections showed is the stored answer.
    expect(tokens(cut) + tokens(resumed)).toBe(stored.messages[1]?.content);
    expect(await conversationCount()).toBe(answers + 1);
    expect(chatRequests()).toBe(calls + 1);
  });

  it("the eventsource client, left open after `done`, reconnects once, gets 204 and stops: one answer, one model call", async () => {
    const [answers, calls] = [await conversationCount(), chatRequests()];
    const types: string[] = [];
    // The question is a POST: EventSource's fetch, as an integrator configures it.
    const source = new EventSource(queryUrl(), {
      fetch: (url, init) =>
        fetch(url, {
          ...init,
          method: "POST",
          headers: { ...init.headers, Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: JSON.stringify(QUESTION),
        }),
    });
    let failure = 0;
    source.onmessage = (e) => types.push((JSON.parse(e.data) as { type: string }).type);
    source.onerror = (e) => {
      failure = (e as { code?: number }).code ?? -1;
    };
    try {
      // After `done` the server ends the stream; EventSource reconnects with the last id (~3 s).
      await until(() => source.readyState === EventSource.CLOSED, {
        timeout: 20_000,
        what: "EventSource to stop",
      });
    } finally {
      source.close();
    }
    expect(failure).toBe(204);
    expect(types.at(-1)).toBe("done");
    expect(types.filter((t) => t === "start")).toHaveLength(1);
    expect(await conversationCount()).toBe(answers + 1);
    expect(chatRequests()).toBe(calls + 1);
  });

  it("an unknown, malformed or another caller's id is a clear 404, never a new answer", async () => {
    const first = await streamQuery(queryUrl(), token, QUESTION);
    const lastId = ids(first).at(-1) ?? "";
    const calls = chatRequests();
    const viewer = await server.createUser("resume-viewer@example.com");
    await server.addMember(agent.workspaceId, viewer.id, "viewer");
    const other = (await server.login(viewer.email, DEFAULT_PASSWORD)).access;
    for (const [who, id] of [
      [token, "00000000-0000-4000-8000-000000000000:3"],
      [token, "not-an-id"],
      [other, lastId],
    ] as const) {
      const res = await call<ErrorBody>(server, "POST", `/agents/${agent.id}/query/`, who, QUESTION, {
        Accept: "text/event-stream",
        "Last-Event-ID": id,
      });
      expect([res.status, res.body.error], id).toEqual([404, "not_found"]);
      expect(res.body.message).toContain("Last-Event-ID");
    }
    expect(chatRequests()).toBe(calls);
  });

  it("a widget visitor resumes their own stream; another visitor cannot", async () => {
    const url = `${server.api}/widget/${agent.widgetId}/query/`;
    const first = await streamQuery(url, null, QUESTION, { headers: { Origin: WIDGET_ORIGIN } });
    const start = first.events[0]?.event;
    if (start?.type !== "start" || !start.visitorToken) throw new Error("no visitor token");
    const lastId = ids(first).at(-1) ?? "";
    const calls = chatRequests();
    const mine = await streamQuery(
      url,
      null,
      { ...QUESTION, visitorToken: start.visitorToken },
      { headers: { Origin: WIDGET_ORIGIN, "Last-Event-ID": lastId } },
    );
    expect(mine.response.status).toBe(204);
    // The same address without a token (EventSource re-sending the first body) may resume too.
    const sameBody = await streamQuery(url, null, QUESTION, {
      headers: { Origin: WIDGET_ORIGIN, "Last-Event-ID": lastId },
    });
    expect(sameBody.response.status).toBe(204);
    const stranger = await streamQuery(url, null, QUESTION, { headers: { Origin: WIDGET_ORIGIN } });
    const strangerStart = stranger.events[0]?.event;
    if (strangerStart?.type !== "start" || !strangerStart.visitorToken) throw new Error("no visitor token");
    const theirs = await streamQuery(
      url,
      null,
      { ...QUESTION, visitorToken: strangerStart.visitorToken },
      { headers: { Origin: WIDGET_ORIGIN, "Last-Event-ID": lastId } },
    );
    expect(theirs.response.status).toBe(404);
    expect(chatRequests()).toBe(calls + 1); // the stranger's own question only
  });
});
