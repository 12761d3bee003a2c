import {
  type Agent,
  chatCompletionResponseSchema,
  conversationDetailSchema,
  openAiErrorBodySchema,
  responseObjectSchema,
  responseStreamEventSchema,
} from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { call } from "../ingestion/source-helpers.ts";

const QUESTION = "Which payment methods do you accept?";

let server: TestServer;
let token: string;
let agent: Agent;

beforeAll(async () => {
  ({ server, token, agent } = await startServerWithAgent({
    source: { name: "Shop FAQ", entries: shopEntries },
    agent: { name: "Shop" },
  }));
});
afterAll(() => server?.close());

const chat = (body: unknown) => call(server, "POST", `/agents/${agent.id}/chat/completions/`, token, body);
const respond = (body: unknown) => call(server, "POST", `/agents/${agent.id}/responses/`, token, body);

/** An OpenAI-shaped error body, checked against the schema the OpenAPI document declares. */
function openAiError(body: unknown) {
  return openAiErrorBodySchema.parse(body).error;
}

describe("OpenAI-compatible errors", () => {
  it("answers every refusal on the OpenAI routes in OpenAI's shape, with Lore's code", async () => {
    const anonymous = await call(server, "POST", `/agents/${agent.id}/chat/completions/`, undefined, {
      messages: [{ role: "user", content: QUESTION }],
    });
    expect(anonymous.status).toBe(401);
    expect(openAiError(anonymous.body)).toMatchObject({
      type: "authentication_error",
      code: "not_authenticated",
      param: null,
    });

    const badKey = await call(server, "GET", `/agents/${agent.id}/models/`, "lore_sk_nope");
    expect(badKey.status).toBe(401);
    expect(openAiError(badKey.body)).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });

    const otherAgent = await call(
      server,
      "GET",
      "/agents/00000000-0000-4000-8000-000000000000/models/",
      token,
    );
    expect(otherAgent.status).toBe(404);
    expect(openAiError(otherAgent.body)).toMatchObject({ type: "not_found_error", code: "not_found" });

    const wrongMethod = await call(server, "POST", `/agents/${agent.id}/models/`, token, {});
    expect(wrongMethod.status).toBe(405);
    expect(openAiError(wrongMethod.body)).toMatchObject({
      type: "invalid_request_error",
      code: "method_not_allowed",
    });

    const badJson = await call(server, "POST", `/agents/${agent.id}/chat/completions/`, token, "{nope", {
      "Content-Type": "application/json",
    });
    expect(badJson.status).toBe(400);
    expect(openAiError(badJson.body)).toMatchObject({
      type: "invalid_request_error",
      code: "validation_error",
    });
  });

  it("keeps Lore's own error body on Lore's routes", async () => {
    const res = await call(server, "POST", `/agents/${agent.id}/query/`, undefined, { message: QUESTION });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: "not_authenticated" });
  });
});

