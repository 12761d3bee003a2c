import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { agentsRoutes } from "./agents/agents-routes.ts";
import { analyticsRoutes } from "./analytics/analytics-routes.ts";
import { answersRoutes } from "./answers/answers-routes.ts";
import { apiRoutes } from "./api.ts";
import { authRoutes } from "./auth/auth-routes.ts";
import { conversationsRoutes } from "./conversations/conversations-routes.ts";
import { correctionsRoutes } from "./corrections/corrections-routes.ts";
import { AppError, storageFailure, storageUnavailable } from "./errors.ts";
import { handoffsRoutes } from "./handoffs/handoffs-routes.ts";
import { compressResponses } from "./http/compression.ts";
import { cors } from "./http/cors.ts";
import {
  authenticate,
  canonicalPath,
  chargeRequest,
  httpsPolicy,
  rateLimit,
  rateLimitQuery,
  requestContext,
  resumeStream,
} from "./http/middleware.ts";
import type { AppEnv } from "./http/principal.ts";
import type { ApiRoute, Endpoint } from "./http/route.ts";
import { storageGuard } from "./http/storage-guard.ts";
import { mcpRoutes } from "./mcp/mcp-routes.ts";
import { mcpChallenge, mountProtectedResource } from "./mcp/protected-resource.ts";
import { metaRoutes } from "./meta/meta-routes.ts";
import { openAiRoutes } from "./openai/openai-routes.ts";
import type { Services } from "./services.ts";
import { mountSite } from "./site/site-routes.ts";
import { sourcesRoutes } from "./sources/sources-routes.ts";
import { webhooksRoutes } from "./webhooks/webhooks-routes.ts";
import { widgetOriginsRoutes } from "./widget-api/widget-origins-routes.ts";
import { widgetRoutes } from "./widget-api/widget-routes.ts";
import { workspacesRoutes } from "./workspaces/workspaces-routes.ts";

/** Every domain's endpoints, each mounted once. */
function endpoints(s: Services): Endpoint[] {
  return [
    ...metaRoutes(s),
    ...authRoutes(s),
    ...workspacesRoutes(s),
    ...webhooksRoutes(s),
    ...agentsRoutes(s),
    ...answersRoutes(s),
    ...openAiRoutes(s),
    ...conversationsRoutes(s),
    ...handoffsRoutes(s),
    ...correctionsRoutes(s),
    ...analyticsRoutes(s),
    ...sourcesRoutes(s),
    ...widgetRoutes(s),
    ...widgetOriginsRoutes(s),
    ...mcpRoutes(s),
  ];
}

/** Fails at startup when a declared route has no handler, or one is mounted twice. */
function checkMounted(mounted: readonly Endpoint[]): void {
  const seen = new Set<ApiRoute>();
  for (const { route } of mounted) {
    if (seen.has(route)) throw new Error(`${route.method} ${route.path} is mounted twice`);
    seen.add(route);
  }
  const missing = apiRoutes.filter((r) => !seen.has(r)).map((r) => `${r.method} ${r.path}`);
  if (missing.length > 0 || seen.size !== apiRoutes.length)
    throw new Error(`routes declared but not mounted (or mounted but not declared): ${missing.join(", ")}`);
}

