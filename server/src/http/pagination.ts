import type { Page, PageQuery } from "@lore/shared";
import type { Context, TypedResponse } from "hono";
import { AppError } from "../errors.ts";
import { requestUrl } from "./forwarded.ts";
import type { AppEnv } from "./principal.ts";

/**
 * The page a `page` parameter names, as Django REST framework reads it: absent is 1, `last` the
 * last page; a value that is not a whole number, below 1 or past the last page is 404 "Invalid
 * page." (the first page of an empty list exists).
 */
function pageNumber(raw: string | undefined, count: number, pageSize: number): number {
  const last = Math.max(1, Math.ceil(count / pageSize));
  if (raw === undefined || raw === "") return 1;
  if (raw === "last") return last;
  const page = /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(page) || page < 1 || page > last)
    throw new AppError("not_found", "Invalid page.", { resource: "page", id: raw });
  return page;
}

/**
 * Slices one page and builds absolute next/previous links from the request URL as the client sees
 * it (see forwarded.ts), DRF's way: `page` replaced, every other parameter kept; the link to page 1
 * has no `page`.
 */
export function paginate<T>(c: Context<AppEnv>, items: T[], query: PageQuery): Page<T> {
  const { page_size } = query;
  const page = pageNumber(query.page, items.length, page_size);
  const start = (page - 1) * page_size;
  return {
    count: items.length,
    next: start + page_size < items.length ? pageLink(c, page + 1) : null,
    previous: page > 1 ? pageLink(c, page - 1) : null,
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
function pageLink(c: Context<AppEnv>, page: number): string {
  const url = requestUrl(c);
  if (page === 1) url.searchParams.delete("page");
  else url.searchParams.set("page", String(page));
  return url.toString();
}

/** A small list sent whole, as the one page of the envelope. */
export function wholePage<T>(results: T[]): Page<T> {
  return { count: results.length, next: null, previous: null, results };
}
