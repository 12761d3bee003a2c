import type { Context } from "hono";
import { answerQuestion } from "../answers/answer-question.ts";
import { collectResponse } from "../answers/collect-response.ts";
import type { AgentAction } from "../auth/access.ts";
import { callerId } from "../auth/principal.ts";
import { notFound } from "../errors.ts";
import type { AppEnv } from "../http/principal.ts";
import { endpoint } from "../http/route.ts";
import { linkedController, streamEvents } from "../http/sse.ts";
import type { Services } from "../services.ts";
import type { AgentRecord } from "../store/records.ts";
import * as api from "./openai-api.ts";
import {
  agentModel,
  chatChunkEncoder,
  chatCompletion,
  newCompletion,
  newResponse,
  responseEventEncoder,
  responseObject,
} from "./openai-encoding.ts";
import { type OpenAiConversation, readChatMessages, readResponseInput } from "./openai-messages.ts";

/** The agent as an OpenAI endpoint: chat completions, responses and models, errors in OpenAI's shape. */
export function openAiRoutes({ access, answerDeps }: Pick<Services, "access" | "answerDeps">) {
  const agentFor = (c: Context<AppEnv>, input: { id(name: "agentId"): string }, action: AgentAction) =>
    access.agent(c.get("principal"), input.id("agentId"), action);
  const queryAgent = (c: Context<AppEnv>, input: { id(name: "agentId"): string }) =>
    agentFor(c, input, "query");
  // An answer to the conversation, its events ending with done or error; closing the stream aborts it.
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
        const completion = newCompletion(agent.model);
        if (!stream) return c.json(chatCompletion(completion, await collectResponse(events)));
        const encode = chatChunkEncoder(completion, body.stream_options?.include_usage === true);
        return streamEvents(events, controller, {}, encode, "data: [DONE]\n\n");
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
        const shell = newResponse(agent.model, body.instructions ?? null);
        if (stream) return streamEvents(events, controller, {}, responseEventEncoder(shell));
        const result = await collectResponse(events);
        return c.json(responseObject(shell, result.conversationId, result));
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
