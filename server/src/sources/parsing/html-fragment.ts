import { parseHTML } from "linkedom";
import { checkMarkupBudget } from "./markup-budget.ts";

// Never text: scripts, styles, media (an image's alt text is mostly "screenshot of…"), form controls.
const DROP = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "title",
  "iframe",
  "img",
  "picture",
  "video",
  "audio",
  "source",
  "track",
  "svg",
  "canvas",
  "object",
  "embed",
  "map",
  "input",
  "select",
  "textarea",
  "button",
]);
// Blocks that end a paragraph. Their text is laid out by HTML, so its newlines are only spaces.
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "aside",
  "nav",
  "blockquote",
  "figure",
  "figcaption",
  "address",
  "details",
  "summary",
  "dl",
  "dt",
  "dd",
  "hr",
  "center",
  "fieldset",
  "legend",
  "caption",
  "form",
]);
// Containers may wrap markdown (kramdown's markdown="1"): their own text keeps its line breaks.
const CONTAINER = new Set([
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "aside",
  "nav",
  "blockquote",
  "figure",
  "details",
  "center",
  "form",
  "fieldset",
  "body",
  "html",
]);
const HEADING = /^h([1-6])$/;
// A <br>: a line break, merged with a source newline that follows it.
const BR = "\uE010";

/**
 * `block`: HTML embedded in markdown becomes markdown (paragraph breaks, `- item` lines, `## heading`
 * lines, pipe tables, fenced code). `inline`: everything stays on its line (a markdown table cell):
 * list items are joined with "; ", blocks and breaks become spaces.
 */
type Mode = "block" | "inline";

interface Context {
  mode: Mode;
  /** Text inside an HTML text block (p, li, td, a, …): source newlines are spaces. */
  collapse: boolean;
  /** Indentation of list items at this depth. */
  indent: string;
  /** Inside a list item: paragraph breaks would end the item, so they are spaces. */
  inItem: boolean;
  /** Elements above this node; past MAX_DEPTH (unclosed tags) the rest is read as plain text. */
  depth: number;
}

const MAX_DEPTH = 64;

function escapeCell(cell: string): string {
  return cell.replace(/\|/g, "\\|");
}

class Writer {
  out = "";
  write(text: string): void {
    this.out += text;
  }
}

function collapseText(text: string): string {
  // A blank line still separates paragraphs: in markdown it ends an HTML block.
  return text
    .replace(/[ \t\f\v\r]*\n[ \t\f\v\r]*(\n[ \t\f\v\r]*)+/g, "\n\n")
    .replace(/[ \t\f\v\r]*\n[ \t\f\v\r]*|[ \t\f\v\r]+/g, " ");
}

function cellText(el: Element): string {
  const w = new Writer();
  walk(el, w, { mode: "inline", collapse: true, indent: "", inItem: false, depth: 0 });
  return w.out.replace(/\s+/g, " ").trim();
}

function renderTable(table: Element, w: Writer, ctx: Context): void {
  const rows: string[][] = [];
  for (const tr of table.querySelectorAll("tr")) {
    // Rows of nested tables belong to the nested table.
    if (tr.closest("table") !== table) continue;
    const cells = [...tr.children].filter((c) => c.localName === "td" || c.localName === "th");
    const row = cells.map(cellText);
    if (row.some(Boolean)) rows.push(row);
  }
  const columns = Math.max(0, ...rows.map((r) => r.length));
  if (ctx.mode === "inline" || columns < 2) {
    // A layout table (one column) is read as paragraphs; a table inside a table cell as one line.
    const sep = ctx.mode === "inline" ? "; " : "\n\n";
    w.write(`${sep}${rows.map((r) => r.filter(Boolean).join(" ")).join(sep)}${sep}`);
    return;
  }
  const pad = (r: string[]) => [...r, ...Array<string>(columns - r.length).fill("")].map(escapeCell);
  const line = (r: string[]) => `| ${pad(r).join(" | ")} |`;
  const [header = [], ...body] = rows;
  const divider = `|${Array<string>(columns).fill(" --- ").join("|")}|`;
  w.write(`\n\n${[line(header), divider, ...body.map(line)].join("\n")}\n\n`);
}

