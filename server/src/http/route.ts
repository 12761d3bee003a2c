import {
  createRoute,
  type RouteHandler as OpenApiRouteHandler,
  type RouteConfig,
  type z,
} from "@hono/zod-openapi";
import type { ErrorCode, Role } from "@lore/shared";
import type { Context } from "hono";
import type { AppEnv } from "./principal.ts";
import { parseQuery, pathId, readJson } from "./validate.ts";

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
  | "OpenAI-compatible"
  | "Conversations"
  | "Analytics"
  | "Webhooks"
  | "Widget";

/** What Lore declares beside the OpenAPI operation. */
export interface RouteMeta {
  tag: Tag;
  auth: RouteAuth;
  /** The least workspace role a user token needs (the workspace of the resource in the path). */
  role?: Role;
  /** Codes beyond the ones implied by auth, body and path ids (see `routeErrors`). */
  errors?: ErrorCode[];
  /** Served at the site root, not under the API prefix, and never rate limited (health checks). */
  root?: true;
  /** A question: charged to the caller and to the agent's per-minute query limit. */
  charge?: "query";
  /**
   * The Authorization header is not read at all (login, refresh): a client that attaches its
   * expired access token to every request can still get a new one.
   */
  ignoresAuthorization?: true;
  /** A bulk load read as a stream: its body may reach `LORE_MAX_BULK_BYTES` instead of the JSON cap. */
  bulkBody?: true;
  /**
   * A smaller body cap than `LORE_MAX_JSON_BYTES` (issue #49: an anonymous route parsed a 10 MB body
   * of 600,000 keys): checked before the body is read, 413 past it.
   */
  maxBodyBytes?: number;
  /** Errors in OpenAI's shape (`{error: {message, type, code, param}}`): the OpenAI-compatible routes. */
  errorFormat?: "openai";
}

/** Body caps of anonymous routes: logins and tokens, and a question (10,000 characters, escaped as JSON may). */
export const SMALL_BODY_BYTES = 8 * 1024;
export const QUESTION_BODY_BYTES = 96 * 1024;

export type ApiRoute = RouteConfig & RouteMeta & { getRoutingPath(): string };

/** Declares one endpoint: the OpenAPI operation (schemas from `shared`) with its auth, role and charging. */
export function apiRoute<P extends string, R extends Omit<RouteConfig, "path"> & RouteMeta & { path: P }>(
  route: R,
) {
  return createRoute<P, R>(route);
}

/** A JSON request body. */
export function jsonBody<S extends z.ZodType>(schema: S) {
  return { content: { "application/json": { schema } }, required: true } as const;
}

/** A JSON success response. */
export function jsonResponse<S extends z.ZodType>(schema: S) {
  return { description: "Success", content: { "application/json": { schema } } } as const;
}

/** A JSON response, or Server-Sent Events (one `data: {json}` line per event) when the client asks. */
export function streamableResponse<S extends z.ZodType, E extends z.ZodType>(
  schema: S,
  event: E,
  when = "`Accept: text/event-stream`",
) {
  return {
    description: `JSON by default; with ${when}, Server-Sent Events: one \`data: {json}\` line per event`,
    content: { "application/json": { schema }, "text/event-stream": { schema: event } },
  } as const;
}

export const noContent = { description: "Done; no body" } as const;

type JsonSchemaOf<R> = R extends {
  request: { body: { content: { "application/json": { schema: infer S extends z.ZodType } } } };
}
  ? S
  : never;
type QuerySchemaOf<R> = R extends { request: { query: infer S extends z.ZodType } } ? S : never;
type ParamName<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamName<Rest>
  : never;

/**
 * The request as the route declares it, validated when the handler reads it: after its access
 * checks (a refused caller gets 401/403/404, not 400), with Lore's own parsing (415, fatal UTF-8,
 * forbidden keys, `validation_error` details) rather than zod-openapi's validators and their format.
 */
export interface RouteInput<R extends ApiRoute> {
  /** The JSON body: 415 for another content type, 400 for malformed JSON or a schema mismatch. */
  json(): Promise<z.output<JsonSchemaOf<R>>>;
  /** The query parameters: 400 for a schema mismatch. */
  query(): z.output<QuerySchemaOf<R>>;
  /** A UUID path id: anything else names nothing, 404 naming the resource. */
  id(name: ParamName<R["path"]>): string;
}

