import type { DocumentKind } from "@lore/shared";
import { parseHTML } from "linkedom";
import type { ParsedDocument, ParsedSection } from "../documents.ts";
import { checkMarkupBudget } from "./markup-budget.ts";
import { collapseWhitespace, decodeText, renderTableRows } from "./text-utils.ts";

/** What an HTML page offers a crawler besides its text. */
export interface HtmlPageInfo {
  document: ParsedDocument;
  /** `<link rel=canonical>` resolved against the page URL, or null. */
  canonicalUrl: string | null;
  /** Absolute http(s) links found in the whole page (navigation included), fragments stripped. */
  links: string[];
  /** `<meta name=robots>` directives. */
  noindex: boolean;
  nofollow: boolean;
}

// Never content: chrome, scripts, forms and embedded media.
const DROP_TAGS = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "nav",
  "header",
  "footer",
  "aside",
  "form",
  "button",
  "select",
  "input",
  "textarea",
  "iframe",
  "svg",
  "canvas",
  "object",
  "embed",
  "video",
  "audio",
  "map",
  "dialog",
  "head",
]);
const DROP_ROLES = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "menu",
  "menubar",
  "dialog",
  "alert",
]);
// Class/id words that mark boilerplate blocks on sites without semantic tags.
const BOILERPLATE =
  /(^|[\s_-])(nav|navbar|menu|breadcrumbs?|sidebar|side-bar|footer|header|masthead|cookies?|consent|banner|advert|ads|share|social|related|comments?|newsletter|subscribe|popup|modal|skip-link|toc)([\s_-]|$)/i;
const BLOCK_TAGS = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "blockquote",
  "ul",
  "ol",
  "dl",
  "dt",
  "dd",
  "figure",
  "figcaption",
  "address",
  "details",
  "summary",
  "hr",
  "br",
  "center",
  "fieldset",
  "caption",
  "body",
  "html",
]);
const HEADING = /^h([1-6])$/;

function absoluteHttpUrl(href: string | null | undefined, base: string | null): string | null {
  if (!href) return null;
  try {
    const url = base ? new URL(href.trim(), base) : new URL(href.trim());
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    url.hash = "";
    return url.toString();
  } catch {
    return null;
  }
}

function isBoilerplate(el: Element): boolean {
  const tag = el.localName;
  if (DROP_TAGS.has(tag)) return true;
  const role = el.getAttribute("role");
  if (role && DROP_ROLES.has(role.toLowerCase())) return true;
  if (el.getAttribute("aria-hidden") === "true" || el.hasAttribute("hidden")) return true;
  const style = el.getAttribute("style");
  if (style && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style)) return true;
  // Tags that hold the content are never dropped for their class names (e.g. <main class="page-header-offset">).
  if (tag === "main" || tag === "article" || tag === "body" || tag === "html") return false;
  const marker = `${el.getAttribute("class") ?? ""} ${el.getAttribute("id") ?? ""}`;
  return marker.trim().length > 0 && BOILERPLATE.test(marker);
}

function pickContentRoot(doc: Document): Element | null {
  const main = doc.querySelector("main, [role=main]");
  if (main) return main;
  const articles = [...doc.querySelectorAll("article")];
  if (articles.length === 1 && articles[0]) return articles[0];
  return doc.querySelector("body") ?? doc.documentElement;
}

class SectionBuilder {
  readonly sections: ParsedSection[] = [];
  private readonly path: string[] = [];
  private readonly levels: number[] = [];
  private paragraphs: string[] = [];
  private inline = "";

  text(t: string): void {
    this.inline += t;
  }
  breakParagraph(): void {
    const p = collapseWhitespace(this.inline);
    if (p) this.paragraphs.push(p);
    this.inline = "";
  }
  raw(block: string): void {
    this.breakParagraph();
    if (block.trim()) this.paragraphs.push(block.replace(/^\n+|\s+$/g, ""));
  }
  flush(): void {
    this.breakParagraph();
    const text = this.paragraphs.join("\n\n").trim();
    if (text) this.sections.push({ headingPath: [...this.path], text, page: null });
    this.paragraphs = [];
  }
  heading(level: number, text: string): void {
    this.flush();
    while (this.levels.length > 0 && (this.levels[this.levels.length - 1] ?? 0) >= level) {
      this.levels.pop();
      this.path.pop();
    }
    this.levels.push(level);
    this.path.push(text);
  }
  table(text: string): void {
    this.flush();
    this.sections.push({ headingPath: [...this.path], text, page: null, isTable: true });
  }
}

function tableRows(table: Element): string[][] {
  const rows: string[][] = [];
  for (const tr of table.querySelectorAll("tr")) {
    // Rows of nested tables belong to the nested table; skip them here.
    if (tr.closest("table") !== table) continue;
    const cells = [...tr.children].filter((c) => c.localName === "td" || c.localName === "th");
    rows.push(cells.map((c) => c.textContent ?? ""));
  }
  return rows;
}

