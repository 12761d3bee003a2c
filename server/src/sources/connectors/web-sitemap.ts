import { gunzipSync } from "node:zlib";
import { Parser } from "htmlparser2";

export interface SitemapContent {
  /** Page URLs from a <urlset>. */
  urls: string[];
  /** Child sitemaps from a <sitemapindex>. */
  sitemaps: string[];
}

/** Parses sitemap XML (gzip-compressed bodies too, inflated under `maxBytes`). */
export function parseSitemap(body: Uint8Array, maxBytes = 50 * 1024 * 1024): SitemapContent {
  const xmlBytes =
    body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body, { maxOutputLength: maxBytes }) : body;
  const xml = new TextDecoder().decode(xmlBytes);
  const urls: string[] = [];
  const sitemaps: string[] = [];
  const stack: string[] = [];
  let text = "";
  const parser = new Parser(
    {
      onopentag(name) {
        stack.push(name.replace(/^.*:/, ""));
        text = "";
      },
      ontext(t) {
        text += t;
      },
      onclosetag() {
        const name = stack.pop();
        const parent = stack[stack.length - 1];
        if (name === "loc") {
          const loc = text.trim();
          if (loc && parent === "url") urls.push(loc);
          else if (loc && parent === "sitemap") sitemaps.push(loc);
        }
        text = "";
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  return { urls, sitemaps };
}
