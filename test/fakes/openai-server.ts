import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A chat request body as the fake received it (OpenAI wire format). */
export interface FakeChatBody {
  model?: string;
  messages?: Array<{ role: string; content: string }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Content tokens written before the response ended. */
  tokensSent: number;
  /** The client hung up before the response was complete (an abort reached the fake). */
  closedEarly: boolean;
  /** Resolves when the exchange is over, whichever way. */
  settled: Promise<void>;
}

export interface FakeBehaviour {
  /** The assistant's answer; by default it quotes the first source line of the prompt and cites [1]. */
  answer: string | ((body: FakeChatBody) => string);
  /** Delay between streamed tokens. */
  tokenDelayMs: number;
  /** Delay before the first content token (the role chunk and headers go out at once). */
  firstTokenDelayMs: number;
  /** The next N requests fail with `failStatus`. */
  failTimes: number;
  failStatus: number;
  /** Sent as `Retry-After` (seconds) on failures. */
  retryAfterSeconds: number | null;
  /** Accept the request and never answer. */
  hang: boolean;
  /** Destroy the connection after this many streamed tokens. */
  dropAfterTokens: number | null;
  /** End the response cleanly after this many streamed tokens: no finish reason, no `[DONE]`. */
  endAfterTokens: number | null;
  /** Leave `usage` out (streamed and JSON). */
  reportUsage: boolean;
  /** Reported usage; by default words in the prompt and the answer. */
  usage: { prompt_tokens: number; completion_tokens: number } | null;
  embeddingDimensions: number;
}

export interface FakeOpenAIOptions extends Partial<FakeBehaviour> {
  /** Required bearer token; unset accepts any. */
  apiKey?: string;
  models?: string[];
}

export interface FakeOpenAI {
  /** Base URL including `/v1`, as the openai SDK's `baseURL`. */
  url: string;
  requests: RecordedRequest[];
  setBehaviour(change: Partial<FakeBehaviour>): void;
  /** Back to the behaviour it started with (its options over the defaults), then `change`. */
  resetBehaviour(change?: Partial<FakeBehaviour>): void;
  close(): Promise<void>;
}

const DEFAULT_BEHAVIOUR: FakeBehaviour = {
  answer: defaultAnswer,
  tokenDelayMs: 0,
  firstTokenDelayMs: 0,
  failTimes: 0,
  failStatus: 500,
  retryAfterSeconds: null,
  hang: false,
  dropAfterTokens: null,
  endAfterTokens: null,
  reportUsage: true,
  usage: null,
  embeddingDimensions: 64,
};

/** The default answer: the first sentence of source [1] from the system prompt, cited; or a plain "I don't know." */
export function defaultAnswer(body: FakeChatBody): string {
  const prompt = (body.messages ?? []).map((m) => m.content).join("\n");
  const line = /^\[1\] (.*)$/m.exec(prompt)?.[1];
  if (line === undefined) return "I don't know.";
  const text = line.includes(" — ") ? line.slice(line.indexOf(" — ") + 3) : line;
  const sentence = /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;
  return `According to the sources, ${sentence.trim()} [1]`;
}

/** Tokens as a model streams them: words with their leading whitespace. */
export function splitAnswer(answer: string): string[] {
  return answer.match(/\s*\S+/g) ?? [];
}

