import {
  chatCompletionChunkSchema,
  chatCompletionRequestSchema,
  chatCompletionResponseSchema,
  openAiModelListSchema,
  openAiModelSchema,
  responseObjectSchema,
  responseRequestSchema,
  responseStreamEventSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, streamableResponse } from "../http/route.ts";

export const chatCompletions = apiRoute({
  method: "post",
  path: "/agents/{agentId}/chat/completions/",
  summary: "OpenAI-compatible chat completions (streaming or not), with the citations kept",
  description:
    "The last message must be a non-empty `user` message; the 10 turns before it are the history (no stored conversation is continued, a new one is stored). `content` may be a string or an array of text parts (image, audio and file parts are 400 naming the part); `system` and `developer` messages are ignored (the agent's instructions apply); `tool` messages and assistant `tool_calls` are kept in the history as text, never executed. `model` and the sampling options are ignored: the agent's model answers. With `stream: true` the answer is sent as `chat.completion.chunk` SSE events ending with `data: [DONE]`; the first carries `conversationId`, the finish chunk `sources`, `outcome` and `confidence`; with `stream_options.include_usage` a last chunk with `choices: []` carries `usage`. A failure after the first chunk is a `data: {error}` chunk ending the stream. Errors are OpenAI-shaped: `{error: {message, type, code, param}}`.",
  tag: "OpenAI-compatible",
  auth: "user-or-key",
  role: "viewer",
  charge: "query",
  errorFormat: "openai",
  request: { body: jsonBody(chatCompletionRequestSchema) },
  responses: {
    200: streamableResponse(
      chatCompletionResponseSchema,
      chatCompletionChunkSchema,
      "`stream: true` in the body",
    ),
  },
  errors: ["agent_processing", "upstream_error"],
});

export const createResponse = apiRoute({
  method: "post",
  path: "/agents/{agentId}/responses/",
  summary: "OpenAI-compatible Responses API (the text subset), with the citations kept",
  description:
    "`input` is a string or a list of message items (`function_call` and `function_call_output` items are kept as text); the last item must be a non-empty user message. `instructions` and system/developer messages are ignored (the agent's instructions apply); `tools` must be empty and `previous_response_id` absent (responses are not stored as such; the exchange is stored as a new conversation). With `stream: true`: `response.created`, `response.in_progress`, `response.output_item.added`, `response.content_part.added`, `response.output_text.delta`…, `response.output_text.done`, `response.content_part.done`, `response.output_item.done`, `response.completed` (with `usage` and `sources`), each as `event: <type>` with `data: {json}` and a `sequence_number`; a failure after the first event is an `error` event ending the stream. Errors are OpenAI-shaped.",
  tag: "OpenAI-compatible",
  auth: "user-or-key",
  role: "viewer",
  charge: "query",
  errorFormat: "openai",
  request: { body: jsonBody(responseRequestSchema) },
  responses: {
    200: streamableResponse(responseObjectSchema, responseStreamEventSchema, "`stream: true` in the body"),
  },
  errors: ["agent_processing", "upstream_error"],
});

export const listModels = apiRoute({
  method: "get",
  path: "/agents/{agentId}/models/",
  summary: "OpenAI-compatible model list: the agent as the one model",
  description: "Errors are OpenAI-shaped.",
  tag: "OpenAI-compatible",
  auth: "user-or-key",
  role: "viewer",
  errorFormat: "openai",
  responses: { 200: jsonResponse(openAiModelListSchema) },
});

export const getModel = apiRoute({
  method: "get",
  path: "/agents/{agentId}/models/{modelId}/",
  summary: "OpenAI-compatible model: the agent, by its id",
  description: "Any `modelId` but the agent's id is 404. Errors are OpenAI-shaped.",
  tag: "OpenAI-compatible",
  auth: "user-or-key",
  role: "viewer",
  errorFormat: "openai",
  responses: { 200: jsonResponse(openAiModelSchema) },
});
