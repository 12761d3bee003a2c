import { randomUUID } from "node:crypto";
import {
  type AnswerEvent,
  chatCompletionRequestSchema,
  feedbackRequestSchema,
  pageQuerySchema,
  type QueryResponse,
  queryRequestSchema,
  searchRequestSchema,
} from "@lore/shared";
import type { Context } from "hono";
import { Hono } from "hono";
import { toConversation, toMessage } from "../conversations/conversations-service.ts";
import { AppError } from "../errors.ts";
import { chargeQuery } from "../http/middleware.ts";
import { paginate } from "../http/pagination.ts";
import type { AppEnv, Principal } from "../http/principal.ts";
import { linkedController, streamEvents, wantsStream } from "../http/sse.ts";
import { parseQuery, pathId, readJson } from "../http/validate.ts";
import type { Services } from "../services.ts";
import { answerQuestion, resolveSources } from "./answer-question.ts";

/** Collects a finished event stream into the contract's QueryResponse. */
export async function collectResponse(events: AsyncGenerator<AnswerEvent>): Promise<QueryResponse> {
  let response = "";
  for await (const event of events) {
    switch (event.type) {
      case "start":
      case "sources":
        break;
      case "token":
        response += event.token;
        break;
      case "done": {
        const { type: _t, ...rest } = event;
        return { response, ...rest };
      }
      case "error":
        throw new AppError("upstream_error", event.message);
      default:
        event satisfies never;
    }
  }
  throw new AppError("internal_error", "The answer ended without a result");
}

/** The OpenAI `usage` object from an answer's metadata. */
function openAiUsage(metadata: QueryResponse["metadata"]) {
  return {
    prompt_tokens: metadata.promptTokens ?? 0,
    completion_tokens: metadata.completionTokens ?? 0,
    total_tokens: metadata.tokensUsed,
  };
}

export function callerId(principal: Principal, clientIp: string): string {
  if (principal.kind === "user") return `user:${principal.user.id}`;
  if (principal.kind === "apiKey") return `key:${principal.key.id}`;
  return `ip:${clientIp}`;
}

export function answersRoutes(s: Services) {
  const { access, config } = s;
  const agentFor = (c: Context<AppEnv>, action: "read" | "query" | "write") =>
    access.agent(c.get("principal"), pathId(c, "agentId", "agent"), action);

  return new Hono<AppEnv>()
    .post("/:agentId/query/", async (c) => {
      const agent = agentFor(c, "query");
      chargeQuery(config, s, c, agent.id);
      const body = await readJson(c, queryRequestSchema);
      const stream = wantsStream(c.req.header("accept"));
      const controller = linkedController(c.req.raw.signal);
      const events = answerQuestion(s.answerDeps, {
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
    })
    .post("/:agentId/search/", async (c) => {
      const agent = agentFor(c, "query");
      const body = await readJson(c, searchRequestSchema);
      const sourceIds = resolveSources(s.answerDeps, agent, body.dataSourceIds);
      const started = performance.now();
      const hits =
        sourceIds.length === 0
          ? []
          : await s.index.search({
              query: body.query,
              dataSourceIds: sourceIds,
              topK: body.topK ?? agent.retrieval.topK,
              minScore: agent.retrieval.minScore,
              mode: body.mode ?? agent.retrieval.mode,
              signal: c.req.raw.signal,
            });
      const results = hits.map(({ chunk, score }, i) => ({
        rank: i + 1,
        documentId: chunk.documentId,
        chunkId: chunk.id,
        title: chunk.title,
        dataSourceName: s.store.dataSources.get(chunk.dataSourceId)?.name ?? "",
        dataSourceType: chunk.kind,
        sourceUrl: chunk.sourceUrl ?? "",
        content: chunk.text,
        score,
        displayMode: "expandable" as const,
        dataSourceId: chunk.dataSourceId,
        page: chunk.page,
        headingPath: chunk.headingPath,
      }));
      return c.json({ results, retrievalTime: Math.round((performance.now() - started) * 10) / 10 });
    })
    .post("/:agentId/chat/completions/", async (c) => {
      const agent = agentFor(c, "query");
      chargeQuery(config, s, c, agent.id);
      const body = await readJson(c, chatCompletionRequestSchema);
      const turns = body.messages.filter((m) => m.role !== "system");
      const last = turns.at(-1);
      if (last?.role !== "user" || last.content.trim() === "") {
        throw new AppError("validation_error", "The last message must be a non-empty user message", {
          fields: { messages: ["last message must be from the user"] },
        });
      }
      const controller = linkedController(c.req.raw.signal);
      const events = answerQuestion(s.answerDeps, {
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
      });
    })
    .get("/:agentId/conversations/", (c) => {
      const agent = agentFor(c, "read");
      const query = parseQuery(c, pageQuerySchema);
      return c.json(
        paginate(c, s.conversations.listForAgent(agent.id).map(toConversation), query, config.trustProxy),
      );
    })
    .get("/:agentId/conversations/:conversationId/", async (c) => {
      const agent = agentFor(c, "read");
      const conversation = s.conversations.get(agent.id, pathId(c, "conversationId", "conversation"));
      const messages = (await s.conversations.messages(conversation.id)).map(toMessage);
      return c.json({ ...toConversation(conversation), messages });
    })
    .delete("/:agentId/conversations/:conversationId/", async (c) => {
      const agent = agentFor(c, "write");
      await s.conversations.remove(
        s.conversations.get(agent.id, pathId(c, "conversationId", "conversation")),
      );
      return c.body(null, 204);
    })
    .post("/:agentId/messages/:messageId/feedback/", async (c) => {
      const agent = agentFor(c, "query");
      const body = await readJson(c, feedbackRequestSchema);
      const message = await s.conversations.findMessage(agent.id, pathId(c, "messageId", "message"));
      await s.feedback(agent, message, body.rating, body.comment ?? null);
      return c.body(null, 204);
    });
}
