import { OpenAPIHono, z } from "@hono/zod-openapi";
import { type ErrorCode, errorBodySchema, openAiErrorBodySchema } from "@lore/shared";
import { apiRoutes } from "../api.ts";
import { statusByCode } from "../errors.ts";
import { type ApiRoute, pathParams, routeErrors, type Tag } from "../http/route.ts";

type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

const tagDescriptions: Record<Tag, string> = {
  Meta: "Health and this document",
  Auth: "Log in, refresh, log out: JWT access and refresh tokens",
  Workspaces: "Tenancy: workspaces, members and their roles (owner, admin, editor, viewer)",
  Agents: "Configurable assistants answering from a workspace's data sources",
  "API keys": "Per-agent secrets for server-to-server calls (managed with a user token only)",
  "Data sources": "The knowledge base: files, web pages, Notion, inline text; sync and its history",
  Answers: "Grounded answers with citations, whole or streamed",
  "OpenAI-compatible":
    "The agent as an OpenAI endpoint: base URL `/agents/{agentId}/` for the OpenAI SDKs, the AI SDK and LangChain; errors in OpenAI's shape",
  Conversations: "Stored conversations of an agent",
  Analytics: "Usage and answer quality per agent",
  Webhooks: "Signed outbound notifications of a workspace's events",
  Widget: "The embeddable widget's public routes (Origin-checked, no secret)",
};

const rateLimitHeaders = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
};

function operationId(route: ApiRoute): string {
  const words = route.path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.replace(/^./, (ch) => ch.toUpperCase()));
  return `${route.method}${words.join("")}`;
}

function security(route: ApiRoute): Array<Record<string, string[]>> {
  if (route.auth === "none") return [];
  if (route.auth === "user") return [{ userToken: [] }];
  return [{ userToken: [] }, { apiKey: [] }];
}

function paramsSchema(path: string) {
  const names = pathParams(path);
  if (names.length === 0) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const name of names) {
    shape[name] =
      name === "widgetId"
        ? z.string().openapi({ example: "wgt_Q2x9…" })
        : name === "key"
          ? z.string().openapi({ description: "a text entry's key, percent-encoded" })
          : z.string().uuid();
  }
  return z.object(shape);
}

const challengeHeader = {
  description:
    'RFC 6750\'s challenge: `Bearer realm="lore"`, plus `error="invalid_token"` when the presented token or key is bad',
  schema: { type: "string" as const },
};

function errorResponses(route: ApiRoute) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrors(route)) {
    const status = statusByCode[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const openAi = route.errorFormat === "openai";
  const schema = openAi ? openAiErrorBodySchema : errorBodySchema;
  const out: Record<
    string,
    {
      description: string;
      headers?: Record<string, { description: string; schema: { type: "string" } }>;
      content: { "application/json": { schema: typeof schema } };
    }
  > = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: `\`${openAi ? "error.code" : "error"}\` is one of: ${codes.map((c) => `\`${c}\``).join(", ")}`,
      ...(status === 401 ? { headers: { "WWW-Authenticate": challengeHeader } } : {}),
      content: { "application/json": { schema } },
    };
  }
  return out;
}

/** The declared success responses, with the rate-limit headers every API response carries. */
function successResponses(route: ApiRoute) {
  if (route.root) return route.responses;
  return Object.fromEntries(
    Object.entries(route.responses).map(([status, response]) => [
      status,
      { ...response, headers: rateLimitHeaders },
    ]),
  );
}

const cache = new Map<string, OpenApiDocument>();

type ResponseObject = { description?: string; content?: Record<string, unknown> };

/**
 * A 200 that is JSON or, when asked for, Server-Sent Events keeps only its JSON in the operation, so
 * typed clients (openapi-fetch, hey-api) type the JSON body by default; the stream is a response of
 * its own, `components/responses/<operationId>Stream`, named by the operation's `x-stream-response`.
 */
function separateStreams(document: OpenApiDocument): void {
  const components = document.components ?? {};
  document.components = components;
  const responses = (components.responses ?? {}) as Record<string, ResponseObject>;
  for (const operations of Object.values(document.paths ?? {}))
    for (const value of Object.values(operations ?? {})) {
      const operation = value as { operationId?: string; responses?: Record<string, ResponseObject> };
      const ok = operation.responses?.["200"];
      const stream = ok?.content?.["text/event-stream"];
      if (!ok?.content || !stream || !operation.operationId) continue;
      const { "text/event-stream": _, ...json } = ok.content;
      ok.content = json;
      const name = `${operation.operationId}Stream`;
      responses[name] = {
        description: ok.description ?? "Server-Sent Events",
        content: { "text/event-stream": stream },
      };
      Object.assign(operation, { "x-stream-response": { $ref: `#/components/responses/${name}` } });
    }
  components.responses = responses as typeof components.responses;
}

/** The OpenAPI 3.1 document of the whole API, built from the route declarations and shared/'s zod schemas. */
export function buildOpenApiDocument(prefix: string, serverUrl?: string): OpenApiDocument {
  const key = `${prefix} ${serverUrl ?? ""}`;
  const cached = cache.get(key);
  if (cached) return cached;

  const app = new OpenAPIHono();
  const registry = app.openAPIRegistry;
  registry.registerComponent("securitySchemes", "userToken", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "The access token from `POST /auth/login/` (1 h by default; refresh with `POST /auth/token/refresh/`).",
  });
  registry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "An agent's API key (`lore_sk_…`): full access to its own agent, 403 anywhere else.",
  });
  const header = (description: string) => ({ description, schema: { type: "integer" as const } });
  registry.registerComponent(
    "headers",
    "X-RateLimit-Limit",
    header("The limit of the window with the fewest requests left"),
  );
  registry.registerComponent("headers", "X-RateLimit-Remaining", header("Requests left in that window"));
  registry.registerComponent(
    "headers",
    "X-RateLimit-Reset",
    header("Unix time (seconds) when that window resets"),
  );
  registry.register("Error", errorBodySchema);
  registry.register("OpenAIError", openAiErrorBodySchema);

  for (const route of apiRoutes) {
    const params = paramsSchema(route.path);
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: operationId(route),
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      security: security(route),
      ...(route.root ? { servers: [{ url: serverUrl ?? "/" }] } : {}),
      request: { ...route.request, ...(params ? { params } : {}) },
      responses: { ...successResponses(route), ...errorResponses(route) },
    });
  }

  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Lore API",
      version: "1.0.0",
      description:
        "Every path ends with `/` (a request without it is answered the same, for every method, with no redirect). A response that can stream (`Accept: text/event-stream`) declares its JSON body as its 200 and its stream as a response of its own, in components/responses, named by the operation's `x-stream-response`. Errors are `{error, message, details}`. A request with a bad `Authorization` header is refused with 401 on every route, public ones included. See docs/api.md.",
    },
    servers: [{ url: `${serverUrl ?? ""}${prefix}` }],
    tags: Object.entries(tagDescriptions).map(([name, description]) => ({ name, description })),
  });
  separateStreams(document);
  if (cache.size >= 16) cache.clear(); // the server URL comes from the request: keep the cache bounded
  cache.set(key, document);
  return document;
}
