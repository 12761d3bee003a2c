import { randomBytes } from "node:crypto";
import type {
  AnswerEvent,
  OpenAIModel,
  QueryResponse,
  ResponseObject,
  ResponseStreamEvent,
} from "@lore/shared";
import type { Context } from "hono";
import { answerQuestion } from "../answers/answer-question.ts";
import { collectResponse } from "../answers/collect-response.ts";
import type { AgentAction } from "../auth/access.ts";
import { callerId } from "../auth/principal.ts";
import { AppError, notFound } from "../errors.ts";
import type { AppEnv } from "../http/principal.ts";
import { endpoint } from "../http/route.ts";
import { linkedController, streamEvents } from "../http/sse.ts";
import type { Services } from "../services.ts";
import type { AgentRecord } from "../store/records.ts";
import * as api from "./openai-api.ts";
import { type OpenAiConversation, readChatMessages, readResponseInput } from "./openai-messages.ts";

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

/** An id in OpenAI's style: a prefix and random hex. */
const openAiId = (prefix: string) => `${prefix}_${randomBytes(16).toString("hex")}`;

/** An error event as OpenAI's streams carry it. */
const streamError = (event: Extract<AnswerEvent, { type: "error" }>) =>
  new AppError(event.error as AppError["code"], event.message).toOpenAiBody().error;

function agentModel(agent: AgentRecord): OpenAIModel {
  return {
    id: agent.id,
    object: "model",
    created: Math.floor(Date.parse(agent.createdAt) / 1000),
    owned_by: agent.workspaceId,
    name: agent.name,
  };
}

