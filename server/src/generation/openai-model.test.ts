import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeChatBody, type FakeOpenAI, startFakeOpenAI } from "../../../test/fakes/openai-server.ts";
import { AppError } from "../errors.ts";
import { countTokens } from "../text/tokens.ts";
import { createOpenAIChatModel, type OpenAIChatModelOptions } from "./openai-model.ts";
import { HANDBOOK } from "./test-chunks.ts";
import type { GenerateInput, GenerationEvent } from "./types.ts";

const API_KEY = "sk-test-123";
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY, answer: "Refunds are possible within 30 days. [1]" });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.resetBehaviour();
});

function model(options: Partial<OpenAIChatModelOptions> = {}) {
  return createOpenAIChatModel({
    baseURL: fake.url,
    apiKey: API_KEY,
    model: "fake-chat",
    maxRetries: 0,
    ...options,
  });
}

const input = (overrides: Partial<GenerateInput> = {}): GenerateInput => ({
  question: "How long do I have for a refund?",
  history: [],
  chunks: HANDBOOK,
  instructions: "Be brief.",
  fallbackMessage: "I don't know.",
  temperature: 0.1,
  maxTokens: 300,
  ...overrides,
});

async function run(events: AsyncIterable<GenerationEvent>) {
  const tokens: string[] = [];
  const usage: Array<{ promptTokens: number; completionTokens: number }> = [];
  let error: unknown = null;
  try {
    for await (const event of events) {
      if (event.type === "token") tokens.push(event.token);
      else usage.push({ promptTokens: event.promptTokens, completionTokens: event.completionTokens });
    }
  } catch (caught) {
    error = caught;
  }
  return { tokens, answer: tokens.join(""), usage, error };
}

function expectUpstream(error: unknown, reason: string) {
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe("upstream_error");
  expect(appError.status).toBe(502);
  expect(appError.details.reason).toBe(reason);
}

