/**
 * Lore driven by unmodified OpenAI clients from npm (no shims, no custom fetch): the official
 * `openai` SDK, the AI SDK with `@ai-sdk/openai-compatible` and `@ai-sdk/openai`, and LangChain.
 * Each points its base URL at the agent (`/agents/{agentId}`) with the agent's API key.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { AIMessageChunk } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { type Agent, conversationDetailSchema } from "@lore/shared";
import { APICallError, generateText, streamText } from "ai";
import OpenAI, { APIError, AuthenticationError, BadRequestError, NotFoundError } from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  defaultAnswer,
  type FakeChatBody,
  type FakeOpenAI,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { call } from "../ingestion/source-helpers.ts";

const QUESTION = "Which payment methods do you accept?";
// The model's reported usage: what every client must show, once (not doubled, not recounted).
const USAGE = { prompt_tokens: 27, completion_tokens: 24 };

let fake: FakeOpenAI;
let server: TestServer;
let token: string;
let agent: Agent;
let apiKey: string;
let baseURL: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ usage: USAGE });
  ({ server, token, agent } = await startServerWithAgent({
    env: { LORE_OPENAI_BASE_URL: fake.url, LORE_OPENAI_TIMEOUT_MS: "3000" },
    source: { name: "Shop FAQ", entries: shopEntries },
    agent: {
      name: "Shop",
      model: "openai:fake-chat",
    },
  }));
  const key = await call<{ key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, {
    name: "clients",
  });
  apiKey = key.body.key;
  baseURL = `${server.api}/agents/${agent.id}`;
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});
/** The fake model: rewrites a follow-up into the question as asked, otherwise quotes source [1]. */
function answer(body: FakeChatBody): string {
  const last = body.messages?.at(-1)?.content ?? "";
  if (body.messages?.[0]?.content.startsWith("Rewrite the user's last question"))
    return /Last question: (.*)$/m.exec(last)?.[1] ?? last;
  return defaultAnswer(body);
}

beforeEach(() => {
  fake.setBehaviour({ answer, dropAfterTokens: null, endAfterTokens: null, tokenDelayMs: 0 });
});

/** The stored conversation of an answer, as the owner sees it. */
async function storedMessages(conversationId: string) {
  const res = await call(server, "GET", `/agents/${agent.id}/conversations/${conversationId}/`, token);
  return conversationDetailSchema.parse(res.body).messages;
}

