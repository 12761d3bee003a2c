import type { WebConfig } from "@lore/shared";
import { type GuardedFetch, type GuardedResponse, OutboundError } from "../../net/outbound.ts";
import { outboundAdvice } from "../../net/outbound-advice.ts";
import type { RawDocument } from "../documents.ts";
import { sleep } from "./sleep.ts";
import { scanPageLinks } from "./web-links.ts";
import { ALLOW_ALL, parseRobots, type RobotsRules } from "./web-robots.ts";
import { parseSitemap } from "./web-sitemap.ts";
import { compileUrlGlobs, MAX_MATCHED_URL, type MatchMeter } from "./wildcard.ts";

/** The robots.txt product token Lore obeys (and the `*` group otherwise). */
export const CRAWLER_AGENT = "LoreBot";
export const DEFAULT_CRAWL_DELAY_MS = 500;
/** A robots.txt Crawl-delay above this is capped rather than stalling a sync for hours. */
export const MAX_CRAWL_DELAY_MS = 10_000;

export type CrawlLog = (message: string, data?: Record<string, unknown>) => void;

export interface CrawlContext {
  fetch: GuardedFetch;
  signal?: AbortSignal;
  /** Politeness delay between requests to the site (robots.txt Crawl-delay wins when longer). */
  delayMs?: number;
  log?: CrawlLog;
}

const TRACKING_PARAMS = /^(utm_[a-z]+|gclid|fbclid|msclkid|mc_cid|mc_eid|_ga|ref_src)$/i;

