import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { agentsRoutes } from "./agents/agents-routes.ts";
import { authRoutes } from "./auth/auth-routes.ts";
import { AppError, storageFailure } from "./errors.ts";
import { cors } from "./http/cors.ts";
import { authenticate, httpsPolicy, rateLimit, requestContext, trailingSlash } from "./http/middleware.ts";
import { requestUrl } from "./http/pagination.ts";
import type { AppEnv } from "./http/principal.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";
import type { Services } from "./services.ts";
import { workspacesRoutes } from "./workspaces/workspaces-routes.ts";

export type DomainRoutes = (s: Services) => Hono<AppEnv>;

export interface AppOptions {
  /** Extra domains mounted under the API prefix, e.g. `["/data-sources", dataSourcesRoutes]`. */
  domains?: Array<[string, DomainRoutes]>;
  /** Non-API routes (widget script, demo, console) mounted at the root. */
  site?: (app: Hono<AppEnv>, s: Services) => void;
  /** Paths (relative to the prefix) whose handlers charge the rate limit themselves. */
  isQueryPath?: (path: string) => boolean;
}

/** Builds the HTTP app: middleware, one route group per domain, one error renderer. */
export function createApp(s: Services, options: AppOptions = {}): Hono<AppEnv> {
  const { config } = s;
  const prefix = config.apiPrefix;
  const isQueryPath = (path: string) =>
    path.startsWith(prefix) && (options.isQueryPath?.(path.slice(prefix.length)) ?? false);
  const app = new Hono<AppEnv>();

  app.use("*", requestContext(config, s));
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", (c) => c.json({ status: "ready", schemaVersion: s.store.schemaVersion }));
  // Outside production there is nothing to check: no layer at all (each one is an async hop per request).
  if (config.production) app.use("*", httpsPolicy(config));
  app.use(
    `${prefix}/*`,
    cors({
      origins: config.corsOrigins,
      allowHeaders: ["Authorization", "Content-Type", "Accept", "X-Request-ID"],
      allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
      exposeHeaders: [
        "X-Request-ID",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Retry-After",
      ],
      maxAgeSeconds: 600,
    }),
  );
  // After CORS, so a browser following the 308 still sees CORS headers.
  app.use(`${prefix}/*`, trailingSlash(prefix));
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
  app.use(`${prefix}/*`, (c, next) => {
    // GET and HEAD carry no body; asking for one would build the full fetch Request for nothing.
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const multipart = (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/");
    return (multipart ? limitUpload : limitJson)(c, next);
  });
  app.use(`${prefix}/*`, authenticate(s));
  app.use(`${prefix}/*`, rateLimit(config, s, isQueryPath));

  // Exempt from the trailing slash (it ends with .json); servers[0] is this server's API base.
  app.get(`${prefix}/openapi.json`, (c) =>
    c.json(
      buildOpenApiDocument(
        prefix,
        config.publicUrl?.replace(/\/$/, "") ?? requestUrl(c, config.trustProxy).origin,
      ),
    ),
  );

  const api = new Hono<AppEnv>();
  api.route("/auth/", authRoutes(s));
  api.route("/workspaces/", workspacesRoutes(s));
  api.route("/agents/", agentsRoutes(s));
  for (const [path, routes] of options.domains ?? []) api.route(path, routes(s));
  app.route(prefix, api);
  options.site?.(app, s);

  const patterns = app.routes
    .filter((r) => r.method !== "ALL")
    .map((r) => ({
      method: r.method,
      re: new RegExp(
        `^${r.path
          .replace(/\/$/, "")
          .replace(/\/:[^/]+/g, "/[^/]+")
          .replace(/\*/g, ".*")}/?$`,
      ),
    }));

  app.notFound((c) => {
    const allowed = [...new Set(patterns.filter((p) => p.re.test(c.req.path)).map((p) => p.method))];
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
    const storage = storageFailure(err);
    if (storage) {
      // A full or read-only disk is an operator's problem, not a bug: say so, keep details in the log.
      s.logger.error("storage write failed", {
        requestId: c.get("requestId"),
        error: err instanceof Error ? err.message : String(err),
      });
      return render(c, storage);
    }
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

function render(c: Parameters<Parameters<Hono<AppEnv>["onError"]>[0]>[1], error: AppError): Response {
  // Also into the headers applied after the handler, so they win over rate-limit state set earlier.
  const after: Record<string, string> | undefined = c.get("responseHeaders");
  for (const [name, value] of Object.entries(error.headers)) {
    c.header(name, value);
    if (after) after[name] = value;
  }
  c.header("X-Request-ID", c.get("requestId"));
  return c.json(error.toBody(), error.status);
}
