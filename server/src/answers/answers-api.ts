import {
  answerEventSchema,
  feedbackRequestSchema,
  queryRequestSchema,
  queryResponseSchema,
  searchRequestSchema,
  searchResponseSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent, streamableResponse } from "../http/route.ts";

export const answerEvent = answerEventSchema.openapi("AnswerEvent");

export const queryAgent = apiRoute({
  method: "post",
  path: "/agents/{agentId}/query/",
  summary: "Ask the agent: a grounded answer with citations (JSON, or SSE with Accept: text/event-stream)",
  description:
    "Charged to the caller's limit and to the agent's per-minute query limit. An unknown or other agent's `conversationId` is 404; `dataSourceIds` not attached to the agent is 400. While an attached source has never been ready: 503 `agent_processing` with `Retry-After`, unless `dataSourceIds` names only ready sources. Streamed: `start`, `token`…, `sources`, then `done` (the QueryResponse without `response`) or `error` (`{type, error, message}`); each event has an `id:` line (`<messageId>:<seq>`, from 0) and no `event:` name; `: heartbeat` comments every 15 s; errors found before `start` are plain HTTP errors.",
  tag: "Answers",
  auth: "user-or-key",
  role: "viewer",
  charge: "query",
  request: { body: jsonBody(queryRequestSchema) },
  responses: { 200: streamableResponse(queryResponseSchema, answerEvent) },
  errors: ["agent_processing", "upstream_error"],
});

export const searchAgent = apiRoute({
  method: "post",
  path: "/agents/{agentId}/search/",
  summary: "Retrieval only: the ranked chunks the agent would use",
  description:
    "Scores are 0..1; the agent's `minScore` applies; `topK` and `mode` default to the agent's. Charged like any request (not to the agent's query limit).",
  tag: "Answers",
  auth: "user-or-key",
  role: "viewer",
  request: { body: jsonBody(searchRequestSchema) },
  responses: { 200: jsonResponse(searchResponseSchema) },
  errors: ["agent_processing", "upstream_error"],
});

export const rateAnswer = apiRoute({
  method: "post",
  path: "/agents/{agentId}/messages/{messageId}/feedback/",
  summary: "Rate an answer up or down",
  description:
    "Only assistant messages can be rated (a user message is 400); rating again replaces the rating.",
  tag: "Answers",
  auth: "user-or-key",
  role: "viewer",
  request: { body: jsonBody(feedbackRequestSchema) },
  responses: { 204: noContent },
});
