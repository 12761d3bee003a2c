import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./principal.ts";
import { requestHeader } from "./request-header.ts";
import { writeResponseHeaders } from "./response-headers.ts";

export interface CorsOptions {
  /** Allowed origins; `["*"]` (or any list containing "*") allows every origin. */
  origins: readonly string[];
  allowHeaders: readonly string[];
  allowMethods: readonly string[];
  exposeHeaders: readonly string[];
  maxAgeSeconds: number;
}

/**
 * CORS with the same headers as hono/cors, written after the handler instead of on `c.res` before
 * it: hono's version makes every response be rebuilt around a body stream (see response-headers.ts).
 * Its headers override a handler's, as hono's do. Needs requestContext in front.
 */
export function cors(options: CorsOptions): MiddlewareHandler<AppEnv> {
  const anyOrigin = options.origins.includes("*");
  const expose = options.exposeHeaders.join(",");
  const allowMethods = options.allowMethods.join(",");
  const allowHeaders = options.allowHeaders.join(",");
  const maxAge = String(options.maxAgeSeconds);
  const allowOriginFor = (origin: string | undefined): string | null =>
    anyOrigin ? "*" : origin !== undefined && options.origins.includes(origin) ? origin : null;

  return async (c, next) => {
    const allowOrigin = allowOriginFor(requestHeader(c, "origin"));
    if (c.req.method === "OPTIONS") {
      const headers = new Headers();
      if (allowOrigin) headers.set("Access-Control-Allow-Origin", allowOrigin);
      headers.set("Access-Control-Expose-Headers", expose);
      if (!anyOrigin) headers.append("Vary", "Origin");
      headers.set("Access-Control-Max-Age", maxAge);
      headers.set("Access-Control-Allow-Methods", allowMethods);
      headers.set("Access-Control-Allow-Headers", allowHeaders);
      headers.append("Vary", "Access-Control-Request-Headers");
      return new Response(null, { status: 204, statusText: "No Content", headers });
    }
    // Written by requestContext with the request's other headers, after the handler.
    const after = c.get("responseHeaders");
    if (allowOrigin) after["Access-Control-Allow-Origin"] = allowOrigin;
    after["Access-Control-Expose-Headers"] = expose;
    if (anyOrigin) return next();
    await next();
    writeResponseHeaders(c, (headers) => headers.append("Vary", "Origin"));
  };
}