describe("the official openai SDK", () => {
  const client = () => new OpenAI({ baseURL, apiKey, maxRetries: 0 });

  it("answers a chat completion with the usage and Lore's sources", async () => {
    const completion = await client().chat.completions.create({
      model: "anything",
      messages: [
        { role: "developer", content: "Answer briefly." },
        { role: "user", content: [{ type: "text", text: QUESTION }] },
      ],
    });
    expect(completion.choices[0]?.message.content).toMatch(/PayPal/);
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ ...USAGE, total_tokens: 51 });
    const { sources } = completion as typeof completion & { sources: Array<{ title: string }> };
    expect(sources[0]?.title).toBe("Payment methods");
  });

  it("keeps tool calls and tool results of an earlier turn in the history without running them", async () => {
    const completion = await client().chat.completions.create({
      model: "anything",
      messages: [
        { role: "user", content: "What is the weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "weather", arguments: '{"city":"Amsterdam"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "Sunny" },
        { role: "user", content: QUESTION },
      ],
    });
    expect(completion.choices[0]?.message.content).toMatch(/PayPal/);
    // The earlier turn reaches the model as text (here in the follow-up rewrite), and nothing ran the tool.
    const sent = JSON.stringify(fake.requests.slice(-2).map((r) => r.body));
    expect(sent).toContain("weather");
    expect(sent).toContain("Sunny");
  });

  it("streams the answer, with the usage on a last chunk only when include_usage asks", async () => {
    const stream = await client().chat.completions.create({
      model: "anything",
      messages: [{ role: "user", content: QUESTION }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    const usages: unknown[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usages.push({ ...chunk.usage, choices: chunk.choices.length });
    }
    expect(text).toMatch(/PayPal/);
    expect(usages).toEqual([{ ...USAGE, total_tokens: 51, choices: 0 }]);

    const plain = await client().chat.completions.create({
      model: "anything",
      messages: [{ role: "user", content: QUESTION }],
      stream: true,
    });
    for await (const chunk of plain) expect(chunk.usage ?? null).toBeNull();
  });

  it("maps errors to the SDK's classes with OpenAI's type, Lore's code and the param", async () => {
    const wrongKey = new OpenAI({ baseURL, apiKey: "lore_sk_wrong", maxRetries: 0 });
    const auth = await wrongKey.models.list().catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(AuthenticationError);
    expect(auth).toMatchObject({
      status: 401,
      type: "authentication_error",
      code: "invalid_api_key",
      param: null,
    });

    const image = await client()
      .chat.completions.create({
        model: "anything",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: QUESTION },
              { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
            ],
          },
        ],
      })
      .catch((e: unknown) => e);
    expect(image).toBeInstanceOf(BadRequestError);
    expect(image).toMatchObject({
      status: 400,
      type: "invalid_request_error",
      code: "validation_error",
      param: "messages.0.content.1",
    });
    expect((image as Error).message).toMatch(/image_url/);

    const missing = await client()
      .models.retrieve("00000000-0000-4000-8000-000000000000")
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ type: "not_found_error", code: "not_found" });
  });

  it("throws an APIError when the model fails mid-stream, and the partial answer is stored as failed", async () => {
    fake.setBehaviour({ dropAfterTokens: 3, tokenDelayMs: 5 });
    const stream = await client().chat.completions.create({
      model: "anything",
      messages: [{ role: "user", content: QUESTION }],
      stream: true,
    });
    let text = "";
    let conversationId = "";
    const error = await (async () => {
      for await (const chunk of stream) {
        conversationId ||= (chunk as typeof chunk & { conversationId?: string }).conversationId ?? "";
        text += chunk.choices[0]?.delta.content ?? "";
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ type: "server_error", code: "upstream_error" });
    expect(text).toBe("According to the");
    expect((await storedMessages(conversationId)).at(-1)).toMatchObject({ status: "failed", content: text });
  });

  it("lists the agent as its one model and retrieves it", async () => {
    const models = [];
    for await (const model of client().models.list()) models.push(model);
    expect(models).toEqual([expect.objectContaining({ id: agent.id, object: "model", name: "Shop" })]);
    expect(await client().models.retrieve(agent.id)).toMatchObject({ id: agent.id, object: "model" });
  });

  it("creates a response, whole and streamed", async () => {
    const response = await client().responses.create({
      model: "anything",
      instructions: "Be brief.",
      input: [{ role: "user", content: [{ type: "input_text", text: QUESTION }] }],
    });
    expect(response.status).toBe("completed");
    expect(response.output_text).toMatch(/PayPal/);
    expect(response.usage).toMatchObject({ input_tokens: 27, output_tokens: 24, total_tokens: 51 });

    const stream = await client().responses.create({ model: "anything", input: QUESTION, stream: true });
    const types: string[] = [];
    let text = "";
    let completed: OpenAI.Responses.Response | null = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(text).toMatch(/PayPal/);
    expect(completed?.output_text ?? completed?.output[0]).toBeTruthy();
    expect(completed?.usage?.total_tokens).toBe(51);
    expect((completed as unknown as { sources: unknown[] }).sources.length).toBeGreaterThan(0);
  });

  it("refuses a response with tools, naming the field", async () => {
    const error = await client()
      .responses.create({
        model: "anything",
        input: QUESTION,
        tools: [{ type: "web_search" }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ code: "validation_error", param: "tools" });
  });
});

type AiSdkModel = Parameters<typeof generateText>[0]["model"];

