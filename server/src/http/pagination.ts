import type { Page, PageQuery } from "@lore/shared";
import type { Context } from "hono";

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
  const link = (p: number) => {
    const url = requestUrl(c, trustProxy);
    url.searchParams.set("page", String(p));
    url.searchParams.set("page_size", String(page_size));
    return url.toString();
  };
  return {
    count: items.length,
    next: start + page_size < items.length ? link(page + 1) : null,
    previous: page > 1 ? link(Math.min(page - 1, Math.max(1, Math.ceil(items.length / page_size)))) : null,
    results: items.slice(start, start + page_size),
  };
}
