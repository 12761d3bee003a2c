/**
 * Resuming an answer stream on another replica (shared mode): the answer is streamed by replica 0,
 * the client's reconnect with Last-Event-ID lands on replica 1, which replays and follows it from
 * Redis. Never a new answer: the model is asked once per question.
 */
import type { Agent, DataSource } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { type Fleet, startFleet } from "../helpers/fleet.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../helpers/server.ts";
import { type SseResult, streamQuery, waitForSettled } from "../ingestion/source-helpers.ts";

const QUESTION = { message: "How long does standard shipping take?" };

let fake: FakeOpenAI;
let fleet: Fleet;
let token = "";
let agent: Agent;

const queryUrl = (replica: number) => `${fleet.replicas[replica]?.api}/agents/${agent.id}/query/`;
const ids = (result: SseResult) => result.raw.filter((l) => l.startsWith("id: ")).map((l) => l.slice(4));
const tokens = (result: SseResult) =>
  result.events.map((e) => (e.event.type === "token" ? e.event.token : "")).join("");
const chatRequests = () => fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  // A short grace: an answer whose client dropped stops soon unless a client resumed it (on any replica).
  fleet = await startFleet(2, { LORE_OPENAI_BASE_URL: fake.url, LORE_STREAM_RESUME_GRACE_MS: "400" });
  token = (
    await fleet.direct<{ access: string }>(0, "POST", "/auth/login/", {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    })
  ).body.access;
  const created = await fleet.direct<DataSource>(0, "POST", "/data-sources/", {
    token,
    body: {
      name: "Shipping",
      type: "text",
      config: {
        entries: [{ title: "Shipping", content: "Standard shipping takes three to five business days." }],
      },
    },
  });
  await waitForSettled({ api: fleet.replicas[0]?.api ?? "" }, token, created.body.id);
  agent = (
    await fleet.direct<Agent>(0, "POST", "/agents/", {
      token,
      body: { name: "Fleet resume", model: "openai:fake-chat", dataSourceIds: [created.body.id] },
    })
  ).body;
}, 180_000);
afterAll(async () => {
  await fleet?.close();
  await fake?.close();
});

describe("Last-Event-ID across replicas", () => {
  it("another replica replays a finished answer's missed events, or answers 204", async () => {
    fake.setBehaviour({ tokenDelayMs: 0 });
    const first = await streamQuery(queryUrl(0), token, QUESTION);
    expect(first.events.at(-1)?.event.type).toBe("done");
    const seen = ids(first);
    const calls = chatRequests();
    const resumed = await streamQuery(queryUrl(1), token, QUESTION, {
      headers: { "Last-Event-ID": seen[1] ?? "" },
    });
    expect(resumed.response.status).toBe(200);
    expect(ids(resumed)).toEqual(seen.slice(2));
    const done = await streamQuery(queryUrl(1), token, QUESTION, {
      headers: { "Last-Event-ID": seen.at(-1) ?? "" },
    });
    expect(done.response.status).toBe(204);
    expect(chatRequests()).toBe(calls);
  });

  it("another replica follows a running answer to its end, each token once", async () => {
    fake.setBehaviour({ tokenDelayMs: 60 });
    let messageId = "";
    let resumed: Promise<SseResult> | undefined;
    const whole = await streamQuery(queryUrl(0), token, QUESTION, {
      onEvent: ({ event }) => {
        if (event.type === "start") messageId = event.messageId;
        if (event.type === "token" && !resumed)
          resumed = streamQuery(queryUrl(1), token, QUESTION, {
            headers: { "Last-Event-ID": `${messageId}:0` },
          });
        return undefined;
      },
    });
    const second = await (resumed as Promise<SseResult>);
    expect(second.response.status).toBe(200);
    expect(second.events.at(-1)?.event.type).toBe("done");
    expect(ids(second)).toEqual(ids(whole).slice(1));
    expect(tokens(second)).toBe(tokens(whole));
  });

  it("a client whose connection to one replica drops resumes on the other; the answer goes on to done", async () => {
    // Longer than the grace: the replica running it must see the resume on the other one (in Redis).
    fake.setBehaviour({ tokenDelayMs: 120 });
    const calls = chatRequests();
    const cut = await streamQuery(queryUrl(0), token, QUESTION, {
      onEvent: ({ event }) => event.type === "token",
    });
    const resumed = await streamQuery(queryUrl(1), token, QUESTION, {
      headers: { "Last-Event-ID": ids(cut).at(-1) ?? "" },
    });
    expect(resumed.response.status).toBe(200);
    expect(resumed.events.at(-1)?.event.type).toBe("done");
    expect(tokens(cut) + tokens(resumed)).toMatch(/three to five business days/);
    expect(chatRequests()).toBe(calls + 1);
  });
});
