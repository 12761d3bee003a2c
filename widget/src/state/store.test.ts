import { afterEach, describe, expect, it, vi } from "vitest";
import {
  answerResponse,
  citation,
  createFetchDouble,
  createStream,
  defaultIds,
  errorResponse,
  jsonResponse,
  memoryStorage,
  networkFailure,
  widgetConfig,
} from "../test-support.ts";
import { storageKey } from "./persistence.ts";
import { createStore, plainText } from "./store.ts";

const server = "https://lore.example.com";
/** What a new conversation's first message says about the page (happy-dom's page, a desktop pointer). */
const page = () => ({ pageUrl: location.href.replace(/#.*/, ""), device: "desktop" });
const until = (check: () => boolean) => vi.waitFor(() => expect(check()).toBe(true));

function setup(
  routes: Parameters<typeof createFetchDouble>[0],
  storage = memoryStorage(),
  now?: () => number,
) {
  const double = createFetchDouble({ "GET /config/": () => jsonResponse(200, widgetConfig()), ...routes });
  const events: { name: string; detail: Record<string, unknown> }[] = [];
  const store = createStore({
    server,
    widgetId: "w1",
    fetch: double.fetch,
    storage,
    emit: (name, detail) => events.push({ name, detail }),
    ...(now ? { now } : {}),
  });
  return { store, requests: double.requests, storage, events };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("sending", () => {
  it("streams the answer token by token, then completes it with its sources", async () => {
    let push: ReturnType<typeof createStream> | undefined;
    const { store, requests } = setup({
      "POST /query/": (_req, signal) => {
        push = createStream(signal);
        return push.response;
      },
    });
    const sending = store.send("  How do refunds work?  ");
    await until(() => push !== undefined);
    expect(store.busy.value).toBe(true);
    push?.send({ type: "start", query_id: "q", conversationId: defaultIds.conversationId, messageId: "m1" });
    push?.send({ type: "token", token: "Refunds take " });
    await until(() => store.messages.value[1]?.content === "Refunds take ");
    expect(store.messages.value[1]?.status).toBe("streaming");
    expect(store.announcement.value).toBe("");
    push?.send({ type: "token", token: "5 days [1]." });
    push?.send({ type: "sources", sources: [citation(1)] });
    push?.send({
      type: "done",
      outcome: "answered",
      confidence: 0.9,
      conversationId: defaultIds.conversationId,
      messageId: "m1",
      sources: [citation(1)],
      latency: 5,
      model: "extractive",
      correctionId: null,
      retrievedChunks: 1,
      metadata: { tokensUsed: 1, retrievalTime: 1, generationTime: 1 },
    });
    push?.end();
    await sending;

    const [user, answer] = store.messages.value;
    expect(user).toMatchObject({ role: "user", content: "How do refunds work?", status: "complete" });
    expect(answer).toMatchObject({
      role: "assistant",
      content: "Refunds take 5 days [1].",
      status: "complete",
    });
    expect(answer?.sources.map((s) => s.rank)).toEqual([1]);
    expect(store.busy.value).toBe(false);
    expect(store.announcement.value).toBe("Refunds take 5 days.");
    expect(requests.at(-1)?.body).toEqual({ message: "How do refunds work?", ...page() });
    expect(requests.at(-1)?.headers.accept).toBe("text/event-stream");
  });

  it("tells a new conversation its page without the fragment, and nothing from a non-http page", async () => {
    const { store, requests } = setup({ "POST /query/": () => answerResponse(["Hello"]) });
    const before = location.href;
    history.replaceState(null, "", "/help/returns?lang=en#order-1234");
    await store.send("first");
    expect(requests.at(-1)?.body).toEqual({
      message: "first",
      pageUrl: `${location.origin}/help/returns?lang=en`,
      device: "desktop",
    });
    history.replaceState(null, "", before);
    store.reset();
    const href = vi.spyOn(location, "href", "get").mockReturnValue("about:srcdoc");
    await store.send("again");
    href.mockRestore();
    expect(requests.at(-1)?.body).toEqual({ message: "again" });
  });

  it("continues the conversation with the returned conversationId and visitor token", async () => {
    const { store, requests } = setup({
      "POST /query/": () => answerResponse(["Hello"]),
    });
    await store.send("first");
    await store.send("second");
    expect(requests.filter((r) => r.method === "POST").map((r) => r.body)).toEqual([
      { message: "first", ...page() },
      { message: "second", conversationId: defaultIds.conversationId, visitorToken: defaultIds.token },
    ]);
  });

  it("emits message and sources events for the host page", async () => {
    const { store, events } = setup({ "POST /query/": () => answerResponse(["Yes [1]"], [citation(1)]) });
    await store.send("Is it?");
    expect(events.map((e) => e.name)).toEqual(["message", "sources", "message"]);
    expect(events[2]?.detail).toMatchObject({
      role: "assistant",
      content: "Yes [1]",
      messageId: defaultIds.messageId,
    });
  });

  it("ignores blank questions", async () => {
    const { store, requests } = setup({});
    await store.send("   ");
    expect(store.messages.value).toEqual([]);
    expect(requests).toHaveLength(0);
  });

  it("stop aborts the request and keeps the partial answer as stopped", async () => {
    let push: ReturnType<typeof createStream> | undefined;
    let aborted = false;
    const { store } = setup({
      "POST /query/": (_req, signal) => {
        signal?.addEventListener("abort", () => {
          aborted = true;
        });
        push = createStream(signal);
        return push.response;
      },
    });
    const sending = store.send("Tell me everything");
    await until(() => push !== undefined);
    push?.send({ type: "start", query_id: "q", conversationId: defaultIds.conversationId, messageId: "m1" });
    push?.send({ type: "token", token: "Partial" });
    await until(() => store.messages.value[1]?.content === "Partial");
    store.stop();
    await sending;
    expect(aborted).toBe(true);
    expect(store.messages.value[1]).toMatchObject({ content: "Partial", status: "stopped" });
    expect(store.notice.value).toBeNull();
    expect(store.busy.value).toBe(false);
  });
});

describe("failures", () => {
  it("429 shows a countdown from Retry-After, gives the question back, then re-enables sending", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { store, events } = setup({
      "POST /query/": () => errorResponse(429, "rate_limited", { "Retry-After": "3" }),
    });
    await store.send("Too fast?");
    expect(store.notice.value?.kind).toBe("rate_limited");
    expect(store.retryIn.value).toBe(3);
    expect(store.canSend.value).toBe(false);
    expect(store.messages.value).toEqual([]);
    expect(store.draft.value).toBe("Too fast?");
    expect(events.at(-1)).toMatchObject({ name: "error", detail: { code: "rate_limited" } });
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.retryIn.value).toBe(2);
    await vi.advanceTimersByTimeAsync(2100);
    expect(store.retryIn.value).toBe(0);
    expect(store.notice.value).toBeNull();
    expect(store.canSend.value).toBe(true);
  });

  it("503 agent_processing says the assistant is still learning and offers a retry", async () => {
    const { store } = setup({
      "POST /query/": [
        () => errorResponse(503, "agent_processing", { "Retry-After": "30" }),
        () => answerResponse(["Ready now"]),
      ],
    });
    await store.send("Anyone there?");
    expect(store.notice.value?.kind).toBe("processing");
    expect(store.messages.value.map((m) => [m.role, m.status])).toEqual([["user", "failed"]]);
    expect(store.canRetry.value).toBe(true);
    await store.retry();
    expect(store.notice.value).toBeNull();
    expect(store.messages.value.map((m) => [m.role, m.content, m.status])).toEqual([
      ["user", "Anyone there?", "complete"],
      ["assistant", "Ready now", "complete"],
    ]);
  });

  it("403 origin_not_allowed blocks the chat with a clear notice", async () => {
    const { store } = setup({ "GET /config/": () => errorResponse(403, "origin_not_allowed") });
    await store.loadConfig();
    expect(store.notice.value?.kind).toBe("origin_refused");
    expect(store.canSend.value).toBe(false);
    expect(store.canRetry.value).toBe(false);
  });

  it("a failed fetch while the browser is online means the server can't be reached; retry resends", async () => {
    const { store } = setup({
      "POST /query/": [networkFailure, () => answerResponse(["Reached"])],
    });
    await store.send("Hello?");
    expect(store.notice.value?.kind).toBe("unreachable");
    expect(store.canRetry.value).toBe(true);
    await store.retry();
    expect(store.messages.value.at(-1)).toMatchObject({ content: "Reached", status: "complete" });
  });

  it("a failed fetch with the browser offline is reported as offline, and retry resends", async () => {
    const onLine = vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    try {
      const { store } = setup({
        "POST /query/": [networkFailure, () => answerResponse(["Back online"])],
      });
      await store.send("Hello?");
      expect(store.notice.value?.kind).toBe("offline");
      expect(store.canRetry.value).toBe(true);
      onLine.mockReturnValue(true);
      await store.retry();
      expect(store.messages.value.at(-1)).toMatchObject({ content: "Back online", status: "complete" });
    } finally {
      onLine.mockRestore();
    }
  });

  it("an error event mid-stream fails the answer and keeps what arrived", async () => {
    const { store } = setup({
      "POST /query/": () =>
        new Response(
          `data: ${JSON.stringify({ type: "start", query_id: "q", conversationId: defaultIds.conversationId, messageId: "m1" })}\n\n` +
            `data: ${JSON.stringify({ type: "token", token: "Half" })}\n\n` +
            `data: ${JSON.stringify({ type: "error", error: "upstream_error", message: "model down" })}\n\n`,
        ),
    });
    await store.send("Q");
    expect(store.messages.value[1]).toMatchObject({ content: "Half", status: "failed" });
    expect(store.notice.value?.kind).toBe("upstream");
    expect(store.canRetry.value).toBe(true);
  });

  it("a stream that ends without done is never a silent stop", async () => {
    const { store } = setup({
      "POST /query/": () => new Response(`data: ${JSON.stringify({ type: "token", token: "Cut" })}\n\n`),
    });
    await store.send("Q");
    expect(store.messages.value[1]?.status).toBe("failed");
    expect(store.notice.value?.kind).toBe("interrupted");
  });

  it("a 500 with a non-JSON body is a server error", async () => {
    const { store } = setup({
      "POST /query/": () => new Response("<html>Bad gateway</html>", { status: 500 }),
    });
    await store.send("Q");
    expect(store.notice.value?.kind).toBe("server");
  });

  it("an expired visitor token starts a new conversation instead of failing", async () => {
    const storage = memoryStorage();
    storage.setItem(
      storageKey(server, "w1"),
      JSON.stringify({
        v: 1,
        savedAt: Date.now(),
        conversationId: "c-old",
        visitorToken: "expired",
        messages: [],
      }),
    );
    const { store, requests } = setup(
      { "POST /query/": [() => errorResponse(401, "invalid_token"), () => answerResponse(["Fresh"])] },
      storage,
    );
    await store.send("Still there?");
    expect(requests.filter((r) => r.method === "POST").map((r) => r.body)).toEqual([
      { message: "Still there?", conversationId: "c-old", visitorToken: "expired" },
      { message: "Still there?", ...page() },
    ]);
    expect(store.messages.value.at(-1)?.content).toBe("Fresh");
  });
});

describe("persistence", () => {
  it("keeps the conversation across page loads for the same server and widget", async () => {
    const storage = memoryStorage();
    const first = setup({ "POST /query/": () => answerResponse(["Kept"]) }, storage);
    await first.store.send("Remember me");
    const second = setup({ "POST /query/": () => answerResponse(["More"]) }, storage);
    expect(second.store.messages.value.map((m) => m.content)).toEqual(["Remember me", "Kept"]);
    await second.store.send("Again");
    expect(second.requests.at(-1)?.body).toMatchObject({
      conversationId: defaultIds.conversationId,
      visitorToken: defaultIds.token,
    });
    const other = createStore({ server, widgetId: "w2", fetch: createFetchDouble({}).fetch, storage });
    expect(other.messages.value).toEqual([]);
  });

  it("forgets a conversation older than the expiry", async () => {
    const storage = memoryStorage();
    let now = 1_000_000;
    const first = setup({ "POST /query/": () => answerResponse(["Old"]) }, storage, () => now);
    await first.store.send("Long ago");
    now += 24 * 60 * 60 * 1000 + 1;
    const later = setup({}, storage, () => now);
    expect(later.store.messages.value).toEqual([]);
    expect(storage.getItem(storageKey(server, "w1"))).toBeNull();
  });

  const interruptedAt = (conversationId: string | null, messageId: string | null) => {
    const storage = memoryStorage();
    storage.setItem(
      storageKey(server, "w1"),
      JSON.stringify({
        v: 1,
        savedAt: Date.now(),
        conversationId,
        visitorToken: conversationId ? "t" : null,
        messages: [
          {
            id: "a",
            role: "user",
            content: "Q",
            sources: [],
            status: "complete",
            messageId: null,
            feedback: null,
          },
          {
            id: "b",
            role: "assistant",
            content: "Half",
            sources: [],
            status: "streaming",
            messageId,
            feedback: null,
          },
        ],
      }),
    );
    return storage;
  };
  const transcript = (answer: string | null) =>
    jsonResponse(200, {
      conversationId: "c",
      messages: [
        {
          id: "u",
          role: "user",
          content: "Q",
          sources: [],
          status: "complete",
          feedback: null,
          createdAt: "",
        },
        ...(answer === null
          ? []
          : [
              {
                id: "m",
                role: "assistant",
                content: answer,
                sources: [],
                status: "complete",
                feedback: null,
                createdAt: "",
              },
            ]),
      ],
    });

  it("an answer cut off by a reload is read back from the server once it is stored", async () => {
    vi.useFakeTimers();
    const { store, requests } = setup(
      { "POST /conversations/c/": [() => transcript(null), () => transcript("The whole answer.")] },
      interruptedAt("c", "m"),
    );
    // Not a "Stopped" bubble: the answer is on its way.
    expect(store.messages.value[1]?.status).toBe("pending");
    expect(store.busy.value).toBe(true);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(store.messages.value[1]).toMatchObject({
      status: "complete",
      content: "The whole answer.",
      messageId: "m",
    });
    expect(store.busy.value).toBe(false);
    expect(requests.filter((r) => r.url.includes("/conversations/c/")).map((r) => r.body)).toEqual([
      { visitorToken: "t" },
      { visitorToken: "t" },
    ]);
  });

  it("finds the answer by its question when the reload came before the stream started", async () => {
    const { store } = setup(
      { "POST /conversations/c/": () => transcript("Stored.") },
      interruptedAt("c", null),
    );
    await until(() => store.messages.value[1]?.status === "complete");
    expect(store.messages.value[1]).toMatchObject({ content: "Stored.", messageId: "m" });
  });

  it("shows a cut-off answer as stopped when the server has no copy to give", async () => {
    const gone = setup(
      {
        "POST /conversations/c/": () =>
          jsonResponse(404, { error: "not_found", message: "gone", details: {} }),
      },
      interruptedAt("c", "m"),
    );
    await until(() => gone.store.messages.value[1]?.status === "stopped");
    expect(gone.store.messages.value[1]?.content).toBe("Half");
    // Without a conversation to read (the reload came before it existed) it is stopped at once.
    const { store, requests } = setup({}, interruptedAt(null, null));
    expect(store.messages.value[1]?.status).toBe("stopped");
    expect(store.busy.value).toBe(false);
    expect(requests.some((r) => r.url.includes("/conversations/"))).toBe(false);
  });

  it("reset starts a new conversation and forgets the stored one", async () => {
    const storage = memoryStorage();
    const { store, requests } = setup({ "POST /query/": () => answerResponse(["A"]) }, storage);
    await store.send("One");
    store.reset();
    expect(store.messages.value).toEqual([]);
    expect(storage.getItem(storageKey(server, "w1"))).toBeNull();
    await store.send("Two");
    expect(requests.at(-1)?.body).toEqual({ message: "Two", ...page() });
  });

  it("works without storage (blocked localStorage)", async () => {
    const { store } = setup({ "POST /query/": () => answerResponse(["Fine"]) }, null as unknown as Storage);
    await store.send("Hi");
    expect(store.messages.value.at(-1)?.content).toBe("Fine");
  });
});

describe("feedback", () => {
  it("posts the rating with the visitor token and remembers it", async () => {
    const { store, requests, events } = setup({
      "POST /query/": () => answerResponse(["Answer"]),
      "POST /feedback/": () => new Response(null, { status: 204 }),
    });
    await store.send("Q");
    const answer = store.messages.value[1];
    await store.rate(answer?.id ?? "", "up");
    expect(requests.at(-1)).toMatchObject({
      url: `${server}/api/widget/w1/messages/${defaultIds.messageId}/feedback/`,
      body: { rating: "up", visitorToken: defaultIds.token },
    });
    expect(store.messages.value[1]?.feedback).toBe("up");
    expect(events.at(-1)).toMatchObject({ name: "feedback", detail: { rating: "up" } });
  });

  it("undoes the rating and says so when it can't be sent", async () => {
    const { store } = setup({
      "POST /query/": () => answerResponse(["Answer"]),
      "POST /feedback/": () => errorResponse(500, "internal_error"),
    });
    await store.send("Q");
    await store.rate(store.messages.value[1]?.id ?? "", "down");
    expect(store.messages.value[1]?.feedback).toBeNull();
    expect(store.notice.value?.kind).toBe("feedback_failed");
  });
});

describe("plainText", () => {
  it("drops Markdown punctuation and citation markers for screen readers", () => {
    expect(
      plainText("**Refunds** take `5` days [1][2]. See [the policy](https://x.test).\n- one\n2. two"),
    ).toBe("Refunds take 5 days. See the policy.\none\ntwo");
  });
});
