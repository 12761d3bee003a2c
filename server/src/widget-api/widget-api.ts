import {
  visitorTranscriptRequestSchema,
  visitorTranscriptSchema,
  widgetConfigSchema,
  widgetFeedbackRequestSchema,
  widgetFirstHandoffRequestSchema,
  widgetFirstHandoffResponseSchema,
  widgetHandoffRequestSchema,
  widgetHandoffResponseSchema,
  widgetQueryRequestSchema,
  widgetQueryResponseSchema,
} from "@lore/shared";
import { answerEvent } from "../answers/answers-api.ts";
import {
  apiRoute,
  jsonBody,
  jsonResponse,
  noContent,
  QUESTION_BODY_BYTES,
  SMALL_BODY_BYTES,
  streamableResponse,
} from "../http/route.ts";

// Public: no credential, the page's Origin must be in the agent's allowedOrigins.

export const widgetConfig = apiRoute({
  method: "get",
  path: "/widget/{widgetId}/config/",
  summary: "What the widget shows before the first question",
  description:
    "Not a question: charged to its own per-IP bucket (`widget_config_per_hour`, ten times the anonymous limit), never to the visitor's question quota. A refused origin or unknown widget is charged to the anonymous limit.",
  tag: "Widget",
  auth: "none",
  responses: { 200: jsonResponse(widgetConfigSchema) },
  errors: ["not_found", "origin_not_allowed"],
});

export const widgetQuery = apiRoute({
  method: "post",
  path: "/widget/{widgetId}/query/",
  maxBodyBytes: QUESTION_BODY_BYTES,
  summary:
    "The widget's question: like the agent query, plus a visitor token that continues the conversation",
  description:
    "Counted against the unauthenticated limit (per visitor with a valid visitor token, else per IP) and the agent's query limit. A `conversationId` without the visitor token that started it is 404; an invalid or expired visitor token is 401. In the SSE form the `start` event carries `visitorToken`, and every event has an `id:` line (`<messageId>:<seq>`).",
  tag: "Widget",
  auth: "none",
  charge: "query",
  request: { body: jsonBody(widgetQueryRequestSchema) },
  responses: { 200: streamableResponse(widgetQueryResponseSchema, answerEvent) },
  errors: [
    "not_found",
    "origin_not_allowed",
    "agent_processing",
    "upstream_error",
    "invalid_token",
    "token_expired",
  ],
});

export const widgetFeedback = apiRoute({
  method: "post",
  path: "/widget/{widgetId}/messages/{messageId}/feedback/",
  maxBodyBytes: QUESTION_BODY_BYTES,
  summary: "A visitor rates an answer of their own conversation",
  tag: "Widget",
  auth: "none",
  request: { body: jsonBody(widgetFeedbackRequestSchema) },
  responses: { 204: noContent },
  errors: ["not_found", "origin_not_allowed", "invalid_token", "token_expired"],
});

export const widgetHandoff = apiRoute({
  method: "post",
  path: "/widget/{widgetId}/conversations/{conversationId}/handoff/",
  maxBodyBytes: QUESTION_BODY_BYTES,
  summary: "A visitor asks for a person: their e-mail and message, on their own conversation",
  description:
    "Only when the agent's `handoff.mode` is `form` (otherwise 400). The request is stored before anyone is told: then the `conversation.handoff_requested` webhook fires with the transcript, and with `LORE_SMTP_URL` set the workspace's owners are e-mailed. Bad input is 400 `validation_error` naming each field (`email`, `message`, `name`). Limited to `LORE_LIMIT_HANDOFFS_PER_HOUR` (default 5) per visitor and four times that per client IP, per hour (429 `handoffs_per_hour`). Another visitor's or an unknown conversation is 404.",
  tag: "Widget",
  auth: "none",
  request: { body: jsonBody(widgetHandoffRequestSchema) },
  responses: { 201: jsonResponse(widgetHandoffResponseSchema) },
  errors: ["not_found", "origin_not_allowed", "invalid_token", "token_expired"],
});

export const widgetFirstHandoff = apiRoute({
  method: "post",
  path: "/widget/{widgetId}/handoff/",
  maxBodyBytes: QUESTION_BODY_BYTES,
  summary: "A visitor asks for a person before asking anything: the request starts their conversation",
  description:
    "Like `…/conversations/{conversationId}/handoff/`, with the same checks and limits (`handoffs_per_hour`, per visitor and four times that per client IP), but the request starts a new widget conversation (titled with the message) that the owner sees with its open contact request; the response carries its `conversationId` and a `visitorToken` to continue it with questions. A `visitorToken` in the body (optional) keeps the visitor the same one; an invalid or expired one is 401.",
  tag: "Widget",
  auth: "none",
  request: { body: jsonBody(widgetFirstHandoffRequestSchema) },
  responses: { 201: jsonResponse(widgetFirstHandoffResponseSchema) },
  errors: ["origin_not_allowed", "invalid_token", "token_expired"],
});

export const widgetConversation = apiRoute({
  method: "post",
  path: "/widget/{widgetId}/conversations/{conversationId}/",
  maxBodyBytes: SMALL_BODY_BYTES,
  summary:
    "A visitor reads their own conversation as stored (a reload picks up an answer finished meanwhile)",
  description:
    "POST so the visitor token travels in the body, never in a URL. Another visitor's or an unknown conversation is 404. Not a question: no quota is spent.",
  tag: "Widget",
  auth: "none",
  request: { body: jsonBody(visitorTranscriptRequestSchema) },
  responses: { 200: jsonResponse(visitorTranscriptSchema) },
  errors: ["not_found", "origin_not_allowed", "invalid_token", "token_expired"],
});