describe("chat completion messages", () => {
  it("joins text parts, ignores developer messages and keeps tool turns in the history", async () => {
    const res = await chat({
      model: "gpt-whatever",
      messages: [
        { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
        { role: "user", content: "What's the weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "Sunny" }] },
        {
          role: "user",
          content: [
            { type: "text", text: "Which payment methods " },
            { type: "text", text: "do you accept?" },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const completion = chatCompletionResponseSchema.parse(res.body);
    expect(completion.choices[0]?.message.content).toMatch(/PayPal/);
    const stored = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${completion.conversationId}/`, token))
        .body,
    );
    expect(stored.messages[0]?.content).toBe(QUESTION);
  });

  it.each([
    ["image_url", { type: "image_url", image_url: { url: "https://example.com/a.png" } }],
    ["input_audio", { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }],
    ["file", { type: "file", file: { file_id: "file-1" } }],
  ])("refuses a %s part with 400 naming the part", async (type, part) => {
    const res = await chat({
      messages: [
        { role: "user", content: "Hello" },
        { role: "user", content: [{ type: "text", text: QUESTION }, part] },
      ],
    });
    expect(res.status).toBe(400);
    const error = openAiError(res.body);
    expect(error).toMatchObject({ code: "validation_error", param: "messages.1.content.1" });
    expect(error.message).toContain(type);
  });

  it("refuses a conversation that does not end with a user message", async () => {
    const res = await chat({
      messages: [
        { role: "user", content: QUESTION },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "f" } }],
        },
        { role: "tool", tool_call_id: "c", content: "done" },
      ],
    });
    expect(res.status).toBe(400);
    expect(openAiError(res.body)).toMatchObject({ code: "validation_error", param: "messages" });
  });
});

describe("responses", () => {
  it("answers a string input with the response object, usage and sources", async () => {
    const res = await respond({ model: "x", input: QUESTION, instructions: "Be brief." });
    expect(res.status).toBe(200);
    const response = responseObjectSchema.parse(res.body);
    expect(response).toMatchObject({ object: "response", status: "completed", instructions: "Be brief." });
    expect(response.output[0]?.content[0]?.text).toMatch(/PayPal/);
    expect(response.usage?.total_tokens).toBe(
      (response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0),
    );
    expect(response.sources[0]?.title).toBe("Payment methods");
  });

  it("streams OpenAI's events in order with rising sequence numbers, the text adding up", async () => {
    const http = await fetch(`${server.api}/agents/${agent.id}/responses/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        input: [
          { role: "system", content: "Be brief." },
          { type: "message", role: "user", content: [{ type: "input_text", text: QUESTION }] },
        ],
        stream: true,
      }),
    });
    expect(http.status).toBe(200);
    const blocks = (await http.text()).split("\n\n").filter((b) => b.startsWith("event: "));
    const events = blocks.map((block) => {
      const [eventLine, dataLine] = block.split("\n");
      const event = responseStreamEventSchema.parse(JSON.parse(dataLine?.slice("data: ".length) ?? ""));
      expect(eventLine).toBe(`event: ${event.type}`);
      return event;
    });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t !== "response.output_text.delta")).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const text = events.map((e) => (e.type === "response.output_text.delta" ? e.delta : "")).join("");
    const done = events.find((e) => e.type === "response.output_text.done");
    const completed = events.at(-1);
    if (done?.type !== "response.output_text.done" || completed?.type !== "response.completed")
      throw new Error("missing events");
    expect(done.text).toBe(text);
    expect(completed.response.output[0]?.content[0]?.text).toBe(text);
    expect(completed.response.usage?.output_tokens).toBeGreaterThan(0);
    expect(text).toMatch(/PayPal/);
  });

  it.each([
    ["tools", { tools: [{ type: "function", name: "f", parameters: {} }] }, "tools"],
    ["a previous response", { previous_response_id: "resp_1" }, "previous_response_id"],
    [
      "an image",
      { input: [{ role: "user", content: [{ type: "input_image", image_url: "x" }] }] },
      "input.0.content.0",
    ],
    ["no user message last", { input: [{ role: "assistant", content: "hi" }] }, "input"],
  ])("refuses %s with 400 naming the field", async (_, extra, param) => {
    const res = await respond({ input: QUESTION, ...extra });
    expect(res.status).toBe(400);
    expect(openAiError(res.body)).toMatchObject({ code: "validation_error", param });
  });
});

describe("models", () => {
  it("names every chat completion chunk with an id (completion id and sequence), data-only", async () => {
    const http = await fetch(`${server.api}/agents/${agent.id}/chat/completions/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: QUESTION }], stream: true }),
    });
    expect(http.status).toBe(200);
    const blocks = (await http.text()).split("\n\n").filter((b) => b.includes("data: {"));
    expect(blocks.length).toBeGreaterThan(2);
    const ids = blocks.map((block) => {
      const [idLine, dataLine] = block.split("\n");
      expect(dataLine).toMatch(/^data: \{/);
      const chunk = JSON.parse(dataLine?.slice("data: ".length) ?? "") as { id: string };
      return [idLine, chunk.id] as const;
    });
    expect(ids.map(([idLine]) => idLine)).toEqual(
      ids.map(([, completionId], seq) => `id: ${completionId}:${seq}`),
    );
  });

  it("lists the agent as its one model and names no other", async () => {
    const list = await call(server, "GET", `/agents/${agent.id}/models/`, token);
    expect(list.body).toEqual({
      object: "list",
      data: [
        {
          id: agent.id,
          object: "model",
          created: Math.floor(Date.parse(agent.createdAt) / 1000),
          owned_by: agent.workspaceId,
          name: "Shop",
        },
      ],
    });
    const other = await call(server, "GET", `/agents/${agent.id}/models/gpt-4o/`, token);
    expect(other.status).toBe(404);
    expect(openAiError(other.body)).toMatchObject({ code: "not_found", type: "not_found_error" });
  });
});
