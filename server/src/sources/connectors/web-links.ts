import { Parser } from "htmlparser2";

/** What the crawler needs from an HTML page, read with a fast streaming scan (no DOM). */
export interface PageLinks {
  canonical: string | null;
  links: string[];
  title: string | null;
  noindex: boolean;
  nofollow: boolean;
}

function resolveHttp(href: string | undefined, base: string): string | null {
  if (!href) return null;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** Links taken from one page (issue #49: a page of 100,000 links each cost a match); the rest are ignored. */
export const MAX_LINKS_PER_PAGE = 1000;

/** Bytes decoded and parsed between two yields to the event loop (a 20 MB page held it ~300 ms in one go). */
const SCAN_SLICE = 128 * 1024;
/** Links resolved between two yields: 1,000 links of 2,000 characters are about 20 ms of URL parsing. */
const RESOLVE_SLICE = 200;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Decodes and scans a page in slices, yielding the event loop between them, and stops reading once
 * it holds MAX_LINKS_PER_PAGE links (the head's title, canonical link and robots meta come first).
 */
export async function scanPageLinks(body: Uint8Array, pageUrl: string): Promise<PageLinks> {
  let base = pageUrl;
  let canonical: string | null = null;
  const hrefs: string[] = [];
  let title: string | null = null;
  let inTitle = false;
  let titleText = "";
  let robots = "";
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === "base" && attrs.href) base = resolveHttp(attrs.href, pageUrl) ?? base;
        else if (name === "link" && (attrs.rel ?? "").toLowerCase().split(/\s+/).includes("canonical"))
          canonical ??= attrs.href ?? null;
        else if (
          name === "a" &&
          attrs.href &&
          hrefs.length < MAX_LINKS_PER_PAGE &&
          !(attrs.rel ?? "").toLowerCase().includes("nofollow")
        )
          hrefs.push(attrs.href);
        else if (name === "meta" && /^(robots|lorebot)$/i.test(attrs.name ?? ""))
          robots += `,${(attrs.content ?? "").toLowerCase()}`;
        else if (name === "title" && title === null) inTitle = true;
      },
      ontext(text) {
        if (inTitle) titleText += text;
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          title = titleText.replace(/\s+/g, " ").trim() || null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  // Decoded slice by slice: a 6 MB page decoded at once was one of the longest turns of a crawl.
  const decoder = new TextDecoder();
  for (let at = 0; at < body.length && hrefs.length < MAX_LINKS_PER_PAGE; at += SCAN_SLICE) {
    parser.write(decoder.decode(body.subarray(at, at + SCAN_SLICE), { stream: true }));
    if (at + SCAN_SLICE < body.length) await yieldToLoop();
  }
  parser.end(decoder.decode());
  const links: string[] = [];
  for (let at = 0; at < hrefs.length; at += RESOLVE_SLICE) {
    if (at > 0) await yieldToLoop();
    for (const href of hrefs.slice(at, at + RESOLVE_SLICE)) {
      const url = resolveHttp(href, base);
      if (url !== null) links.push(url);
    }
  }
  return {
    canonical: canonical ? resolveHttp(canonical, base) : null,
    links,
    title,
    noindex: /\b(noindex|none)\b/.test(robots),
    nofollow: /\b(nofollow|none)\b/.test(robots),
  };
}