function walk(node: Node, w: Writer, ctx: Context): void {
  // When `node` is a list: how its items are numbered (ol) and how many were written (inline mode).
  const ordered = node.nodeType === 1 && (node as Element).localName === "ol";
  const start = ordered ? Number.parseInt((node as Element).getAttribute("start") ?? "1", 10) : 1;
  let itemNumber = Number.isFinite(start) ? start : 1;
  let items = 0;
  for (const child of node.childNodes) {
    if (child.nodeType === 3) {
      const text = child.textContent ?? "";
      if (!ctx.collapse) w.write(text);
      else if (ctx.mode === "inline" || ctx.inItem) w.write(text.replace(/\s+/g, " "));
      else w.write(collapseText(text));
      continue;
    }
    if (child.nodeType !== 1) continue; // comments
    const el = child as Element;
    const tag = el.localName;
    if (DROP.has(tag)) continue;
    if (ctx.depth >= MAX_DEPTH) {
      w.write(` ${(el.textContent ?? "").replace(/\s+/g, " ")} `);
      continue;
    }
    if (tag === "br") {
      w.write(ctx.mode === "inline" ? " " : BR);
      continue;
    }
    const heading = HEADING.exec(tag);
    if (heading && ctx.mode === "block" && !ctx.inItem) {
      const inner = new Writer();
      walk(el, inner, { ...ctx, collapse: true, depth: ctx.depth + 1 });
      const text = inner.out.replace(/\s+/g, " ").trim();
      if (text) w.write(`\n\n${"#".repeat(Number(heading[1]))} ${text}\n\n`);
      continue;
    }
    if (tag === "table") {
      renderTable(el, w, ctx);
      continue;
    }
    if (tag === "pre") {
      const code = (el.textContent ?? "").replace(/^\n/, "").replace(/\s+$/, "");
      if (ctx.mode === "inline" || ctx.inItem) w.write(` \`${code.replace(/\s+/g, " ")}\` `);
      else w.write(`\n\n\`\`\`\n${code}\n\`\`\`\n\n`);
      continue;
    }
    if (tag === "code") {
      const code = (el.textContent ?? "").replace(/\s+/g, " ");
      const ticks = code.includes("`") ? "``" : "`";
      if (code.trim()) w.write(`${ticks}${code}${ticks}`);
      continue;
    }
    if (tag === "li") {
      if (ctx.mode === "inline") {
        if (items++ > 0) w.write("; ");
        walk(el, w, { ...ctx, collapse: true, depth: ctx.depth + 1 });
        continue;
      }
      const marker = ordered ? `${itemNumber++}.` : "-";
      w.write(`\n${ctx.indent}${marker} `);
      walk(el, w, {
        ...ctx,
        collapse: true,
        inItem: true,
        depth: ctx.depth + 1,
        indent: `${ctx.indent}${" ".repeat(marker.length + 1)}`,
      });
      w.write("\n");
      continue;
    }
    if (tag === "ul" || tag === "ol") {
      if (ctx.mode === "inline") {
        w.write(" ");
        walk(el, w, { ...ctx, depth: ctx.depth + 1 });
        w.write(" ");
      } else {
        w.write(ctx.inItem ? "\n" : "\n\n");
        walk(el, w, { ...ctx, depth: ctx.depth + 1 });
        w.write(ctx.inItem ? "\n" : "\n\n");
      }
      continue;
    }
    const block = BLOCK.has(tag) || HEADING.test(tag);
    const breakText = ctx.mode === "inline" || ctx.inItem ? " " : "\n\n";
    if (block) w.write(breakText);
    walk(el, w, {
      ...ctx,
      collapse: ctx.collapse || ctx.mode === "inline" || !CONTAINER.has(tag),
      depth: ctx.depth + 1,
    });
    if (block) w.write(breakText);
  }
}

/**
 * Rewrites the raw HTML inside a markdown text as markdown, keeping the markdown around it verbatim:
 * block tags become paragraph breaks, `<br>` a line break, `<li>` a `- ` or `1. ` line, `<h2>` a `## `
 * heading line, `<table>` a pipe table, `<pre>` a code fence, `<code>` a code span; links keep their
 * text; images, media, scripts and styles are dropped; entities are decoded.
 */
export function htmlToMarkdown(text: string, mode: Mode): string {
  if (!/[<&]/.test(text)) return text;
  checkMarkupBudget(text);
  const { document } = parseHTML(`<!doctype html><html><body>${text}</body></html>`);
  const body = (document as unknown as Document).querySelector("body");
  if (!body) return text;
  const w = new Writer();
  walk(body, w, { mode, collapse: false, indent: "", inItem: false, depth: 0 });
  return w.out
    .replace(/\u00a0/g, " ")
    .replace(new RegExp(`[ \\t]*${BR}[ \\t]*\\n?`, "g"), "\n")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n");
}
