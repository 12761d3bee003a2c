import type { z } from "@hono/zod-openapi";
import {
  addMemberRequestSchema,
  agentSchema,
  analyticsQuerySchema,
  analyticsSchema,
  answerEventSchema,
  apiKeySchema,
  chatCompletionRequestSchema,
  conversationSchema,
  createAgentRequestSchema,
  createApiKeyRequestSchema,
  createDataSourceRequestSchema,
  createdApiKeySchema,
  createdWebhookSchema,
  createWebhookRequestSchema,
  createWorkspaceRequestSchema,
  dataSourceSchema,
  documentSchema,
  type ErrorCode,
  feedbackRequestSchema,
  loginRequestSchema,
  loginResponseSchema,
  memberSchema,
  meResponseSchema,
  pageQuerySchema,
  pageSchema,
  queryRequestSchema,
  queryResponseSchema,
  type Role,
  refreshRequestSchema,
  refreshResponseSchema,
  searchRequestSchema,
  syncRunSchema,
  updateAgentRequestSchema,
  updateDataSourceRequestSchema,
  updateMemberRequestSchema,
  updateWebhookRequestSchema,
  webhookDeliveriesQuerySchema,
  webhookDeliverySchema,
  webhookSchema,
  widgetConfigSchema,
  workspaceSchema,
} from "@lore/shared";
import {
  chatCompletionChunkSchema,
  chatCompletionResponseSchema,
  conversationWithMessagesSchema,
  createFileSourceFormSchema,
  healthSchema,
  listAgentsQuerySchema,
  listDataSourcesQuerySchema,
  readinessSchema,
  searchResultSchema,
  uploadFilesFormSchema,
  uploadFilesResponseSchema,
  widgetFeedbackRequestSchema,
  widgetQueryBodySchema,
  widgetQueryResponseSchema,
} from "./provisional-schemas.ts";

/**
 * Every endpoint of the product, in one table: the OpenAPI document and docs/api.md are built
 * from it, and a test fails when the app registers a route that has no row here.
 */

/** `none`: no credential (the widget's routes check the page's Origin instead); `user`: a user's
 * access token (an API key gets 403); `user-or-key`: a user token, or an API key of the agent in the path. */
export type RouteAuth = "none" | "user" | "user-or-key";
export type Tag =
  | "Meta"
  | "Auth"
  | "Workspaces"
  | "Agents"
  | "API keys"
  | "Data sources"
  | "Answers"
  | "Conversations"
  | "Analytics"
  | "Webhooks"
  | "Widget";
export type Method = "get" | "post" | "patch" | "delete";

export interface RouteSpec {
  method: Method;
  /** Relative to the API prefix, OpenAPI style: `/agents/{agentId}/`. `~/x` is outside the prefix. */
  path: string;
  summary: string;
  tag: Tag;
  auth: RouteAuth;
  /** The least workspace role a user token needs (the workspace of the resource in the path). */
  role?: Role;
  description?: string;
  /** A JSON request body. */
  body?: z.ZodType;
  /** A multipart/form-data request body (alternative to `body`, or the only one). */
  multipart?: z.ZodType;
  query?: z.ZodObject;
  status: 200 | 201 | 202 | 204;
  /** The success body; null for 204. */
  response: z.ZodType | null;
  /** The schema of each `data:` event when the answer is streamed. */
  stream?: z.ZodType;
  /** How a client asks for the stream (default `Accept: text/event-stream`). */
  streamWhen?: string;
  /** Codes beyond the ones implied by auth, body and path ids (see `routeErrors`). */
  errors: ErrorCode[];
}

const page = <T extends z.ZodType>(item: T, name: string) => pageSchema(item).openapi(name);
const agentPage = page(agentSchema, "AgentPage");
const body = <T extends z.ZodType>(schema: T, name: string) => schema.openapi(name);

