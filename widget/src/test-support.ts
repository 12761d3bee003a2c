// Test doubles shared by the widget's tests: a fetch that answers like the widget API, and
// streams the test pushes SSE frames into. Never imported by the widget itself.
import type { AnswerEvent, Citation, WidgetConfig } from "@lore/shared";
import type { FetchFn } from "./api/client.ts";

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

type Handler = (request: RecordedRequest, signal: AbortSignal | null) => Response | Promise<Response>;

/** A fetch double: routes by "METHOD /path-suffix", records requests, honours AbortSignal like fetch. */
export function createFetchDouble(routes: Record<string, Handler | Handler[]>): {
  fetch: FetchFn;
  requests: RecordedRequest[];
} {
  const requests: RecordedRequest[] = [];
  const queues = new Map(Object.entries(routes).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]));
  const fetch: FetchFn = async (input, init) => {
    const signal = init?.signal ?? null;
    if (signal?.aborted) throw new DOMException("The operation was aborted.", "AbortError");
    const method = init?.method ?? "GET";
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((init?.headers ?? {}) as Record<string, string>)) {
      headers[name.toLowerCase()] = value;
    }
    const request: RecordedRequest = {
      url: input,
      method,
      headers,
      body: typeof init?.body === "string" ? JSON.parse(init.body) : null,
    };
    requests.push(request);
    const route = [...queues.keys()].find((key) => {
      const [m, suffix] = key.split(" ");
      return m === method && suffix !== undefined && new URL(input).pathname.endsWith(suffix);
    });
    const entry = route ? queues.get(route) : undefined;
    const handler = Array.isArray(entry) ? (entry.length > 1 ? entry.shift() : entry[0]) : entry;
    if (!handler) return jsonResponse(404, { error: "not_found", message: "No route", details: {} });
    return handler(request, signal);
  };
  return { fetch, requests };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function errorResponse(status: number, error: string, headers: Record<string, string> = {}): Response {
  return jsonResponse(status, { error, message: `${error} happened`, details: {} }, headers);
}

/** A route handler that fails as fetch does when the network or server is out of reach. */
export function networkFailure(): never {
  throw new TypeError("Failed to fetch");
}

export const sse = (event: AnswerEvent) => `data: ${JSON.stringify(event)}\n\n`;

/** A streaming response the test writes to; aborting the request errors the body as fetch does. */
export function createStream(signal: AbortSignal | null): {
  response: Response;
  send: (event: AnswerEvent) => void;
  raw: (text: string) => void;
  end: () => void;
} {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  signal?.addEventListener("abort", () => {
    if (closed) return;
    closed = true;
    controller?.error(new DOMException("The operation was aborted.", "AbortError"));
  });
  const raw = (text: string) => {
    if (!closed) controller?.enqueue(encoder.encode(text));
  };
  return {
    response: new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } }),
    send: (event) => raw(sse(event)),
    raw,
    end: () => {
      if (closed) return;
      closed = true;
      controller?.close();
    },
  };
}

/** A complete answer stream: start, the tokens, sources, done. */
export function answerResponse(tokens: string[], sources: Citation[] = [], ids = defaultIds): Response {
  const events: AnswerEvent[] = [
    {
      type: "start",
      query_id: "q1",
      conversationId: ids.conversationId,
      messageId: ids.messageId,
      visitorToken: ids.token,
    },
    ...tokens.map((token): AnswerEvent => ({ type: "token", token })),
    { type: "sources", sources },
    {
      type: "done",
      outcome: "answered",
      confidence: 0.9,
      conversationId: ids.conversationId,
      messageId: ids.messageId,
      sources,
      latency: 12,
      model: "extractive",
      correctionId: null,
      retrievedChunks: sources.length,
      metadata: { tokensUsed: 10, retrievalTime: 4, generationTime: 8 },
    },
  ];
  return new Response(events.map(sse).join(""), { headers: { "Content-Type": "text/event-stream" } });
}

export const defaultIds = {
  conversationId: "11111111-1111-4111-8111-111111111111",
  messageId: "22222222-2222-4222-8222-222222222222",
  token: "visitor-token-1",
};

export function citation(rank: number, overrides: Partial<Citation> = {}): Citation {
  return {
    rank,
    documentId: `doc-${rank}`,
    chunkId: `chunk-${rank}`,
    title: `Document ${rank}`,
    dataSourceName: `Handbook ${rank}`,
    dataSourceType: "markdown",
    sourceUrl: `https://docs.example.com/${rank}`,
    content: `Snippet number ${rank} about refunds.`,
    score: 0.9,
    displayMode: "expandable",
    ...overrides,
  };
}

export function widgetConfig(overrides: Partial<WidgetConfig> = {}): WidgetConfig {
  return {
    widgetId: "w1",
    name: "Acme Help",
    welcomeMessage: "Hi! Ask me about **Acme**.",
    suggestedQuestions: ["How do refunds work?", "Where is my order?"],
    theme: {
      primaryColor: "#2563eb",
      position: "bottom-right",
      title: "Acme Help",
      avatarUrl: null,
      colorScheme: "light",
      radius: 16,
      zIndex: 2147483000,
      launcherLabel: "",
      greeting: "",
    },
    handoff: { mode: "none", url: null },
    status: "ready",
    ...overrides,
  };
}

/** In-memory Storage with the localStorage interface. */
export function memoryStorage(): Storage {
  const data = new Map<string, string>();
  return {
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    getItem: (key) => data.get(key) ?? null,
    key: (index) => [...data.keys()][index] ?? null,
    removeItem: (key) => {
      data.delete(key);
    },
    setItem: (key, value) => {
      data.set(key, value);
    },
  };
}