/** Bag-of-words hashing: texts sharing words get similar vectors, so semantic search behaves plausibly. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    let hash = 2166136261;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619);
    const index = (hash >>> 0) % dimensions;
    vector[index] = (vector[index] ?? 0) + ((hash >>> 31) & 1 ? 1 : -1);
  }
  const norm = Math.hypot(...vector);
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((v) => v / norm);
}

/** A protocol-faithful OpenAI-compatible server on 127.0.0.1 for tests: chat (JSON and SSE), embeddings, models. */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const { apiKey, models = ["fake-chat", "fake-embed"], ...initial } = options;
  const started: FakeBehaviour = { ...DEFAULT_BEHAVIOUR, ...initial };
  let behaviour = started;
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, String(error), "server_error");
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const raw = await readBody(req);
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        return sendError(res, 400, "Invalid JSON body", "invalid_request_error");
      }
    }
    let markSettled = () => {};
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      headers: req.headers,
      body,
      tokensSent: 0,
      closedEarly: false,
      settled: new Promise((resolve) => {
        markSettled = resolve;
      }),
    };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.closedEarly = true;
      markSettled();
    });

    if (apiKey !== undefined && req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendError(res, 401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
    }
    const route = `${req.method} ${url.pathname.replace(/\/$/, "")}`;
    if (route === "GET /v1/models") {
      return sendJson(res, 200, {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "lore-fake" })),
      });
    }
    if (route !== "POST /v1/chat/completions" && route !== "POST /v1/embeddings") {
      return sendError(res, 404, `Unknown route ${route}`, "invalid_request_error");
    }
    if (behaviour.hang) return; // Never answers; close() destroys the socket.
    if (behaviour.failTimes > 0) {
      behaviour.failTimes--;
      const headers: Record<string, string> =
        behaviour.retryAfterSeconds === null ? {} : { "retry-after": String(behaviour.retryAfterSeconds) };
      const type = behaviour.failStatus === 429 ? "rate_limit_exceeded" : "server_error";
      return sendError(
        res,
        behaviour.failStatus,
        `Simulated failure ${behaviour.failStatus}`,
        type,
        null,
        headers,
      );
    }
    if (route === "POST /v1/embeddings") return embeddings(res, body);
    return chat(res, (body ?? {}) as FakeChatBody, record);
  }

  function embeddings(res: ServerResponse, body: unknown): void {
    const request = (body ?? {}) as {
      input?: unknown;
      model?: string;
      encoding_format?: string;
      dimensions?: number;
    };
    const inputs = Array.isArray(request.input) ? request.input : [request.input];
    if (inputs.length === 0 || inputs.some((i) => typeof i !== "string" && !Array.isArray(i))) {
      sendError(res, 400, "'input' must be a string or an array of strings", "invalid_request_error");
      return;
    }
    const texts = inputs.map((i) => (typeof i === "string" ? i : (i as unknown[]).join(" ")));
    const dimensions = request.dimensions ?? behaviour.embeddingDimensions;
    const data = texts.map((text, index) => {
      const vector = fakeEmbedding(text, dimensions);
      const embedding =
        request.encoding_format === "base64"
          ? Buffer.from(new Float32Array(vector).buffer).toString("base64")
          : vector;
      return { object: "embedding", index, embedding };
    });
    const tokens = texts.reduce((sum, t) => sum + wordCount(t), 0);
    sendJson(res, 200, {
      object: "list",
      data,
      model: request.model ?? "fake-embed",
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  async function chat(res: ServerResponse, body: FakeChatBody, record: RecordedRequest): Promise<void> {
    const b = behaviour;
    const answer = typeof b.answer === "function" ? b.answer(body) : b.answer;
    const usage = b.usage ?? {
      prompt_tokens: (body.messages ?? []).reduce((sum, m) => sum + wordCount(m.content), 0),
      completion_tokens: wordCount(answer),
    };
    const fullUsage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const id = `chatcmpl-fake${requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? "fake-chat";

    if (!body.stream) {
      await wait(b.firstTokenDelayMs);
      return sendJson(res, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: answer, refusal: null },
            logprobs: null,
            finish_reason: "stop",
          },
        ],
        ...(b.reportUsage ? { usage: fullUsage } : {}),
      });
    }

    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    send(chunk({ role: "assistant", content: "" }, null));
    await wait(b.firstTokenDelayMs);
    for (const token of splitAnswer(answer)) {
      if (res.destroyed) return;
      if (b.dropAfterTokens !== null && record.tokensSent >= b.dropAfterTokens) {
        res.destroy();
        return;
      }
      if (b.endAfterTokens !== null && record.tokensSent >= b.endAfterTokens) {
        res.end();
        return;
      }
      send(chunk({ content: token }, null));
      record.tokensSent++;
      await wait(b.tokenDelayMs);
    }
    if (res.destroyed) return;
    send(chunk({}, "stop"));
    if (body.stream_options?.include_usage && b.reportUsage) {
      send({ id, object: "chat.completion.chunk", created, model, choices: [], usage: fullUsage });
    }
    res.end("data: [DONE]\n\n");
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setBehaviour(change) {
      behaviour = { ...behaviour, ...change };
    },
    resetBehaviour(change = {}) {
      behaviour = { ...started, ...change };
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