/** The resource each path id names, for 404 details. */
const resourceOfParam: Record<string, string> = {
  agentId: "agent",
  keyId: "api_key",
  conversationId: "conversation",
  messageId: "message",
  dataSourceId: "data_source",
  documentId: "document",
  workspaceId: "workspace",
  userId: "member",
  webhookId: "webhook",
  invitationId: "invitation",
  modelId: "model",
  handoffId: "handoff",
};

function routeInput<R extends ApiRoute>(route: R, c: Context<AppEnv>): RouteInput<R> {
  return {
    json: () => {
      const media = route.request?.body?.content["application/json"];
      if (!media || !("schema" in media))
        throw new Error(`${route.method} ${route.path} declares no JSON body`);
      return readJson(c, media.schema as unknown as JsonSchemaOf<R>);
    },
    query: () => {
      const schema = route.request?.query;
      if (!schema) throw new Error(`${route.method} ${route.path} declares no query`);
      return parseQuery(c, schema as unknown as QuerySchemaOf<R>);
    },
    id: (name) => pathId(c, name, resourceOfParam[name] ?? name),
  };
}

/** What a handler may return: a response of a declared status with its declared body type. */
type RouteResult<R extends ApiRoute> = ReturnType<OpenApiRouteHandler<R, AppEnv>>;

export type RouteHandler<R extends ApiRoute> = (c: Context<AppEnv>, input: RouteInput<R>) => RouteResult<R>;

/**
 * What a request is charged to, found before its handler runs: a question to agent `id` (charged
 * with the caller; a widget visitor with a valid token is the caller, else the client IP), or a
 * widget's config read, which has a bucket of its own and never spends the question quota.
 * `questions` (default 1) is how many questions the request asks: an MCP batch is charged one per
 * `search`/`ask` call, and a message that asks none is an ordinary request of the caller.
 */
export type ChargeTarget = { id: string; visitorId?: string; questions?: number } | { widgetConfig: string };

/** A declared route with its handler, ready for the composition root to mount. */
export interface Endpoint {
  route: ApiRoute;
  handle: (c: Context<AppEnv>) => Response | Promise<Response>;
  /**
   * For `charge: "query"` routes (and the widget config): what the request is charged to, access
   * checked. The composition root mounts these with `rateLimitQuery` instead of `rateLimit`.
   */
  queryAgent?: (c: Context<AppEnv>) => ChargeTarget | Promise<ChargeTarget>;
  /**
   * For answer streams a client may resume with `Last-Event-ID`: who is asking, as the stream was
   * kept for (access checked). Such a request is answered from the kept stream before any charge.
   */
  resumeOwner?: (c: Context<AppEnv>) => string | Promise<string>;
}

/** Pairs a declared route with its handler. */
export function endpoint<R extends ApiRoute>(
  route: R,
  handler: RouteHandler<R>,
  options: {
    queryAgent?: (c: Context<AppEnv>, input: RouteInput<R>) => ChargeTarget | Promise<ChargeTarget>;
    resumeOwner?: (c: Context<AppEnv>, input: RouteInput<R>) => string | Promise<string>;
  } = {},
): Endpoint {
  const { queryAgent, resumeOwner } = options;
  return {
    route,
    handle: async (c) => (await handler(c, routeInput(route, c))) as Response,
    ...(queryAgent ? { queryAgent: (c: Context<AppEnv>) => queryAgent(c, routeInput(route, c)) } : {}),
    ...(resumeOwner ? { resumeOwner: (c: Context<AppEnv>) => resumeOwner(c, routeInput(route, c)) } : {}),
  };
}

const credentialErrors: ErrorCode[] = [
  "not_authenticated",
  "invalid_token",
  "token_expired",
  "invalid_api_key",
  "permission_denied",
];
const bodyErrors: ErrorCode[] = ["validation_error", "unsupported_media_type", "payload_too_large"];

/** Every error code a route can answer with: its own plus those its auth, body and path ids imply. */
export function routeErrors(route: ApiRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  if (route.auth !== "none") for (const c of credentialErrors) codes.add(c);
  if (route.request?.body) for (const c of bodyErrors) codes.add(c);
  if (/\{\w+\}/.test(route.path)) codes.add("not_found");
  if (!route.root) codes.add("rate_limited");
  return [...codes];
}

/** The names of a path's `{params}`. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
}
