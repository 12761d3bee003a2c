import type { Context } from "hono";
import type { AppEnv } from "./principal.ts";

/**
 * Writes headers onto the finished response. Hono's `c.header()` after `next()` (and any header set
 * on `c.res` before the handler) rebuilds the response around its body as a stream: a copy per
 * request, the largest cost of a small JSON answer. A response built by `c.json()` & co. shares the
 * context's prepared Headers (requestContext put X-Request-ID there first), so it is written in
 * place; any other response (a raw `new Response`, one from fetch) is copied once.
 */
export function writeResponseHeaders(c: Context<AppEnv>, write: (headers: Headers) => void): void {
  const requestId = c.get("requestId");
  const res = c.res;
  if (res.headers.get("x-request-id") !== requestId) {
    // Headers of its own (a fetched response's are immutable), marked so later writers skip the copy.
    const headers = new Headers(res.headers);
    headers.set("X-Request-ID", requestId);
    c.res = new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
  write(c.res.headers);
}

/** Sets every header of `values` on the finished response (replacing what the handler set). */
export function setResponseHeaders(c: Context<AppEnv>, values: Readonly<Record<string, string>>): void {
  writeResponseHeaders(c, (headers) => {
    for (const name in values) headers.set(name, values[name] as string);
  });
}

/**
 * Makes `res` the response exactly as built. Hono's `c.res` setter would merge the old response's
 * headers into it (stale values win over fresh ones) and re-wrap its body as a stream.
 */
export function replaceResponse(c: Context<AppEnv>, res: Response): void {
  c.res = undefined as unknown as Response;
  c.res = res;
}