function walk(node: Node, out: SectionBuilder, listDepth: number): void {
  for (const child of node.childNodes) {
    if (child.nodeType === 3) {
      out.text(child.textContent ?? "");
      continue;
    }
    if (child.nodeType !== 1) continue;
    const el = child as Element;
    if (isBoilerplate(el)) continue;
    const tag = el.localName;
    const heading = HEADING.exec(tag);
    if (heading) {
      const text = collapseWhitespace(el.textContent ?? "");
      if (text) out.heading(Number(heading[1]), text);
      continue;
    }
    if (tag === "pre") {
      out.raw(el.textContent ?? "");
      continue;
    }
    if (tag === "table") {
      const rows = tableRows(el);
      const columns = Math.max(0, ...rows.map((r) => r.length));
      // Layout tables (one column) are read as text; data tables keep their rows whole.
      if (rows.length >= 2 && columns >= 2) out.table(renderTableRows(rows));
      else walk(el, out, listDepth);
      continue;
    }
    if (tag === "li") {
      out.breakParagraph();
      out.text(`${"  ".repeat(Math.max(0, listDepth - 1))}- `);
      walk(el, out, listDepth);
      out.breakParagraph();
      continue;
    }
    if (tag === "img") {
      const alt = el.getAttribute("alt");
      if (alt) out.text(` ${alt} `);
      continue;
    }
    const block = BLOCK_TAGS.has(tag) || tag === "tr";
    if (block) out.breakParagraph();
    else if (tag === "td" || tag === "th") out.text(" ");
    walk(el, out, tag === "ul" || tag === "ol" ? listDepth + 1 : listDepth);
    if (block) out.breakParagraph();
    else if (tag === "td" || tag === "th") out.text(" ");
  }
}

/**
 * HTML page: main content only (nav/header/footer/aside/forms/scripts and boilerplate-classed blocks
 * dropped), headings → heading path, data tables → row lines, title from the first h1 or <title>.
 */
export function parseHtmlPage(
  body: Uint8Array | string,
  opts: { baseUrl?: string | null; fallbackTitle: string; kind?: DocumentKind },
): HtmlPageInfo {
  const html = decodeText(body);
  checkMarkupBudget(html);
  const { document } = parseHTML(
    html.includes("<html") ? html : `<!doctype html><html><body>${html}</body></html>`,
  );
  const doc = document as unknown as Document;

  const baseHref = doc.querySelector("base[href]")?.getAttribute("href");
  const base = absoluteHttpUrl(baseHref, opts.baseUrl ?? null) ?? opts.baseUrl ?? null;
  const canonicalEl = [...doc.querySelectorAll("link[rel]")].find((l) =>
    (l.getAttribute("rel") ?? "").toLowerCase().split(/\s+/).includes("canonical"),
  );
  const canonicalUrl = absoluteHttpUrl(canonicalEl?.getAttribute("href"), base);
  const links = new Set<string>();
  for (const a of doc.querySelectorAll("a[href]")) {
    if ((a.getAttribute("rel") ?? "").toLowerCase().includes("nofollow")) continue;
    const url = absoluteHttpUrl(a.getAttribute("href"), base);
    if (url) links.add(url);
  }
  const robots = [...doc.querySelectorAll("meta[name]")]
    .filter((m) => /^(robots|lorebot)$/i.test(m.getAttribute("name") ?? ""))
    .map((m) => (m.getAttribute("content") ?? "").toLowerCase())
    .join(",");

  const titleTag = collapseWhitespace(doc.querySelector("title")?.textContent ?? "");
  const root = pickContentRoot(doc);
  const builder = new SectionBuilder();
  if (root) walk(root, builder, 0);
  builder.flush();
  const h1 = root ? collapseWhitespace(root.querySelector("h1")?.textContent ?? "") : "";
  const sections = builder.sections;

  return {
    document: {
      title: h1 || titleTag || opts.fallbackTitle,
      kind: opts.kind ?? "html",
      sections: sections.filter((s) => s.text.length > 0),
      pageCount: null,
    },
    canonicalUrl,
    links: [...links],
    noindex: /\bnoindex\b|\bnone\b/.test(robots),
    nofollow: /\bnofollow\b|\bnone\b/.test(robots),
  };
}

/** HTML → ParsedDocument (see parseHtmlPage for the extraction rules). */
export function parseHtml(
  body: Uint8Array | string,
  fallbackTitle: string,
  opts: { baseUrl?: string | null; kind?: DocumentKind } = {},
): ParsedDocument {
  return parseHtmlPage(body, { ...opts, fallbackTitle }).document;
}