export const routesTable: RouteSpec[] = [
  // Meta
  {
    method: "get",
    path: "~/healthz",
    summary: "Liveness: the process answers",
    tag: "Meta",
    auth: "none",
    status: 200,
    response: healthSchema,
    errors: [],
  },
  {
    method: "get",
    path: "~/readyz",
    summary: "Readiness: the store is open and migrated",
    tag: "Meta",
    auth: "none",
    status: 200,
    response: readinessSchema,
    errors: [],
  },
  {
    method: "get",
    path: "/openapi.json",
    summary: "This OpenAPI 3.1 document",
    tag: "Meta",
    auth: "none",
    status: 200,
    response: null,
    errors: [],
  },

  // Auth
  {
    method: "post",
    path: "/auth/login/",
    summary: "Log in with email and password",
    tag: "Auth",
    auth: "none",
    body: body(loginRequestSchema, "LoginRequest"),
    status: 200,
    response: loginResponseSchema,
    errors: ["invalid_credentials"],
    description:
      "Repeated failures for one account or IP are refused with 429 `rate_limited` for 15 minutes.",
  },
  {
    method: "post",
    path: "/auth/token/refresh/",
    summary: "Exchange a refresh token for a new access token (and a rotated refresh token)",
    tag: "Auth",
    auth: "none",
    body: body(refreshRequestSchema, "RefreshRequest"),
    status: 200,
    response: body(refreshResponseSchema, "RefreshResponse"),
    errors: ["invalid_token", "token_expired"],
    description:
      "Refresh tokens are single-use: the presented one is spent and a new pair returned. Presenting a spent refresh token again is treated as a leak: 401 `invalid_token`, and every token of the user is revoked (as by logout).",
  },
  {
    method: "post",
    path: "/auth/logout/",
    summary: "Invalidate every access and refresh token issued to the user so far",
    tag: "Auth",
    auth: "user",
    status: 204,
    response: null,
    errors: [],
  },
  {
    method: "get",
    path: "/auth/me/",
    summary: "The user, their workspaces and roles",
    tag: "Auth",
    auth: "user",
    status: 200,
    response: body(meResponseSchema, "Me"),
    errors: [],
  },

  // Workspaces
  {
    method: "get",
    path: "/workspaces/",
    summary: "List the caller's workspaces with their role",
    tag: "Workspaces",
    auth: "user",
    status: 200,
    response: page(workspaceSchema, "WorkspacePage"),
    errors: [],
  },
  {
    method: "post",
    path: "/workspaces/",
    summary: "Create a workspace (the caller becomes its owner)",
    tag: "Workspaces",
    auth: "user",
    body: body(createWorkspaceRequestSchema, "CreateWorkspace"),
    status: 201,
    response: workspaceSchema,
    errors: [],
  },
  {
    method: "get",
    path: "/workspaces/{workspaceId}/members/",
    summary: "List members",
    tag: "Workspaces",
    auth: "user",
    role: "viewer",
    status: 200,
    response: page(memberSchema, "MemberPage"),
    errors: [],
  },
  {
    method: "post",
    path: "/workspaces/{workspaceId}/members/",
    summary: "Add an existing user by email",
    tag: "Workspaces",
    auth: "user",
    role: "admin",
    body: body(addMemberRequestSchema, "AddMember"),
    status: 201,
    response: memberSchema,
    errors: ["conflict"],
    description: "Only owners may add owners. Unknown email → 400 with `details.fields.email`.",
  },
  {
    method: "patch",
    path: "/workspaces/{workspaceId}/members/{userId}/",
    summary: "Change a member's role",
    tag: "Workspaces",
    auth: "user",
    role: "admin",
    body: body(updateMemberRequestSchema, "UpdateMember"),
    status: 200,
    response: memberSchema,
    errors: ["conflict"],
    description: "Only owners grant or change the owner role; the last owner cannot be demoted (409).",
  },
  {
    method: "delete",
    path: "/workspaces/{workspaceId}/members/{userId}/",
    summary: "Remove a member (any member may remove themselves)",
    tag: "Workspaces",
    auth: "user",
    role: "admin",
    status: 204,
    response: null,
    errors: ["conflict"],
  },

  // Webhooks
  {
    method: "get",
    path: "/workspaces/{workspaceId}/webhooks/",
    summary: "List webhook subscriptions",
    tag: "Webhooks",
    auth: "user",
    role: "admin",
    query: pageQuerySchema,
    status: 200,
    response: page(webhookSchema, "WebhookPage"),
    errors: ["validation_error"],
  },
  {
    method: "post",
    path: "/workspaces/{workspaceId}/webhooks/",
    summary: "Subscribe a URL to events (the signing secret is shown once)",
    tag: "Webhooks",
    auth: "user",
    role: "admin",
    body: createWebhookRequestSchema,
    status: 201,
    response: createdWebhookSchema,
    errors: [],
  },
  {
    method: "get",
    path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
    summary: "Get a webhook subscription",
    tag: "Webhooks",
    auth: "user",
    role: "admin",
    status: 200,
    response: webhookSchema,
    errors: [],
  },
  {
    method: "patch",
    path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
    summary: "Update a webhook subscription (url, events, active)",
    tag: "Webhooks",
    auth: "user",
    role: "admin",
    body: updateWebhookRequestSchema,
    status: 200,
    response: webhookSchema,
    errors: [],
  },
  {
    method: "delete",
    path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
    summary: "Delete a webhook subscription",
    tag: "Webhooks",
    auth: "user",
    role: "admin",
    status: 204,
    response: null,
    errors: [],
  },
  {
    method: "get",
    path: "/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/",
    summary: "The delivery log of a subscription (filter by `status`)",
    tag: "Webhooks",
    auth: "user",
    role: "admin",
    query: webhookDeliveriesQuerySchema,
    status: 200,
    response: page(webhookDeliverySchema, "WebhookDeliveryPage"),
    errors: ["validation_error"],
  },

  // Agents
  {
    method: "get",
    path: "/agents/",
    summary: "List agents of the caller's workspaces (an API key sees its own agent)",
    tag: "Agents",
    auth: "user-or-key",
    query: listAgentsQuerySchema,
    status: 200,
    response: agentPage,
    errors: ["validation_error", "not_found"],
  },
  {
    method: "post",
    path: "/agents/",
    summary: "Create an agent (in `workspaceId`, default the caller's personal workspace)",
    tag: "Agents",
    auth: "user",
    role: "editor",
    body: createAgentRequestSchema,
    status: 201,
    response: agentSchema,
    errors: ["not_found"],
  },
  {
    method: "get",
    path: "/agents/{agentId}/",
    summary: "Get an agent",
    tag: "Agents",
    auth: "user-or-key",
    role: "viewer",
    status: 200,
    response: agentSchema,
    errors: [],
  },
  {
    method: "patch",
    path: "/agents/{agentId}/",
    summary: "Update an agent (partial)",
    tag: "Agents",
    auth: "user-or-key",
    role: "editor",
    body: updateAgentRequestSchema,
    status: 200,
    response: agentSchema,
    errors: [],
  },
  {
    method: "delete",
    path: "/agents/{agentId}/",
    summary: "Delete an agent with its keys and conversations",
    tag: "Agents",
    auth: "user",
    role: "editor",
    status: 204,
    response: null,
    errors: [],
  },

  // API keys
  {
    method: "get",
    path: "/agents/{agentId}/api-keys/",
    summary: "List an agent's API keys (never the secret)",
    tag: "API keys",
    auth: "user",
    role: "admin",
    status: 200,
    response: page(apiKeySchema, "ApiKeyPage"),
    errors: [],
  },
  {
    method: "post",
    path: "/agents/{agentId}/api-keys/",
    summary: "Create an API key (`key` is shown once)",
    tag: "API keys",
    auth: "user",
    role: "admin",
    body: body(createApiKeyRequestSchema, "CreateApiKey"),
    status: 201,
    response: createdApiKeySchema,
    errors: [],
  },
  {
    method: "delete",
    path: "/agents/{agentId}/api-keys/{keyId}/",
    summary: "Revoke an API key",
    tag: "API keys",
    auth: "user",
    role: "admin",
    status: 204,
    response: null,
    errors: [],
  },

  // Answers
  {
    method: "post",
    path: "/agents/{agentId}/query/",
    summary: "Ask the agent: a grounded answer with citations (JSON, or SSE with Accept: text/event-stream)",
    tag: "Answers",
    auth: "user-or-key",
    role: "viewer",
    body: queryRequestSchema,
    status: 200,
    response: queryResponseSchema,
    stream: answerEventSchema.openapi("AnswerEvent"),
    errors: ["agent_processing", "upstream_error"],
    description:
      "Charged to the caller's limit and to the agent's per-minute query limit. An unknown or other agent's `conversationId` is 404; `dataSourceIds` not attached to the agent is 400. While an attached source has never been ready: 503 `agent_processing` with `Retry-After`, unless `dataSourceIds` names only ready sources. Streamed: `start`, `token`…, `sources`, then `done` (the QueryResponse without `response`) or `error` (`{type, error, message}`); `: heartbeat` comments every 15 s; errors found before `start` are plain HTTP errors.",
  },
  {
    method: "post",
    path: "/agents/{agentId}/search/",
    summary: "Retrieval only: the ranked chunks the agent would use",
    tag: "Answers",
    auth: "user-or-key",
    role: "viewer",
    body: searchRequestSchema,
    status: 200,
    response: searchResultSchema,
    errors: ["agent_processing", "upstream_error"],
    description:
      "Scores are 0..1; the agent's `minScore` applies; `topK` and `mode` default to the agent's. Charged like any request (not to the agent's query limit).",
  },
  {
    method: "post",
    path: "/agents/{agentId}/chat/completions/",
    summary: "OpenAI-compatible chat completions (streaming or not), with the citations kept",
    tag: "Answers",
    auth: "user-or-key",
    role: "viewer",
    body: body(chatCompletionRequestSchema, "ChatCompletionRequest"),
    status: 200,
    response: chatCompletionResponseSchema,
    stream: chatCompletionChunkSchema,
    streamWhen: "`stream: true` in the body",
    errors: ["agent_processing", "upstream_error"],
    description:
      "The last message must be a non-empty `user` message; `system` messages are ignored and the 10 turns before the last are the history (no stored conversation is continued, a new one is stored). `model` is ignored: the agent's model answers. With `stream: true` the answer is sent as `chat.completion.chunk` SSE events ending with `data: [DONE]`; the first carries `conversationId`, the last `sources` and `usage`.",
  },
  {
    method: "post",
    path: "/agents/{agentId}/messages/{messageId}/feedback/",
    summary: "Rate an answer up or down",
    tag: "Answers",
    auth: "user-or-key",
    role: "viewer",
    body: feedbackRequestSchema,
    status: 204,
    response: null,
    errors: [],
    description:
      "Only assistant messages can be rated (a user message is 400); rating again replaces the rating.",
  },

  // Conversations
  {
    method: "get",
    path: "/agents/{agentId}/conversations/",
    summary: "List conversations, newest activity first",
    tag: "Conversations",
    auth: "user-or-key",
    role: "viewer",
    query: pageQuerySchema,
    status: 200,
    response: page(conversationSchema, "ConversationPage"),
    errors: ["validation_error"],
  },
  {
    method: "get",
    path: "/agents/{agentId}/conversations/{conversationId}/",
    summary: "A conversation with its messages",
    tag: "Conversations",
    auth: "user-or-key",
    role: "viewer",
    status: 200,
    response: conversationWithMessagesSchema,
    errors: [],
  },
  {
    method: "delete",
    path: "/agents/{agentId}/conversations/{conversationId}/",
    summary: "Delete a conversation and its messages",
    tag: "Conversations",
    auth: "user-or-key",
    role: "editor",
    status: 204,
    response: null,
    errors: [],
  },

  // Analytics
  {
    method: "get",
    path: "/analytics/agents/{agentId}/",
    summary: "Usage and answer quality of an agent over a period",
    tag: "Analytics",
    auth: "user-or-key",
    role: "viewer",
    query: analyticsQuerySchema,
    status: 200,
    response: analyticsSchema,
    errors: ["validation_error"],
  },

  // Data sources
  {
    method: "get",
    path: "/data-sources/",
    summary: "List data sources of the caller's workspaces, newest first",
    tag: "Data sources",
    auth: "user",
    query: listDataSourcesQuerySchema,
    status: 200,
    response: page(dataSourceSchema, "DataSourcePage"),
    errors: ["validation_error", "not_found"],
  },
  {
    method: "post",
    path: "/data-sources/",
    summary: "Create a data source (JSON for text/web/notion, multipart for files); queues its first sync",
    tag: "Data sources",
    auth: "user",
    role: "editor",
    body: createDataSourceRequestSchema,
    multipart: createFileSourceFormSchema,
    status: 201,
    response: dataSourceSchema,
    errors: ["not_found"],
    description:
      "`workspaceId` defaults to the caller's personal workspace. A web URL that resolves to a private or loopback address is 400. Files: empty → 400, unsupported type → 415 with `details.supported`.",
  },
  {
    method: "get",
    path: "/data-sources/{dataSourceId}/",
    summary: "Get a data source with its sync status and progress",
    tag: "Data sources",
    auth: "user",
    role: "viewer",
    status: 200,
    response: dataSourceSchema,
    errors: [],
  },
  {
    method: "patch",
    path: "/data-sources/{dataSourceId}/",
    summary: "Update name, config or schedule (a config change queues a sync)",
    tag: "Data sources",
    auth: "user",
    role: "editor",
    body: body(updateDataSourceRequestSchema, "UpdateDataSource"),
    status: 200,
    response: dataSourceSchema,
    errors: [],
  },
  {
    method: "delete",
    path: "/data-sources/{dataSourceId}/",
    summary: "Delete a data source: never retrieved again, everything it owned purged",
    tag: "Data sources",
    auth: "user",
    role: "editor",
    status: 204,
    response: null,
    errors: [],
  },
  {
    method: "post",
    path: "/data-sources/{dataSourceId}/sync/",
    summary: "Queue a sync (returns the queued or running one if a sync is already under way)",
    tag: "Data sources",
    auth: "user",
    role: "editor",
    status: 202,
    response: syncRunSchema,
    errors: [],
  },
  {
    method: "post",
    path: "/data-sources/{dataSourceId}/files/",
    summary: "Add files to a file source; queues a sync",
    tag: "Data sources",
    auth: "user",
    role: "editor",
    multipart: uploadFilesFormSchema,
    status: 201,
    response: uploadFilesResponseSchema,
    errors: [],
    description:
      "A body that is not `multipart/form-data` is 415; a source that is not a `file` source is 400. The new documents are `pending` until the returned sync run indexes them.",
  },
  {
    method: "delete",
    path: "/data-sources/{dataSourceId}/files/{documentId}/",
    summary: "Remove one file (document) from a file source",
    tag: "Data sources",
    auth: "user",
    role: "editor",
    status: 204,
    response: null,
    errors: [],
  },
  {
    method: "get",
    path: "/data-sources/{dataSourceId}/documents/",
    summary: "The documents of a source, with their chunk counts and failures",
    tag: "Data sources",
    auth: "user",
    role: "viewer",
    query: pageQuerySchema,
    status: 200,
    response: page(documentSchema, "DocumentPage"),
    errors: ["validation_error"],
  },
  {
    method: "get",
    path: "/data-sources/{dataSourceId}/syncs/",
    summary: "The sync history of a source (counts, timings, errors)",
    tag: "Data sources",
    auth: "user",
    role: "viewer",
    query: pageQuerySchema,
    status: 200,
    response: page(syncRunSchema, "SyncRunPage"),
    errors: ["validation_error"],
  },

  // Widget (public; the page's Origin must be in the agent's allowedOrigins)
  {
    method: "get",
    path: "/widget/{widgetId}/config/",
    summary: "What the widget shows before the first question",
    tag: "Widget",
    auth: "none",
    status: 200,
    response: widgetConfigSchema,
    errors: ["not_found", "origin_not_allowed"],
  },
  {
    method: "post",
    path: "/widget/{widgetId}/query/",
    summary:
      "The widget's question: like the agent query, plus a visitor token that continues the conversation",
    tag: "Widget",
    auth: "none",
    body: widgetQueryBodySchema,
    status: 200,
    response: widgetQueryResponseSchema,
    stream: answerEventSchema.openapi("AnswerEvent"),
    errors: [
      "not_found",
      "origin_not_allowed",
      "agent_processing",
      "upstream_error",
      "invalid_token",
      "token_expired",
    ],
    description:
      "Counted against the per-IP unauthenticated limit and the agent's query limit. A `conversationId` without the visitor token that started it is 404; an invalid or expired visitor token is 401. In the SSE form the `start` event carries `visitorToken`.",
  },
  {
    method: "post",
    path: "/widget/{widgetId}/messages/{messageId}/feedback/",
    summary: "A visitor rates an answer of their own conversation",
    tag: "Widget",
    auth: "none",
    body: widgetFeedbackRequestSchema,
    status: 204,
    response: null,
    errors: ["not_found", "origin_not_allowed", "invalid_token", "token_expired"],
  },
];

const credentialErrors: ErrorCode[] = [
  "not_authenticated",
  "invalid_token",
  "token_expired",
  "invalid_api_key",
  "permission_denied",
];
const bodyErrors: ErrorCode[] = ["validation_error", "unsupported_media_type", "payload_too_large"];

/** Every error code a route can answer with: its own plus those its auth, body and path ids imply. */
export function routeErrors(route: RouteSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors);
  if (route.auth !== "none") for (const c of credentialErrors) codes.add(c);
  if (route.body || route.multipart) for (const c of bodyErrors) codes.add(c);
  if (/\{\w+\}/.test(route.path)) codes.add("not_found");
  if (!route.path.startsWith("~")) codes.add("rate_limited");
  return [...codes];
}

/** `widgetId` is an opaque string; every other path id is a UUID. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
}