/** The composition root of HTTP: middleware, every declared route with its handler, one error renderer. */
export function createApp(s: Services): Hono<AppEnv> {
  const { config, limiter } = s;
  const prefix = config.apiPrefix;
  const mounted = endpoints(s);
  checkMounted(mounted);
  const app = new Hono<AppEnv>({ getPath: canonicalPath(prefix) });
  const mount = ({ route, handle, queryAgent, resumeOwner }: Endpoint) => {
    const method = route.method.toUpperCase();
    if (route.root) return app.on(method, route.getRoutingPath(), handle);
    if (route.charge === "query" && !queryAgent)
      throw new Error(`${route.method} ${route.path} is charged as a query but names no agent`);
    const charge = queryAgent ? rateLimitQuery(config, limiter, queryAgent) : rateLimit(config, limiter);
    const path = `${prefix}${route.getRoutingPath()}`;
    // A reconnect with Last-Event-ID is answered from the kept stream: no new answer, no charge.
    if (resumeOwner) return app.on(method, path, resumeStream(s.answerReplay, resumeOwner), charge, handle);
    return app.on(method, path, charge, handle);
  };

  app.use("*", requestContext(config, s));
  // Inside requestContext, so its headers land on the compressed response; outside CORS, so its Vary is kept.
  app.use("*", compressResponses());
  // Before the HTTPS policy: a load balancer probes over plain HTTP.
  for (const e of mounted) if (e.route.root) mount(e);
  // Outside production there is nothing to check: no layer at all (each one is an async hop per request).
  if (config.production) app.use("*", httpsPolicy(config));
  app.use(
    `${prefix}/*`,
    cors({
      origins: config.corsOrigins,
      allowHeaders: [
        "Authorization",
        "Content-Type",
        "Accept",
        "X-Request-ID",
        // Browser MCP clients (the MCP Inspector) send it after initialize.
        "Mcp-Protocol-Version",
        // fetch-event-source resumes a dropped answer stream with it, and a browser preflights it.
        "Last-Event-ID",
      ],
      allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      exposeHeaders: [
        "X-Request-ID",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Retry-After",
        "WWW-Authenticate",
      ],
      maxAgeSeconds: 600,
    }),
  );
  const limitBody = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        // Answered while the client may still be sending: a streaming client reads the 413 and stops.
        throw new AppError("payload_too_large", `The body exceeds ${maxSize} bytes`, { maxBytes: maxSize });
      },
    });
  const limitJson = limitBody(config.maxJsonBytes);
  const limitUpload = limitBody(config.maxUploadBytes);
  const bulkRoutes = mounted
    .filter((e) => e.route.bulkBody)
    .map((e) => ({
      method: e.route.method.toUpperCase(),
      re: new RegExp(`^${prefix}${e.route.getRoutingPath().replace(/\/:[^/]+/g, "/[^/]+")}?$`),
    }));
  // Anonymous routes read small bodies (issue #49): refused with 413 before the body is parsed.
  const smallRoutes = mounted.flatMap((e) =>
    e.route.maxBodyBytes
      ? [
          {
            method: e.route.method.toUpperCase(),
            re: new RegExp(`^${prefix}${e.route.getRoutingPath().replace(/\/:[^/]+/g, "/[^/]+")}?$`),
            limit: limitBody(Math.min(e.route.maxBodyBytes, config.maxJsonBytes)),
          },
        ]
      : [],
  );
  app.use(`${prefix}/*`, (c, next) => {
    // GET and HEAD carry no body; asking for one would build the full fetch Request for nothing.
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    if (bulkRoutes.some((r) => r.method === c.req.method && r.re.test(c.req.path))) {
      // Read as a stream by its handler, which stops at LORE_MAX_BULK_BYTES (bodyLimit would buffer it whole).
      const length = Number(c.req.header("content-length") ?? 0);
      if (length > config.maxBulkBytes)
        throw new AppError("payload_too_large", `The body exceeds ${config.maxBulkBytes} bytes`, {
          maxBytes: config.maxBulkBytes,
        });
      return next();
    }
    const small = smallRoutes.find((r) => r.method === c.req.method && r.re.test(c.req.path));
    if (small) return small.limit(c, next);
    const multipart = (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/");
    return (multipart ? limitUpload : limitJson)(c, next);
  });
  // The OpenAI-compatible routes answer errors in OpenAI's shape, whichever layer refuses the request.
  const openAiRoutes = mounted
    .filter((e) => e.route.errorFormat === "openai")
    .map((e) => new RegExp(`^${prefix}${e.route.getRoutingPath().replace(/\/:[^/]+/g, "/[^/]+")}?$`));
  const mcpEndpoint = new RegExp(`^${prefix}/agents/[^/]+/mcp/$`);
  const render = (c: Context<AppEnv>, error: AppError) => {
    const challenge = error.headers["WWW-Authenticate"];
    // An MCP endpoint's 401 names its resource metadata (RFC 9728), so MCP clients report it as it is.
    const shown =
      challenge && mcpEndpoint.test(c.req.path)
        ? new AppError(error.code, error.message, error.details, {
            ...error.headers,
            "WWW-Authenticate": mcpChallenge(c, challenge, c.req.path),
          })
        : error;
    return renderError(
      c,
      shown,
      openAiRoutes.some((re) => re.test(c.req.path)),
    );
  };
  const authorizationIgnored = new Set(
    mounted.filter((e) => e.route.ignoresAuthorization).map((e) => `${prefix}${e.route.getRoutingPath()}`),
  );
  // Shared mode: what any replica committed before this request is applied here first (read your
  // writes across the fleet; a key revoked or a source deleted elsewhere is gone here too).
  if (s.store.feed.shared) {
    app.use(`${prefix}/*`, async (_c, next) => {
      await s.store.feed.settled();
      await next();
    });
  }
  app.use(`${prefix}/*`, authenticate(s, authorizationIgnored));
  // After authentication, so a refused write is a 503 only to whom it would not be a 401.
  app.use(`${prefix}/*`, storageGuard(s.storage, readOnlyPosts(prefix), searchPosts(prefix)));
  for (const e of mounted) if (!e.route.root) mount(e);
  mountProtectedResource(app, prefix);
  mountSite(app, s);

  const queryPaths = new Set(
    mounted.filter((e) => e.route.charge === "query").map((e) => `${prefix}${e.route.getRoutingPath()}`),
  );
  const patterns = app.routes
    .filter((r) => r.method !== "ALL")
    .map((r) => ({
      method: r.method,
      query: queryPaths.has(r.path),
      re: new RegExp(
        `^${r.path
          .replace(/\/$/, "")
          .replace(/\/:[^/]+/g, "/[^/]+")
          .replace(/\*/g, ".*")}/?$`,
      ),
    }));

  app.notFound(async (c) => {
    const matching = patterns.filter((p) => p.re.test(c.req.path));
    // Charged like any API request, except on a question's path (questions charge with their agent).
    const path = c.req.path;
    if ((path === prefix || path.startsWith(`${prefix}/`)) && !matching.some((p) => p.query)) {
      try {
        await chargeRequest(config, limiter, c);
      } catch (error) {
        if (error instanceof AppError) return render(c, error);
        throw error;
      }
    }
    const allowed = [...new Set(matching.map((p) => p.method))];
    const error =
      allowed.length > 0
        ? new AppError(
            "method_not_allowed",
            `${c.req.method} is not allowed here`,
            { allowed },
            { Allow: allowed.join(", ") },
          )
        : new AppError("not_found", "No such endpoint", { resource: "endpoint", id: c.req.path });
    return render(c, error);
  });

  app.onError((err, c) => {
    if (err instanceof AppError) return render(c, err);
    if (err instanceof HTTPException) {
      const code =
        err.status === 413 ? "payload_too_large" : err.status === 400 ? "validation_error" : "internal_error";
      return render(
        c,
        new AppError(
          code,
          err.message || "Request failed",
          code === "validation_error" ? { fields: { body: [err.message] } } : {},
        ),
      );
    }
    if (bodyCutOff(err)) {
      // Issue #49: a malformed chunked body (or one the client abandoned) is the client's mistake.
      s.logger.warn("malformed request body", { requestId: c.get("requestId"), error: "aborted" });
      return render(
        c,
        new AppError("validation_error", "The request body could not be read", {
          fields: { body: ["malformed or incomplete"] },
        }),
      );
    }
    s.storage.noteFailure(err);
    const storage = storageFailure(err) ?? (s.storage.writable ? null : storageUnavailable(s.storage.state));
    // A full, read-only or missing disk is an operator's problem, not a bug: the storage health logs
    // it (once a minute while it lasts), the client is told to come back.
    if (storage) return render(c, storage);
    s.logger.error("unhandled error", {
      requestId: c.get("requestId"),
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    return render(
      c,
      new AppError("internal_error", "Something went wrong on our side", { requestId: c.get("requestId") }),
    );
  });

  return app;
}

/** POSTs that read (a search, a login, an MCP call): they go on while the disk cannot be written. */
function readOnlyPosts(prefix: string): RegExp[] {
  return [
    /\/agents\/[^/]+\/(search|preview|mcp)\/?$/,
    /\/agents\/[^/]+\/suggested-questions\/check\/?$/,
    /\/auth\/(login|token\/refresh|session|session\/refresh)\/?$/,
  ].map((re) => new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}${re.source}`));
}

/** The search POSTs: they write nothing (analytics wait in memory during a storage fault). */
function searchPosts(prefix: string): RegExp[] {
  return [new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/agents/[^/]+/search/?$`)];
}

/** Node's "aborted": the HTTP parser gave up on the body (a malformed chunk) or the client left. */
function bodyCutOff(err: unknown): boolean {
  return (
    err instanceof Error && err.message === "aborted" && (err as NodeJS.ErrnoException).code === "ECONNRESET"
  );
}

function renderError(c: Context<AppEnv>, error: AppError, openAi: boolean): Response {
  // Also into the headers applied after the handler, so they win over rate-limit state set earlier.
  const after: Record<string, string> | undefined = c.get("responseHeaders");
  for (const [name, value] of Object.entries(error.headers)) {
    c.header(name, value);
    if (after) after[name] = value;
  }
  c.header("X-Request-ID", c.get("requestId"));
  return c.json(openAi ? error.toOpenAiBody() : error.toBody(), error.status);
}
