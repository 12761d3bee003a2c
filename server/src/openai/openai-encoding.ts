import { randomBytes } from "node:crypto";
import type {
  AnswerEvent,
  ChatCompletionResponse,
  OpenAIModel,
  QueryResponse,
  ResponseObject,
  ResponseStreamEvent,
} from "@lore/shared";
import { AppError } from "../errors.ts";
import type { AgentRecord } from "../store/records.ts";

// Lore's answers in OpenAI's wire formats: chat completions, responses and models.

/** An id in OpenAI's style: a prefix and random hex. */
export const openAiId = (prefix: string) => `${prefix}_${randomBytes(16).toString("hex")}`;

/** The OpenAI `usage` object of chat completions, from an answer's metadata. */
function chatUsage(metadata: QueryResponse["metadata"]) {
  return {
    prompt_tokens: metadata.promptTokens ?? 0,
    completion_tokens: metadata.completionTokens ?? 0,
    total_tokens: metadata.tokensUsed,
  };
}

/** The Responses API's `usage`, from an answer's metadata. */
function responseUsage(metadata: QueryResponse["metadata"]): NonNullable<ResponseObject["usage"]> {
  return {
    input_tokens: metadata.promptTokens ?? 0,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: metadata.completionTokens ?? 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: metadata.tokensUsed,
  };
}

/** An error event as OpenAI's streams carry it. */
const streamError = (event: Extract<AnswerEvent, { type: "error" }>) =>
  new AppError(event.error as AppError["code"], event.message).toOpenAiBody().error;

/** The agent as OpenAI's model object. */
export function agentModel(agent: AgentRecord): OpenAIModel {
  return {
    id: agent.id,
    object: "model",
    created: Math.floor(Date.parse(agent.createdAt) / 1000),
    owned_by: agent.workspaceId,
    name: agent.name,
  };
}

interface Completion {
  id: string;
  created: number;
  model: string;
}

/** A new chat completion's id, time and model. */
export function newCompletion(model: string): Completion {
  return { id: openAiId("chatcmpl"), created: Math.floor(Date.now() / 1000), model };
}

/** A whole answer as a `chat.completion`, with Lore's sources, conversation, outcome and confidence. */
export function chatCompletion(completion: Completion, result: QueryResponse): ChatCompletionResponse {
  return {
    ...completion,
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: result.response, refusal: null },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: chatUsage(result.metadata),
    sources: result.sources,
    conversationId: result.conversationId,
    outcome: result.outcome,
    confidence: result.confidence,
  };
}

/**
 * Encodes answer events as `chat.completion.chunk` lines. The usage goes on a last chunk with
 * `choices: []`, only when asked, as OpenAI sends it (clients add up every usage they see).
 */
export function chatChunkEncoder(completion: Completion, includeUsage: boolean) {
  const base = { ...completion, object: "chat.completion.chunk" };
  // Each chunk carries `id: <completion id>:<seq>` like Lore's own streams; OpenAI clients ignore it.
  let seq = 0;
  const data = (value: unknown) => `id: ${completion.id}:${seq++}\ndata: ${JSON.stringify(value)}\n\n`;
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra = {}) =>
    data({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
  return (event: AnswerEvent): string => {
    switch (event.type) {
      case "start":
        return chunk({ role: "assistant", content: "" }, null, { conversationId: event.conversationId });
      case "token":
        return chunk({ content: event.token }, null);
      case "sources":
        return "";
      case "done":
        return (
          chunk({}, "stop", {
            sources: event.sources,
            outcome: event.outcome,
            confidence: event.confidence,
          }) + (includeUsage ? data({ ...base, choices: [], usage: chatUsage(event.metadata) }) : "")
        );
      case "error":
        return data({ error: streamError(event) });
      default:
        return event satisfies never;
    }
  };
}

/** One response of the Responses API: its ids and what the request said. */
export interface ResponseShell {
  id: string;
  itemId: string;
  createdAt: number;
  model: string;
  instructions: string | null;
}

export function newResponse(model: string, instructions: string | null): ResponseShell {
  return {
    id: openAiId("resp"),
    itemId: openAiId("msg"),
    createdAt: Math.floor(Date.now() / 1000),
    model,
    instructions,
  };
}

function outputText(text: string) {
  return { type: "output_text" as const, text, annotations: [], logprobs: [] };
}

function outputMessage(shell: ResponseShell, status: "in_progress" | "completed", text: string | null) {
  return {
    type: "message" as const,
    id: shell.itemId,
    status,
    role: "assistant" as const,
    content: text === null ? [] : [outputText(text)],
  };
}

/** The `response` object: in progress (no output yet) or completed with the answer. */
export function responseObject(
  shell: ResponseShell,
  conversationId: string,
  result: Pick<QueryResponse, "response" | "metadata" | "sources"> | null,
): ResponseObject {
  return {
    id: shell.id,
    object: "response",
    created_at: shell.createdAt,
    status: result ? "completed" : "in_progress",
    error: null,
    incomplete_details: null,
    instructions: shell.instructions,
    model: shell.model,
    output: result ? [outputMessage(shell, "completed", result.response)] : [],
    parallel_tool_calls: false,
    previous_response_id: null,
    store: false,
    tool_choice: "none",
    tools: [],
    text: { format: { type: "text" } },
    truncation: "disabled",
    usage: result ? responseUsage(result.metadata) : null,
    metadata: {},
    sources: result?.sources ?? [],
    conversationId,
  };
}

type UnsequencedEvent = ResponseStreamEvent extends infer E
  ? E extends ResponseStreamEvent
    ? Omit<E, "sequence_number">
    : never
  : never;

/** Encodes answer events as the Responses API's stream: `event: <type>` lines, numbered in order. */
export function responseEventEncoder(shell: ResponseShell) {
  let sequence = 0;
  let text = "";
  let conversationId = "";
  const send = (...events: UnsequencedEvent[]) =>
    events
      .map((e) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: sequence++ })}\n\n`)
      .join("");
  const at = { item_id: shell.itemId, output_index: 0, content_index: 0 } as const;
  return (event: AnswerEvent): string => {
    switch (event.type) {
      case "start": {
        conversationId = event.conversationId;
        const started = responseObject(shell, conversationId, null);
        return send(
          { type: "response.created", response: started },
          { type: "response.in_progress", response: started },
          {
            type: "response.output_item.added",
            output_index: 0,
            item: outputMessage(shell, "in_progress", null),
          },
          { type: "response.content_part.added", ...at, part: outputText("") },
        );
      }
      case "token":
        text += event.token;
        return send({ type: "response.output_text.delta", ...at, delta: event.token, logprobs: [] });
      case "sources":
        return "";
      case "done":
        return send(
          { type: "response.output_text.done", ...at, text, logprobs: [] },
          { type: "response.content_part.done", ...at, part: outputText(text) },
          {
            type: "response.output_item.done",
            output_index: 0,
            item: outputMessage(shell, "completed", text),
          },
          {
            type: "response.completed",
            response: responseObject(shell, conversationId, { response: text, ...event }),
          },
        );
      case "error": {
        const { code, message } = streamError(event);
        return send({ type: "error", code, message, param: null });
      }
      default:
        return event satisfies never;
    }
  };
}
