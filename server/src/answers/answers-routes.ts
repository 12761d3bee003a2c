import type { Context } from "hono";
import type { AgentAction } from "../auth/access.ts";
import { callerId, type Principal } from "../auth/principal.ts";
import { AppError } from "../errors.ts";
import type { AppEnv } from "../http/principal.ts";
import { endpoint } from "../http/route.ts";
import { linkedController, streamEvents, wantsStream } from "../http/sse.ts";
import type { Services } from "../services.ts";
import { answerQuestion } from "./answer-question.ts";
import * as api from "./answers-api.ts";
import { collectResponse } from "./collect-response.ts";
import { resolveSources } from "./prepare-conversation.ts";
import { searchResults } from "./search-knowledge.ts";

/**
 * The console's Try it tags its questions `console`; only an owner's login session may (the widget's
 * routes take no such field), so no visitor can hide their questions from the queue or analytics.
 */
function tryItChannel(principal: Principal, requested: "console" | undefined): "console" | "api" {
  if (requested === undefined) return "api";
  if (principal.kind !== "user") {
    throw new AppError("validation_error", "Only a console session may tag a question `console`", {
      fields: { channel: ["only with a user's login token"] },
    });
  }
  return requested;
}

/** Questions to an agent: answers (JSON or SSE), retrieval only, and ratings. */
export function answersRoutes({
  access,
  answerDeps,
  conversations,
  answerReplay,
  lifecycle,
}: Pick<Services, "access" | "answerDeps" | "conversations" | "answerReplay" | "lifecycle">) {
  const agentFor = (c: Context<AppEnv>, input: { id(name: "agentId"): string }, action: AgentAction) =>
    access.agent(c.get("principal"), input.id("agentId"), action);
  const queryAgent = (c: Context<AppEnv>, input: { id(name: "agentId"): string }) =>
    agentFor(c, input, "query");
  // Who may resume a stream: the same caller (user, key, or address) asking the same agent.
  const resumeOwner = (c: Context<AppEnv>, input: { id(name: "agentId"): string }) =>
    `${queryAgent(c, input).id}|${callerId(c.get("principal"), c.get("clientIp"))}`;

  return [
    endpoint(
      api.queryAgent,
      async (c, input) => {
        const agent = agentFor(c, input, "query");
        const body = await input.json();
        const stream = body.stream === true || wantsStream(c.req.header("accept"));
        const controller = linkedController(c.req.raw.signal);
        const ask = (signal: AbortSignal) =>
          answerQuestion(answerDeps, {
            agent,
            message: body.message,
            conversationId: body.conversationId,
            dataSourceIds: body.dataSourceIds,
            channel: tryItChannel(c.get("principal"), body.channel),
            streamed: stream,
            callerId: callerId(c.get("principal"), c.get("clientIp")),
            signal,
          });
        if (stream) {
          // A dropped connection doesn't stop the answer at once: the client may resume it (Last-Event-ID).
          const recorder = answerReplay.record([resumeOwner(c, input)]);
          const events = ask(recorder.outlive(controller.signal, () => lifecycle.draining));
          return streamEvents(recorder.track(events), controller, {}, recorder.encode);
        }
        const events = ask(controller.signal);
        return c.json(await collectResponse(events));
      },
      { queryAgent, resumeOwner },
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
    endpoint(api.rateAnswer, async (c, input) => {
      const agent = agentFor(c, input, "query");
      const body = await input.json();
      const message = await conversations.findMessage(agent.id, input.id("messageId"));
      await conversations.rateAnswer(agent, message, body.rating, body.comment ?? null, body.reason ?? null);
      return c.body(null, 204);
    }),
  ];
}