/** The agent as an OpenAI endpoint: chat completions, responses and models, errors in OpenAI's shape. */
export function openAiRoutes({ access, answerDeps }: Pick<Services, "access" | "answerDeps">) {
  const agentFor = (c: Context<AppEnv>, input: { id(name: "agentId"): string }, action: AgentAction) =>
    access.agent(c.get("principal"), input.id("agentId"), action);
  const queryAgent = (c: Context<AppEnv>, input: { id(name: "agentId"): string }) =>
    agentFor(c, input, "query");
  const ask = (
    c: Context<AppEnv>,
    agent: AgentRecord,
    conversation: OpenAiConversation,
    streamed: boolean,
  ) => {
    const controller = linkedController(c.req.raw.signal);
    const events = answerQuestion(answerDeps, {
      agent,
      message: conversation.question,
      channel: "openai",
      streamed,
      callerId: callerId(c.get("principal"), c.get("clientIp")),
      history: conversation.history,
      signal: controller.signal,
    });
    return { events, controller };
  };

  return [
    endpoint(
      api.chatCompletions,
      async (c, input) => {
        const agent = agentFor(c, input, "query");
        const body = await input.json();
        const stream = body.stream === true;
        const { events, controller } = ask(c, agent, readChatMessages(body.messages), stream);
        const id = openAiId("chatcmpl");
        const created = Math.floor(Date.now() / 1000);
        const model = agent.model;
        if (stream) {
          const includeUsage = body.stream_options?.include_usage === true;
          const base = { id, object: "chat.completion.chunk", created, model };
          const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
          const chunk = (delta: Record<string, unknown>, finish: string | null, extra = {}) =>
            data({
              ...base,
              choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
              ...extra,
            });
          return streamEvents(
            events,
            controller,
            {},
            (event) => {
              switch (event.type) {
                case "start":
                  return chunk({ role: "assistant", content: "" }, null, {
                    conversationId: event.conversationId,
                  });
                case "token":
                  return chunk({ content: event.token }, null);
                case "sources":
                  return "";
                case "done":
                  // Usage only when asked, on a chunk of its own, as OpenAI sends it (clients add it up).
                  return (
                    chunk({}, "stop", { sources: event.sources }) +
                    (includeUsage ? data({ ...base, choices: [], usage: chatUsage(event.metadata) }) : "")
                  );
                case "error":
                  return data({ error: streamError(event) });
                default:
                  return event satisfies never;
              }
            },
            "data: [DONE]\n\n",
          );
        }
        const result = await collectResponse(events);
        return c.json({
          id,
          object: "chat.completion" as const,
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: "assistant" as const, content: result.response, refusal: null },
              logprobs: null,
              finish_reason: "stop",
            },
          ],
          usage: chatUsage(result.metadata),
          sources: result.sources,
          conversationId: result.conversationId,
        });
      },
      { queryAgent },
    ),
    endpoint(
      api.createResponse,
      async (c, input) => {
        const agent = agentFor(c, input, "query");
        const body = await input.json();
        const stream = body.stream === true;
        const { events, controller } = ask(c, agent, readResponseInput(body.input), stream);
        const responseId = openAiId("resp");
        const itemId = openAiId("msg");
        const createdAt = Math.floor(Date.now() / 1000);
        const response = (fields: Partial<ResponseObject> & Pick<ResponseObject, "conversationId">) =>
          ({
            id: responseId,
            object: "response",
            created_at: createdAt,
            status: "in_progress",
            error: null,
            incomplete_details: null,
            instructions: body.instructions ?? null,
            model: agent.model,
            output: [],
            parallel_tool_calls: false,
            previous_response_id: null,
            store: false,
            tool_choice: "none",
            tools: [],
            text: { format: { type: "text" } },
            truncation: "disabled",
            usage: null,
            metadata: {},
            sources: [],
            ...fields,
          }) satisfies ResponseObject;
        const message = (status: "in_progress" | "completed", text: string | null) => ({
          type: "message" as const,
          id: itemId,
          status,
          role: "assistant" as const,
          content: text === null ? [] : [outputText(text)],
        });
        if (!stream) {
          const result = await collectResponse(events);
          return c.json(
            response({
              status: "completed",
              output: [message("completed", result.response)],
              usage: responseUsage(result.metadata),
              sources: result.sources,
              conversationId: result.conversationId,
            }),
          );
        }
        let sequence = 0;
        let text = "";
        let conversationId = "";
        const send = (
          ...list: Array<Omit<ResponseStreamEvent, "sequence_number"> & Record<string, unknown>>
        ) =>
          list
            .map(
              (e) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: sequence++ })}\n\n`,
            )
            .join("");
        const at = { item_id: itemId, output_index: 0, content_index: 0 } as const;
        return streamEvents(events, controller, {}, (event) => {
          switch (event.type) {
            case "start": {
              conversationId = event.conversationId;
              const started = response({ conversationId });
              return send(
                { type: "response.created", response: started },
                { type: "response.in_progress", response: started },
                { type: "response.output_item.added", output_index: 0, item: message("in_progress", null) },
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
                { type: "response.output_item.done", output_index: 0, item: message("completed", text) },
                {
                  type: "response.completed",
                  response: response({
                    status: "completed",
                    output: [message("completed", text)],
                    usage: responseUsage(event.metadata),
                    sources: event.sources,
                    conversationId,
                  }),
                },
              );
            case "error": {
              const { code, message: what } = streamError(event);
              return send({ type: "error", code, message: what, param: null });
            }
            default:
              return event satisfies never;
          }
        });
      },
      { queryAgent },
    ),
    endpoint(api.listModels, (c, input) => {
      const agent = agentFor(c, input, "read");
      return c.json({ object: "list" as const, data: [agentModel(agent)] });
    }),
    endpoint(api.getModel, (c, input) => {
      const agent = agentFor(c, input, "read");
      const modelId = input.id("modelId");
      if (modelId !== agent.id) throw notFound("model", modelId);
      return c.json(agentModel(agent));
    }),
  ];
}

function outputText(text: string) {
  return { type: "output_text" as const, text, annotations: [], logprobs: [] };
}
