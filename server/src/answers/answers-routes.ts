import { randomUUID } from "node:crypto";
import type { QueryResponse } from "@lore/shared";
import type { Context } from "hono";
import type { AgentAction } from "../auth/access.ts";
import { callerId } from "../auth/principal.ts";
import { AppError } from "../errors.ts";
import type { AppEnv } from "../http/principal.ts";
import { endpoint } from "../http/route.ts";
import { linkedController, streamEvents, wantsStream } from "../http/sse.ts";
import type { Services } from "../services.ts";
import { answerQuestion, resolveSources } from "./answer-question.ts";
import * as api from "./answers-api.ts";
import { collectResponse } from "./collect-response.ts";
import { searchResults } from "./search-knowledge.ts";

/** The OpenAI `usage` object from an answer's metadata. */
function openAiUsage(metadata: QueryResponse["metadata"]) {
  return {
    prompt_tokens: metadata.promptTokens ?? 0,
    completion_tokens: metadata.completionTokens ?? 0,
    total_tokens: metadata.tokensUsed,
  };
}

/** Questions to an agent: answers (JSON, SSE, OpenAI-compatible), retrieval only, and ratings. */
export function answersRoutes({
  access,
  answerDeps,
  conversations,
}: Pick<Services, "access" | "answerDeps" | "conversations">) {
  const agentFor = (c: Context<AppEnv>, input: { id(name: "agentId"): string }, action: AgentAction) =>
    access.agent(c.get("principal"), input.id("agentId"), action);
  const queryAgent = (c: Context<AppEnv>, input: { id(name: "agentId"): string }) =>
    agentFor(c, input, "query");

  return [
    endpoint(
      api.queryAgent,
      async (c, input) => {
        const agent = agentFor(c, input, "query");
        const body = await input.json();
        const stream = body.stream === true || wantsStream(c.req.header("accept"));
        const controller = linkedController(c.req.raw.signal);
        const events = answerQuestion(answerDeps, {
          agent,
          message: body.message,
          conversationId: body.conversationId,
          dataSourceIds: body.dataSourceIds,
          channel: "api",
          streamed: stream,
          callerId: callerId(c.get("principal"), c.get("clientIp")),
          signal: controller.signal,
        });
        if (stream) return streamEvents(events, controller);
        return c.json(await collectResponse(events));
      },
      { queryAgent },
    ),
    endpoint(api.searchAgent, async (c, input) => {
      const agent = agentFor(c, input, "query");
      const body = await input.json();
      const sourceIds = resolveSources(answerDeps, agent, body.dataSourceIds);
      return c.json(
        await searchResults(answerDeps, agent, {
          query: body.query,
          sourceIds,
          topK: body.topK,
          mode: body.mode,
          signal: c.req.raw.signal,
        }),
      );
    }),
    endpoint(
      api.chatCompletions,
      async (c, input) => {
        const agent = agentFor(c, input, "query");
        const body = await input.json();
        const turns = body.messages.filter((m) => m.role !== "system");
        const last = turns.at(-1);
        if (last?.role !== "user" || last.content.trim() === "") {
          throw new AppError("validation_error", "The last message must be a non-empty user message", {
            fields: { messages: ["last message must be from the user"] },
          });
        }
        const controller = linkedController(c.req.raw.signal);
        const events = answerQuestion(answerDeps, {
          agent,
          message: last.content,
          channel: "openai",
          streamed: body.stream === true,
          callerId: callerId(c.get("principal"), c.get("clientIp")),
          history: turns.slice(0, -1).slice(-10),
          signal: controller.signal,
        });
        const id = `chatcmpl-${randomUUID()}`;
        const created = Math.floor(Date.now() / 1000);
        const model = agent.model;
        if (body.stream) {
          const chunk = (
            delta: Record<string, unknown>,
            finish: string | null,
            extra: Record<string, unknown> = {},
          ) =>
            `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
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
                  return chunk({}, "stop", {
                    sources: event.sources,
                    outcome: event.outcome,
                    confidence: event.confidence,
                    usage: openAiUsage(event.metadata),
                  });
                case "error":
                  return `data: ${JSON.stringify({ error: { message: event.message, type: event.error } })}\n\n`;
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
          object: "chat.completion",
          created,
          model,
          choices: [
            { index: 0, message: { role: "assistant", content: result.response }, finish_reason: "stop" },
          ],
          usage: openAiUsage(result.metadata),
          sources: result.sources,
          conversationId: result.conversationId,
          outcome: result.outcome,
          confidence: result.confidence,
        });
      },
      { queryAgent },
    ),
    endpoint(api.rateAnswer, async (c, input) => {
      const agent = agentFor(c, input, "query");
      const body = await input.json();
      const message = await conversations.findMessage(agent.id, input.id("messageId"));
      await conversations.rateAnswer(agent, message, body.rating, body.comment ?? null, body.reason ?? null);
      return c.body(null, 204);
    }),
  ];
}