describe("OpenAI-compatible chat model", () => {
  it("streams the answer token by token and reports the server's usage", async () => {
    fake.setBehaviour({ usage: { prompt_tokens: 321, completion_tokens: 9 } });
    const result = await run(model().generate(input()));
    expect(result.error).toBeNull();
    expect(result.tokens).toEqual(["Refunds", " are", " possible", " within", " 30", " days.", " [1]"]);
    expect(result.usage).toEqual([{ promptTokens: 321, completionTokens: 9 }]);

    const [request] = fake.requests;
    const body = request?.body as FakeChatBody;
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(body).toMatchObject({
      model: "fake-chat",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.1,
      max_tokens: 300,
    });
    expect(body.messages?.[0]?.content).toContain("[1] Refunds — Customers can request a refund");
    expect(body.messages?.at(-1)).toEqual({ role: "user", content: "How long do I have for a refund?" });
  });

  it("counts tokens itself when the server reports no usage", async () => {
    fake.setBehaviour({ reportUsage: false });
    const result = await run(model().generate(input()));
    expect(result.usage[0]?.completionTokens).toBe(countTokens("Refunds are possible within 30 days. [1]"));
    expect(result.usage[0]?.promptTokens).toBeGreaterThan(countTokens(HANDBOOK.map((c) => c.text).join(" ")));
  });

  it("is named after its model", () => {
    expect(model().name).toBe("openai:fake-chat");
  });

  it("retries server errors before the first token", async () => {
    fake.setBehaviour({ failTimes: 2, failStatus: 500 });
    const result = await run(model({ maxRetries: 2 }).generate(input()));
    expect(result.error).toBeNull();
    expect(result.answer).toBe("Refunds are possible within 30 days. [1]");
    expect(fake.requests).toHaveLength(3);
  });

  it("waits as long as a 429's Retry-After asks before retrying", async () => {
    fake.setBehaviour({ failTimes: 1, failStatus: 429, retryAfterSeconds: 1 });
    const started = Date.now();
    const result = await run(model({ maxRetries: 1 }).generate(input()));
    expect(result.error).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("turns a persistent server error into upstream_error", async () => {
    fake.setBehaviour({ failTimes: 5, failStatus: 503 });
    const result = await run(model({ maxRetries: 1 }).generate(input()));
    expectUpstream(result.error, "status");
    expect((result.error as AppError).details.status).toBe(503);
    expect(fake.requests).toHaveLength(2);
  });

  it("does not retry a rejected API key", async () => {
    const result = await run(model({ apiKey: "wrong", maxRetries: 3 }).generate(input()));
    expectUpstream(result.error, "status");
    expect((result.error as AppError).details.status).toBe(401);
    expect(fake.requests).toHaveLength(1);
  });

  it("gives up when the first token is late, retrying first", async () => {
    fake.setBehaviour({ firstTokenDelayMs: 5_000 });
    const started = Date.now();
    const result = await run(model({ firstTokenTimeoutMs: 150, maxRetries: 1 }).generate(input()));
    expectUpstream(result.error, "first_token_timeout");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fake.requests).toHaveLength(2);
  });

  it("gives up on a server that never answers", async () => {
    fake.setBehaviour({ hang: true });
    const result = await run(model({ firstTokenTimeoutMs: 150 }).generate(input()));
    expectUpstream(result.error, "first_token_timeout");
  });

  it("stops a slow stream at the total deadline without retrying after tokens were sent", async () => {
    fake.setBehaviour({ tokenDelayMs: 150 });
    const result = await run(model({ timeoutMs: 400, maxRetries: 2 }).generate(input()));
    expectUpstream(result.error, "timeout");
    expect(result.tokens.length).toBeGreaterThan(0);
    expect(result.tokens.length).toBeLessThan(7);
    expect(fake.requests).toHaveLength(1);
  });

  it("reports a connection dropped mid-stream after the tokens already received", async () => {
    fake.setBehaviour({ dropAfterTokens: 2, tokenDelayMs: 5 });
    const result = await run(model({ maxRetries: 2 }).generate(input()));
    expect(result.tokens).toEqual(["Refunds", " are"]);
    expectUpstream(result.error, "broken");
    expect(fake.requests).toHaveLength(1);
  });

  it("reports a stream that ends without a finish reason as broken, not as a short answer", async () => {
    fake.setBehaviour({ endAfterTokens: 2 });
    const result = await run(model({ maxRetries: 2 }).generate(input()));
    expect(result.tokens).toEqual(["Refunds", " are"]);
    expectUpstream(result.error, "broken");
    expect((result.error as AppError).message).toMatch(/ended before the answer was finished/);
    expect(result.usage).toEqual([]);
  });

  it("reports an unreachable endpoint", async () => {
    const closed = await startFakeOpenAI();
    const url = closed.url;
    await closed.close();
    const result = await run(
      createOpenAIChatModel({ baseURL: url, apiKey: "", model: "m", maxRetries: 0 }).generate(input()),
    );
    expectUpstream(result.error, "unreachable");
  });

  it("cancels the upstream request when the caller aborts", async () => {
    fake.setBehaviour({ tokenDelayMs: 100 });
    const controller = new AbortController();
    const tokens: string[] = [];
    const kinds: string[] = [];
    for await (const event of model().generate(input({ signal: controller.signal }))) {
      kinds.push(event.type);
      if (event.type === "token") tokens.push(event.token);
      if (tokens.length === 1) controller.abort();
    }
    expect(kinds).toEqual(["token"]);
    const [request] = fake.requests;
    await request?.settled;
    expect(tokens).toEqual(["Refunds"]);
    expect(request?.closedEarly).toBe(true);
    expect(request?.tokensSent).toBeLessThan(7);
  });

  it("cancels the upstream request when the consumer stops reading", async () => {
    fake.setBehaviour({ tokenDelayMs: 100 });
    for await (const event of model().generate(input())) {
      if (event.type === "token") break;
    }
    const [request] = fake.requests;
    await request?.settled;
    expect(request?.closedEarly).toBe(true);
  });

  it("asks the model to make a follow-up standalone", async () => {
    fake.setBehaviour({ answer: '"When was the University of Chicago founded?"' });
    const history = [
      { role: "user" as const, content: "Tell me about the University of Chicago." },
      { role: "assistant" as const, content: "It is a private university. [1]" },
    ];
    expect(await model().condense("When was it founded?", history)).toBe(
      "When was the University of Chicago founded?",
    );
    const body = fake.requests[0]?.body as FakeChatBody;
    expect(body.stream).toBeFalsy();
    expect(body.messages?.at(-1)?.content).toContain("Last question: When was it founded?");
  });

  it("falls back to the heuristic rewrite when condensing fails, and skips the model without history", async () => {
    fake.setBehaviour({ failTimes: 1, failStatus: 500 });
    const history = [{ role: "user" as const, content: "Tell me about the University of Chicago." }];
    expect(await model().condense("When was it founded?", history)).toBe(
      "When was it founded? University Chicago",
    );
    fake.requests.length = 0;
    expect(await model().condense("When was it founded?", [])).toBe("When was it founded?");
    expect(fake.requests).toHaveLength(0);
  });

  it("writes a follow-up in another language standalone and in English in one call", async () => {
    fake.setBehaviour({
      answer:
        "Question: ¿Cuándo se fundó la Universidad de Chicago?\nEnglish: When was the University of Chicago founded?",
    });
    const history = [{ role: "user" as const, content: "Háblame de la Universidad de Chicago." }];
    expect(await model().condenseAcross?.("¿Cuándo se fundó?", history, "English")).toEqual({
      standalone: "¿Cuándo se fundó la Universidad de Chicago?",
      translated: "When was the University of Chicago founded?",
    });
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]?.body as FakeChatBody;
    expect(body.messages?.[0]?.content).toContain("same standalone question in English");
    expect(body.messages?.at(-1)?.content).toContain("Last question: ¿Cuándo se fundó?");
  });

  it("takes a one-line reply that ignored the format as the standalone question, and as the English one when it is", async () => {
    const history = [{ role: "user" as const, content: "Háblame de la Universidad de Chicago." }];
    fake.setBehaviour({ answer: "When was the University of Chicago founded?" });
    expect(await model().condenseAcross?.("¿Cuándo se fundó?", history, "English")).toEqual({
      standalone: "When was the University of Chicago founded?",
      translated: "When was the University of Chicago founded?",
    });
    fake.setBehaviour({ answer: "¿Cuándo se fundó la Universidad de Chicago?" });
    expect(await model().condenseAcross?.("¿Cuándo se fundó?", history, "English")).toEqual({
      standalone: "¿Cuándo se fundó la Universidad de Chicago?",
      translated: null,
    });
    // No question at all: the heuristic rewrite, and no English.
    fake.setBehaviour({ answer: "I don't know." });
    const heuristic = await model().condenseAcross?.("¿Cuándo se fundó?", history, "English");
    expect(heuristic?.translated).toBeNull();
    expect(heuristic?.standalone).not.toBe("I don't know.");
  });

  it("keeps the question as written, with no English, when that call fails", async () => {
    fake.setBehaviour({ failTimes: 1, failStatus: 500 });
    expect(await model().condenseAcross?.("¿Cómo me doy de baja?", [], "English")).toEqual({
      standalone: "¿Cómo me doy de baja?",
      translated: null,
    });
  });
});
