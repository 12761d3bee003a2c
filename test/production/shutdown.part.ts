import type { ErrorBody, LoginResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeChatBody, type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { httpRequest, type ServerProcess, startServerProcess } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import { createAgent, readyTextSource, type SseResult, streamQuery } from "../ingestion/source-helpers.ts";

// A model that streams a word every 150 ms: "short" questions get 4 words, "long" ones 80 (12 s).
function answer(body: FakeChatBody): string {
  const question = body.messages?.at(-1)?.content ?? "";
  return /long/i.test(question) ? `${"word ".repeat(80)}[1]` : "Returns take thirty days [1]";
}

let fake: FakeOpenAI;
let server: ServerProcess;
let token: string;
let agentId: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ answer, tokenDelayMs: 150 });
  server = await startServerProcess({
    LORE_OPENAI_BASE_URL: fake.url,
    LORE_SHUTDOWN_DELAY_MS: "1500",
    LORE_SHUTDOWN_GRACE_MS: "2500",
  });
  token = (
    await httpRequest<LoginResponse>(server.api, "POST", "/auth/login/", {
      body: { email: "admin@example.com", password: "correct-horse-battery" },
    })
  ).body.access;
  const source = await readyTextSource(server, token, "Policies", [
    { title: "Returns", content: "Returns are accepted within thirty days of delivery." },
  ]);
  agentId = (await createAgent(server, token, { model: "openai:fake-chat", dataSourceIds: [source.id] })).id;
}, 180_000);
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const connectionRefused = async (url: string) =>
  fetch(url).then(
    () => false,
    (error: unknown) => String((error as { cause?: unknown }).cause ?? error).includes("ECONNREFUSED"),
  );

describe("SIGTERM", { timeout: 120_000 }, () => {
  it("fails readiness first, refuses new connections, lets a stream finish, ends a stream past the deadline with an error event, keeps the finished answer and exits 0", async () => {
    const query = `${server.api}/agents/${agentId}/query/`;
    let streaming!: () => void;
    const bothStreaming = new Promise<void>((resolve) => {
      let started = 0;
      streaming = () => {
        started += 1;
        if (started === 2) resolve();
      };
    });
    const onFirstToken = () => {
      let seen = false;
      return (e: { event: { type: string } }) => {
        if (e.event.type === "token" && !seen) {
          seen = true;
          streaming();
        }
        return undefined;
      };
    };
    const short: Promise<SseResult> = streamQuery(
      query,
      token,
      { message: "How do returns work?" },
      {
        onEvent: onFirstToken(),
      },
    );
    const long: Promise<SseResult> = streamQuery(
      query,
      token,
      { message: "Tell me the long story" },
      {
        onEvent: onFirstToken(),
      },
    );
    await bothStreaming;
    const stoppedAt = Date.now();
    server.kill("SIGTERM");

    // Readiness fails at once; the listener still answers during the delay.
    await until(async () => (await httpRequest(server.url, "GET", "/readyz")).status === 503, {
      timeout: 1000,
    });
    const draining = await httpRequest<ErrorBody>(server.url, "GET", "/readyz");
    expect(draining.status).toBe(503);
    expect(draining.body.error).toBe("service_unavailable");
    // After the delay, new connections are refused while the streams go on.
    await until(() => connectionRefused(`${server.url}/healthz`), { timeout: 3000 });

    const finished = await short;
    expect(finished.events.map((e) => e.event.type).at(-1)).toBe("done");
    const cut = await long;
    const last = cut.events.at(-1)?.event;
    expect(last).toMatchObject({ type: "error", error: "service_unavailable" });
    expect(cut.events.filter((e) => e.event.type === "token").length).toBeLessThan(80);

    expect(await server.waitForExit()).toEqual({ code: 0, signal: null });
    // Delay + grace + the stream's last second, not the long answer's 12 s.
    expect(Date.now() - stoppedAt).toBeLessThan(8000);

    // The answer that finished before the exit was journaled and flushed: it is there after a restart.
    const start = finished.events.find((e) => e.event.type === "start")?.event;
    if (start?.type !== "start") throw new Error("no start event");
    await server.restart();
    const conversation = await httpRequest(
      server.api,
      "GET",
      `/agents/${agentId}/conversations/${start.conversationId}/`,
      { token },
    );
    expect(conversation.status).toBe(200);
    expect(JSON.stringify(conversation.body)).toContain("Returns take thirty days");
  });
});