/** A wrong key: the AI SDK's APICallError with Lore's 401 and Lore's own message (not "Unauthorized"). */
async function expectWrongKeyRefused(model: AiSdkModel): Promise<void> {
  const error = await generateText({ model, prompt: QUESTION, maxRetries: 0 }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(APICallError.isInstance(error)).toBe(true);
  expect(error).toMatchObject({ statusCode: 401 });
  expect((error as Error).message).not.toBe("Unauthorized");
  expect((error as Error).message).toMatch(/API key/i);
}

/** The model's stream breaking after three tokens: those tokens, then an error part naming upstream_error. */
async function expectFailsMidStream(model: AiSdkModel): Promise<void> {
  const streamed = streamText({ model, prompt: QUESTION, onError: () => {} });
  let text = "";
  let failure: unknown = null;
  for await (const part of streamed.fullStream) {
    if (part.type === "text-delta") text += part.text;
    if (part.type === "error") failure = part.error;
  }
  expect(text).toBe("According to the");
  expect(JSON.stringify(failure)).toMatch(/upstream_error/);
}

describe("the AI SDK with @ai-sdk/openai-compatible", () => {
  const provider = (key = apiKey) =>
    createOpenAICompatible({ name: "lore", baseURL, apiKey: key, includeUsage: true });

  it("generates and streams text with the model's usage", async () => {
    const generated = await generateText({ model: provider()(agent.id), prompt: QUESTION });
    expect(generated.text).toMatch(/PayPal/);
    expect(generated.usage).toMatchObject({ inputTokens: 27, outputTokens: 24, totalTokens: 51 });

    const streamed = streamText({ model: provider()(agent.id), system: "Be brief.", prompt: QUESTION });
    let text = "";
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toMatch(/PayPal/);
    expect(await streamed.usage).toMatchObject({ inputTokens: 27, outputTokens: 24, totalTokens: 51 });
  });

  it("reports Lore's error message and status, and a mid-stream failure as an error part", async () => {
    await expectWrongKeyRefused(provider("lore_sk_wrong")(agent.id));

    fake.setBehaviour({ endAfterTokens: 3, tokenDelayMs: 5 });
    await expectFailsMidStream(provider()(agent.id));
  });
});

describe("the AI SDK with @ai-sdk/openai (the Responses API by default)", () => {
  const provider = (key = apiKey) => createOpenAI({ baseURL, apiKey: key });

  it("generates and streams text with the usage", async () => {
    const before = fake.requests.length;
    const generated = await generateText({
      model: provider()(agent.id),
      system: "Be brief.",
      prompt: QUESTION,
    });
    expect(generated.text).toMatch(/PayPal/);
    expect(generated.usage).toMatchObject({ inputTokens: 27, outputTokens: 24, totalTokens: 51 });
    expect(fake.requests.length).toBeGreaterThan(before);

    const streamed = streamText({ model: provider()(agent.id), prompt: QUESTION });
    let text = "";
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toMatch(/PayPal/);
    expect(await streamed.usage).toMatchObject({ inputTokens: 27, outputTokens: 24, totalTokens: 51 });
    expect(await streamed.finishReason).toBe("stop");
  });

  it("reports errors with Lore's message, before and during the stream", async () => {
    await expectWrongKeyRefused(provider("lore_sk_wrong")(agent.id));

    fake.setBehaviour({ dropAfterTokens: 3, tokenDelayMs: 5 });
    await expectFailsMidStream(provider()(agent.id));
  });
});

describe("LangChain's ChatOpenAI", () => {
  const chat = () =>
    new ChatOpenAI({ model: agent.id, apiKey, configuration: { baseURL }, streamUsage: true, maxRetries: 0 });

  it("invokes with the exact usage", async () => {
    const message = await chat().invoke([
      ["system", "Be brief."],
      ["human", QUESTION],
    ]);
    expect(message.content).toMatch(/PayPal/);
    expect(message.usage_metadata).toMatchObject({ input_tokens: 27, output_tokens: 24, total_tokens: 51 });
  });

  it("streams with the exact usage, counted once", async () => {
    let merged: AIMessageChunk | null = null;
    for await (const chunk of await chat().stream(QUESTION)) merged = merged ? merged.concat(chunk) : chunk;
    expect(merged).toBeInstanceOf(AIMessageChunk);
    expect(merged?.content).toMatch(/PayPal/);
    expect(merged?.usage_metadata).toMatchObject({ input_tokens: 27, output_tokens: 24, total_tokens: 51 });
    // Usage on the finish chunk as well as on the usage chunk was added up here: 54/48/102.
    expect(merged?.response_metadata.usage).toEqual({ ...USAGE, total_tokens: 51 });
  });
});