/** One spelling per page: no fragment, no tracking parameters, sorted query, default port dropped. */
export function normaliseUrl(input: string): string {
  const url = new URL(input);
  url.hash = "";
  const params = [...url.searchParams.entries()]
    .filter(([k]) => !TRACKING_PARAMS.test(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = new URLSearchParams(params).toString();
  if (url.pathname === "") url.pathname = "/";
  return url.href;
}

const INDEX_PAGE = /\/index\.(html?|php)$/i;

/**
 * The key a crawl tells pages apart by (issue #52): normaliseUrl's spelling with a directory's index
 * page (`/docs/index.html`) and a trailing slash (`/docs/`) taken as the directory (`/docs`), so a
 * site's several spellings of one page are fetched, matched and stored once.
 */
export function pageKey(input: string): string {
  const url = new URL(normaliseUrl(input));
  url.pathname = url.pathname.replace(INDEX_PAGE, "/").replace(/(.)\/+$/, "$1");
  return url.href;
}

/** Why a start page fails its source (issue #49: a redirect to `file:` or an unresolvable host ended "ready"). */
const REFUSALS = new Set<OutboundError["code"]>([
  "blocked_address",
  "invalid_url",
  "dns_failed",
  "too_many_redirects",
]);

/**
 * The refusal in words with what to do (the console shows it as the source's error), naming the
 * redirect's target (by host and path: no credentials) when it was one.
 */
function refusalOf(err: OutboundError, requested: URL): string {
  let hop: string = err.url;
  try {
    const url = new URL(err.url);
    hop = url.protocol === "http:" || url.protocol === "https:" ? `${url.host}${url.pathname}` : url.protocol;
  } catch {
    // not a URL: named as given
  }
  const advice = outboundAdvice(err);
  return err.url === requested.href ? advice : `redirected to ${hop}: ${advice}`;
}

/** robots.txt answered 5xx: the site counts as unavailable and nothing on it is read (RFC 9309). */
const ROBOTS_UNAVAILABLE: RobotsRules = { isAllowed: () => false, crawlDelay: null, sitemaps: [] };

/** Why robots.txt kept the start page, and what to do. */
function robotsRefusal(url: URL, rules: RobotsRules): string {
  return rules === ROBOTS_UNAVAILABLE
    ? `${url.origin}/robots.txt answered with a server error, so nothing on the site is read. Sync again once the site is up, or ask its owner to fix robots.txt.`
    : `${url.origin}/robots.txt does not allow ${CRAWLER_AGENT} to read it. Ask the site's owner to allow ${CRAWLER_AGENT} there, or start from a page robots.txt allows.`;
}

/** Work units of matching (see wildcard.ts) a crawl does between two yields to the event loop. */
const MATCH_SLICE = 200_000;
/**
 * Nor does a crawl run longer than this between two yields (issue #49): spelling and keying a
 * link parses its URL three times, work no glob charges, so 1,000 long links and no glob held the
 * loop 116 ms of CPU in one turn.
 */
const SLICE_MS = 10;
/** What reading one link costs in meter units besides its length (about one short URL parse). */
const LINK_UNITS = 100;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const TEXT_TYPES = new Set(["text/plain", "text/markdown", "text/x-markdown"]);

function pathWithQuery(url: URL): string {
  return url.pathname + url.search;
}

// Patterns apply to the path ("/docs/**") or to the whole URL ("https://x.test/docs/**"). Matching is
// bounded by pattern × URL length (wildcard.ts), never a backtracking RegExp, and charged to the meter.
/** Whether the source's include/exclude rules keep a URL (also the console's rules preview). */
export function matcher(
  config: Pick<WebConfig, "include" | "exclude">,
  meter: MatchMeter = { spent: 0 },
): (url: URL) => boolean {
  const include = config.include.length > 0 ? compileUrlGlobs(config.include) : null;
  const exclude = config.exclude.length > 0 ? compileUrlGlobs(config.exclude) : null;
  // A URL longer than MAX_MATCHED_URL is never crawled: matching stays bounded.
  return (url) =>
    url.href.length <= MAX_MATCHED_URL && (!include || include(url, meter)) && !exclude?.(url, meter);
}

function excluded(config: WebConfig, meter: MatchMeter): (url: URL) => boolean {
  const m = config.exclude.length > 0 ? compileUrlGlobs(config.exclude) : null;
  return (url) => url.href.length > MAX_MATCHED_URL || (m?.(url, meter) ?? false);
}

function fileNameOf(url: URL): string | undefined {
  const last = url.pathname.split("/").filter(Boolean).pop();
  return last ? decodeURIComponent(last) : undefined;
}

/**
 * Crawls a web source: one `page`, the pages of a `sitemap` (index and .gz included), or a same-origin
 * breadth-first `crawl` within maxDepth/maxPages. robots.txt (LoreBot, else *) and its Crawl-delay are
 * honoured, include/exclude globs filter URLs, canonical URLs are de-duplicated, only HTML, text,
 * markdown and PDF are yielded. Fetch failures of single pages are logged and skipped.
 */
export async function* crawlWeb(config: WebConfig, ctx: CrawlContext): AsyncIterable<RawDocument> {
  const log = ctx.log ?? (() => undefined);
  const start = new URL(normaliseUrl(config.url));
  const robotsByOrigin = new Map<string, RobotsRules>();
  let lastRequestAt = 0;
  let delayMs = ctx.delayMs ?? DEFAULT_CRAWL_DELAY_MS;

  const politeFetch = async (url: string): Promise<GuardedResponse> => {
    ctx.signal?.throwIfAborted();
    const wait = lastRequestAt + delayMs - Date.now();
    if (lastRequestAt > 0) await sleep(wait, ctx.signal);
    lastRequestAt = Date.now();
    return ctx.fetch(url, {
      signal: ctx.signal,
      headers: {
        accept:
          "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/pdf;q=0.8,*/*;q=0.1",
      },
    });
  };

  const robotsFor = async (url: URL): Promise<RobotsRules> => {
    const cached = robotsByOrigin.get(url.origin);
    if (cached) return cached;
    let rules = ALLOW_ALL;
    try {
      const res = await politeFetch(`${url.origin}/robots.txt`);
      if (res.status >= 200 && res.status < 300)
        rules = parseRobots(new TextDecoder().decode(res.body), CRAWLER_AGENT);
      // 4xx: no robots.txt, everything allowed (RFC 9309); 5xx: assume the site is unavailable.
      else if (res.status >= 500) rules = ROBOTS_UNAVAILABLE;
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      log("robots.txt unavailable", { origin: url.origin, error: err.message });
    }
    if (rules.crawlDelay !== null)
      delayMs = Math.max(delayMs, Math.min(rules.crawlDelay * 1000, MAX_CRAWL_DELAY_MS));
    robotsByOrigin.set(url.origin, rules);
    return rules;
  };

  const fetchPage = async (url: URL): Promise<GuardedResponse | null> => {
    const robots = await robotsFor(url);
    if (!robots.isAllowed(pathWithQuery(url), meter)) {
      log("disallowed by robots.txt", { url: url.href });
      if (url.href === start.href) startRefusal = robotsRefusal(url, robots);
      return null;
    }
    try {
      const res = await politeFetch(url.href);
      if (res.status < 200 || res.status > 299) {
        log("skipped: HTTP status", { url: url.href, status: res.status });
        return null;
      }
      return res;
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      log("skipped: fetch failed", { url: url.href, code: err.code, error: err.message });
      if (url.href === start.href && REFUSALS.has(err.code)) startRefusal = refusalOf(err, url);
      return null;
    }
  };
  // A start page the outbound policy refuses (directly or by redirect) fails the source with the reason.
  let startRefusal: string | null = null;

  // Matching is charged here; the crawl yields the event loop each MATCH_SLICE units (issue #49).
  const meter: MatchMeter = { spent: 0 };
  let sliceStart = performance.now();
  const settle = async (): Promise<void> => {
    if (meter.spent < MATCH_SLICE && performance.now() - sliceStart < SLICE_MS) return;
    await yieldToLoop();
    meter.spent = 0;
    sliceStart = performance.now();
  };
  const wanted = matcher(config, meter);
  const isExcluded = excluded(config, meter);
  /** pageKey of every document yielded. */
  const yielded = new Set<string>();

  /** Turns a fetched page into a document (or null), and returns its links for the crawl. */
  const toDocument = async (
    res: GuardedResponse,
  ): Promise<{ doc: RawDocument | null; links: string[]; followLinks: boolean }> => {
    const finalUrl = new URL(normaliseUrl(res.url));
    const type = res.contentType ?? "";
    if (
      HTML_TYPES.has(type) ||
      (type === "" && /<html|<!doctype html/i.test(new TextDecoder().decode(res.body.subarray(0, 512))))
    ) {
      const page = await scanPageLinks(res.body, finalUrl.href);
      // A canonical link is trusted only within the page's own origin.
      const canonical =
        page.canonical && new URL(page.canonical).origin === finalUrl.origin
          ? normaliseUrl(page.canonical)
          : finalUrl.href;
      if (page.noindex || yielded.has(pageKey(canonical)))
        return { doc: null, links: page.links, followLinks: !page.nofollow };
      return {
        doc: {
          externalId: canonical,
          title: page.title ?? "",
          sourceUrl: canonical,
          kind: "web",
          mediaType: type || "text/html",
          body: res.body,
        },
        links: page.links,
        followLinks: !page.nofollow,
      };
    }
    if (yielded.has(pageKey(finalUrl.href))) return { doc: null, links: [], followLinks: false };
    const fileName = fileNameOf(finalUrl);
    if (type === "application/pdf") {
      return {
        doc: {
          externalId: finalUrl.href,
          title: "",
          sourceUrl: finalUrl.href,
          kind: "pdf",
          mediaType: type,
          fileName,
          body: res.body,
        },
        links: [],
        followLinks: false,
      };
    }
    if (TEXT_TYPES.has(type)) {
      return {
        doc: {
          externalId: finalUrl.href,
          title: fileName ?? "",
          sourceUrl: finalUrl.href,
          kind: null,
          mediaType: type,
          fileName,
          body: res.body,
        },
        links: [],
        followLinks: false,
      };
    }
    log("skipped: unsupported content type", { url: finalUrl.href, contentType: type });
    return { doc: null, links: [], followLinks: false };
  };

  const refuseStart = (): Error =>
    // Found by the SSRF suite: the source used to end "ready" with no documents and no error.
    Object.assign(new Error(`The start page ${start.href} was not fetched: ${startRefusal}`), {
      permanent: true,
    });

  if (config.mode === "page") {
    const res = await fetchPage(start);
    if (!res && startRefusal !== null) throw refuseStart();
    const doc = res ? (await toDocument(res)).doc : null;
    if (doc) yield doc;
    return;
  }

  if (config.mode === "sitemap") {
    const pages: string[] = [];
    const seenMaps = new Set<string>();
    const queue: { url: string; depth: number }[] = [{ url: start.href, depth: 0 }];
    while (queue.length > 0 && pages.length < config.maxPages * 2) {
      const next = queue.shift();
      if (!next || seenMaps.has(next.url)) continue;
      seenMaps.add(next.url);
      const res = await fetchPage(new URL(next.url));
      if (!res) continue;
      let content: ReturnType<typeof parseSitemap>;
      try {
        content = parseSitemap(res.body);
      } catch {
        log("skipped: unreadable sitemap", { url: next.url });
        continue;
      }
      if (content.urls.length === 0 && content.sitemaps.length === 0 && next.depth === 0) {
        // Pointed at a site rather than a sitemap: use the sitemaps robots.txt names, else /sitemap.xml.
        const robots = await robotsFor(start);
        const named = robots.sitemaps.length > 0 ? robots.sitemaps : [`${start.origin}/sitemap.xml`];
        for (const url of named) queue.push({ url, depth: 1 });
        continue;
      }
      pages.push(...content.urls);
      if (next.depth < 3) for (const url of content.sitemaps) queue.push({ url, depth: next.depth + 1 });
    }
    const seen = new Set<string>();
    let count = 0;
    for (const raw of pages) {
      if (count >= config.maxPages) break;
      let url: URL;
      try {
        url = new URL(normaliseUrl(raw));
      } catch {
        continue;
      }
      // The sitemap protocol only vouches for URLs on the sitemap's own host.
      const key = pageKey(url.href);
      if (url.origin !== start.origin || seen.has(key) || yielded.has(key) || !wanted(url)) continue;
      seen.add(key);
      meter.spent += LINK_UNITS + raw.length;
      await settle();
      const res = await fetchPage(url);
      const doc = res ? (await toDocument(res)).doc : null;
      if (!doc || yielded.has(pageKey(doc.externalId))) continue;
      yielded.add(pageKey(doc.externalId));
      count++;
      yield doc;
    }
    if (count === 0 && startRefusal !== null) throw refuseStart();
    return;
  }

  // Crawl: breadth-first within the start origin. Excluded URLs are never fetched; pages outside
  // `include` are still read for their links (a crawl from "/" reaches "/docs/**") but not yielded.
  const fetchBudget = config.maxPages * 3 + 10;
  let fetched = 0;
  /** pageKey of every page fetched or queued. */
  const visited = new Set<string>([pageKey(start.href)]);
  const frontier: { url: URL; depth: number }[] = [{ url: start, depth: 0 }];
  while (frontier.length > 0 && yielded.size < config.maxPages && fetched < fetchBudget) {
    const next = frontier.shift();
    if (!next) break;
    fetched++;
    const res = await fetchPage(next.url);
    if (!res) continue;
    const finalUrl = new URL(normaliseUrl(res.url));
    if (finalUrl.origin !== start.origin) {
      log("skipped: redirected off-site", { url: next.url.href, to: finalUrl.href });
      continue;
    }
    visited.add(pageKey(finalUrl.href));
    const { doc, links, followLinks } = await toDocument(res);
    const docUrl = doc ? new URL(doc.externalId) : null;
    if (doc && docUrl && wanted(docUrl) && (docUrl.href === finalUrl.href || wanted(finalUrl))) {
      visited.add(pageKey(doc.externalId));
      yielded.add(pageKey(doc.externalId));
      yield doc;
    }
    if (!followLinks || next.depth >= config.maxDepth) continue;
    for (const link of links) {
      // Links past what the crawl will ever fetch are not matched (issue #49).
      if (frontier.length + fetched >= fetchBudget) break;
      meter.spent += LINK_UNITS + link.length;
      await settle();
      let url: URL;
      try {
        url = new URL(normaliseUrl(link));
      } catch {
        continue;
      }
      const key = pageKey(url.href);
      if (url.origin !== start.origin || visited.has(key)) continue;
      visited.add(key);
      if (isExcluded(url)) continue;
      frontier.push({ url, depth: next.depth + 1 });
    }
  }
  if (yielded.size === 0 && startRefusal !== null) throw refuseStart();
}
