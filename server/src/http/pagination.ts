import type { Page, PageQuery } from "@lore/shared";
import type { Context, TypedResponse } from "hono";

/** The request's own absolute URL, honouring X-Forwarded-Proto/Host when the proxy is trusted. */
export function requestUrl(c: Context, trustProxy: boolean): URL {
  const url = new URL(c.req.url);
  if (!trustProxy) return url;
  const proto = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim();
  const host = c.req.header("x-forwarded-host")?.split(",")[0]?.trim();
  const scheme = proto === "http" || proto === "https" ? proto : url.protocol.slice(0, -1);
  const authority = host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : url.host;
  // Rebuilt rather than assigning url.host: a forwarded host without a port must drop ours.
  try {
    return new URL(`${url.pathname}${url.search}`, `${scheme}://${authority}`);
  } catch {
    return url; // a malformed forwarded host (e.g. "[::1") is ignored
  }
}

/** Slices one page and builds absolute next/previous links from the request URL. */
export function paginate<T>(c: Context, items: T[], query: PageQuery, trustProxy: boolean): Page<T> {
  const { page, page_size } = query;
  const start = (page - 1) * page_size;
  const previous = Math.min(page - 1, Math.max(1, Math.ceil(items.length / page_size)));
  return {
    count: items.length,
    next: start + page_size < items.length ? pageLink(c, trustProxy, page + 1, page_size) : null,
    previous: page > 1 ? pageLink(c, trustProxy, previous, page_size) : null,
    results: items.slice(start, start + page_size),
  };
}

/** `JSON.stringify(page)` for a page whose items are already JSON text. */
export function pageJson(page: Page<string>): string {
  const { count, next, previous, results } = page;
  return `{"count":${count},"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"results":[${results.join(",")}]}`;
}

/**
 * Sends a page whose items are already JSON text, typed as the page of `T` it serialises (what
 * `c.json(page)` would send), so the route's declared response still checks the handler.
 */
export function pageJsonResponse<T>(c: Context, page: Page<string>): TypedResponse<Page<T>, 200, "json"> {
  return c.body(pageJson(page), 200, { "Content-Type": "application/json" }) as unknown as TypedResponse<
    Page<T>,
    200,
    "json"
  >;
}

// A module function rather than a closure per call: tsx (keepNames) names every closure it creates.
function pageLink(c: Context, trustProxy: boolean, page: number, pageSize: number): string {
  const url = requestUrl(c, trustProxy);
  url.searchParams.set("page", String(page));
  url.searchParams.set("page_size", String(pageSize));
  return url.toString();
}

/** A small list sent whole, as the one page of the envelope. */
export function wholePage<T>(results: T[]): Page<T> {
  return { count: results.length, next: null, previous: null, results };
}
