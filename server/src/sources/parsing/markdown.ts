import type { ParsedDocument, ParsedSection } from "../documents.ts";
import { htmlToMarkdown } from "./html-fragment.ts";
import {
  CODE_SPAN,
  LINK_DEFINITION,
  normalizeLabel,
  removeKramdown,
  removeTemplateTags,
  Stash,
  stripInlineMarkdown,
  unwrapAutolinks,
} from "./markup.ts";
import { collapseWhitespace, decodeText } from "./text-utils.ts";

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const QUOTE_MARKERS = /^(?: {0,3}>[ \t]?)+/;

function isTableStart(lines: readonly string[], i: number): boolean {
  const next = lines[i + 1] ?? "";
  return (lines[i] ?? "").includes("|") && TABLE_DIVIDER.test(next) && next.includes("-");
}

function isListItem(line: string): boolean {
  return LIST_ITEM.test(line) && !THEMATIC_BREAK.test(line);
}

function indentWidth(line: string): number {
  return (/^[ \t]*/.exec(line)?.[0] ?? "").replace(/\t/g, "    ").length;
}

/** One line of text: inline markdown stripped, runs of spaces collapsed. */
function cleanLine(line: string, definitions: ReadonlySet<string>): string {
  return collapseWhitespace(stripInlineMarkdown(line, definitions));
}

interface FrontMatter {
  title: string | null;
  description: string | null;
}

/** A scalar of simple YAML front matter: plain, quoted, or a folded/literal block (`>-`, `|`). */
function frontMatterValue(lines: readonly string[], key: RegExp): string | null {
  const start = lines.findIndex((l) => key.test(l));
  if (start < 0) return null;
  const first = (lines[start] ?? "").replace(key, "").trim();
  const parts = /^[>|][+-]?\d*$/.test(first) ? [] : [first];
  for (let i = start + 1; i < lines.length && /^(\s+\S|\s*$)/.test(lines[i] ?? ""); i++)
    parts.push((lines[i] ?? "").trim());
  let value = collapseWhitespace(parts.join(" "));
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
    value = value.slice(1, -1);
    value = quote === "'" ? value.replace(/''/g, "'") : value.replace(/\\(["\\])/g, "$1");
  }
  return value || null;
}

function readFrontMatter(lines: string[]): { meta: FrontMatter; body: string[] } {
  const none = { meta: { title: null, description: null }, body: lines };
  if (lines[0]?.trim() !== "---") return none;
  const end = lines.findIndex((l, i) => i > 0 && (l.trim() === "---" || l.trim() === "..."));
  if (end < 0) return none;
  const yaml = lines.slice(1, end);
  return {
    meta: {
      title: frontMatterValue(yaml, /^title\s*:/i),
      description: frontMatterValue(yaml, /^description\s*:/i) ?? frontMatterValue(yaml, /^summary\s*:/i),
    },
    body: lines.slice(end + 1),
  };
}

/**
 * Turns a help article's source into plain markdown: template tags, kramdown attributes, link
 * definitions, blockquote markers and raw HTML are rewritten or removed; fenced code is left alone.
 */
function normalizeSource(text: string): { lines: string[]; definitions: Set<string> } {
  const lines = removeTemplateTags(text).split("\n");
  const out: string[] = [];
  const prose: string[] = [];
  const definitions = new Set<string>();
  const convert = (chunk: string[], mode: "block" | "inline"): string[] => {
    const code = new Stash();
    const source = removeKramdown(chunk.join("\n").replace(CODE_SPAN, (span) => code.put(span)));
    const html = htmlToMarkdown(mode === "block" ? unwrapAutolinks(source) : source, mode);
    return code.restore(html).split("\n");
  };
  const flushProse = (): void => {
    if (prose.length > 0) out.push(...convert(prose, "block"));
    prose.length = 0;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const fence = FENCE.exec(line);
    if (fence) {
      flushProse();
      const marker = fence[1] ?? "```";
      let j = i + 1;
      while (j < lines.length && !(lines[j] ?? "").trim().startsWith(marker)) j++;
      out.push(...lines.slice(i, j + 1));
      i = j;
      continue;
    }
    if (isTableStart(lines, i)) {
      flushProse();
      let j = i + 2;
      while (j < lines.length && (lines[j] ?? "").includes("|") && (lines[j] ?? "").trim()) j++;
      out.push(...convert(lines.slice(i, j), "inline"));
      i = j - 1;
      continue;
    }
    const definition = LINK_DEFINITION.exec(line);
    if (definition?.[1]) {
      definitions.add(normalizeLabel(definition[1]));
      continue;
    }
    const quote = QUOTE_MARKERS.exec(line);
    // A quote starts a block of its own: without its ">" it must not run on from the line above.
    if (quote && (prose.at(-1) ?? "").trim() && !QUOTE_MARKERS.test(lines[i - 1] ?? "")) prose.push("");
    prose.push(quote ? line.slice(quote[0].length) : line);
  }
  flushProse();
  return { lines: out, definitions };
}

function splitTableRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, "|"));
}

/** A pipe table, cleaned cell by cell and laid out as a plain markdown table (header, divider, rows). */
function renderTable(rows: string[][], definitions: ReadonlySet<string>): string {
  const cells = rows.map((r) => r.map((c) => cleanLine(c, definitions).replace(/\|/g, "\\|")));
  const [header = [], ...body] = cells;
  const filled = body.filter((r) => r.some(Boolean));
  if (!header.some(Boolean) && filled.length === 0) return "";
  const columns = Math.max(header.length, ...filled.map((r) => r.length));
  const line = (r: string[]) =>
    `| ${[...r, ...Array<string>(columns - r.length).fill("")].join(" | ")} |`.replace(/ {2,}/g, " ");
  return [line(header), `|${Array<string>(columns).fill(" --- ").join("|")}|`, ...filled.map(line)].join(
    "\n",
  );
}

interface ListLevel {
  /** Source indentation of this level's markers. */
  indent: number;
  /** Output indentation of this level's markers. */
  column: number;
  ordered: boolean;
  next: number;
}

/**
 * A list from its first item on: one line per item (a loose list is made tight), `-` bullets, ordered
 * items numbered as a renderer shows them ("1. 1. 1." → "1. 2. 3."), nesting kept as indentation under
 * the parent's text, continuation lines joined to their item. Returns the list and the next line index.
 */
function readList(lines: readonly string[], start: number, definitions: ReadonlySet<string>) {
  const out: string[] = [];
  const levels: ListLevel[] = [];
  let contentColumn = 0;
  let blank = false;
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!line.trim()) {
      blank = true;
      continue;
    }
    const item = isListItem(line) ? LIST_ITEM.exec(line) : null;
    if (item) {
      const indent = indentWidth(line);
      const ordered = /\d/.test(item[2] ?? "");
      const number = ordered ? Number.parseInt(item[2] ?? "1", 10) : 0;
      while (levels.length > 0 && indent < (levels.at(-1)?.indent ?? 0) - 1) levels.pop();
      let level = levels.at(-1);
      // A bullet list right after a numbered one (or the reverse) is a list of its own.
      if (levels.length === 1 && level && level.ordered !== ordered && indent < level.indent + 2) break;
      if (!level || indent >= level.indent + 2) {
        level = { indent, column: level ? contentColumn : 0, ordered, next: number };
        levels.push(level);
      } else if (level.ordered !== ordered) {
        level.ordered = ordered;
        level.next = number;
      }
      const text = cleanLine(item[3] ?? "", definitions);
      blank = false;
      if (!text) continue;
      const marker = ordered ? `${level.next++}.` : "-";
      out.push(`${" ".repeat(level.column)}${marker} ${text}`);
      contentColumn = level.column + marker.length + 1;
      continue;
    }
    const interrupts =
      FENCE.test(line) || ATX_HEADING.test(line) || THEMATIC_BREAK.test(line) || isTableStart(lines, i);
    if (interrupts || (blank && indentWidth(line) < 2)) break;
    const text = cleanLine(line, definitions);
    if (text && out.length > 0) out.push(`${" ".repeat(contentColumn)}${text}`);
    blank = false;
  }
  return { text: out.join("\n"), next: i };
}

/**
 * Markdown, including what help centers put in it: ATX/setext headings (and HTML `<h2>`) become the
 * heading path; fenced code is kept verbatim; lists stay one item per line; pipe tables (and HTML
 * tables) become plain markdown tables; Liquid/Jekyll and Hugo tags, kramdown attributes, raw HTML,
 * images, link targets and emphasis markers are removed (see markup.ts, html-fragment.ts).
 * YAML front matter is dropped: its `title:` is the title, its `description:` (or `summary:`) the
 * first paragraph unless the body already says it.
 */
export function parseMarkdown(body: Uint8Array | string, fallbackTitle: string): ParsedDocument {
  const { meta, body: sourceLines } = readFrontMatter(decodeText(body).replace(/\r\n?/g, "\n").split("\n"));
  const { lines, definitions } = normalizeSource(sourceLines.join("\n"));
  let title = meta.title;

  const sections: ParsedSection[] = [];
  const path: string[] = [];
  const levels: number[] = [];
  let blocks: string[] = [];
  let paragraph: string[] = [];

  const endParagraph = (): void => {
    if (paragraph.length > 0) blocks.push(paragraph.join("\n"));
    paragraph = [];
  };
  const flush = (): void => {
    endParagraph();
    const text = blocks.join("\n\n").trim();
    if (text) sections.push({ headingPath: [...path], text, page: null });
    blocks = [];
  };
  const openHeading = (level: number, text: string): void => {
    flush();
    while (levels.length > 0 && (levels[levels.length - 1] ?? 0) >= level) {
      levels.pop();
      path.pop();
    }
    const clean = cleanLine(text.replace(/\s*\{[#.][^}]*\}\s*$/, ""), definitions).replace(/`/g, "");
    levels.push(level);
    path.push(clean);
    if (level === 1 && title === null && clean) title = clean;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!line.trim()) {
      endParagraph();
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      endParagraph();
      const marker = fence[1] ?? "```";
      const code: string[] = [line.trim()];
      let j = i + 1;
      while (j < lines.length && !(lines[j] ?? "").trim().startsWith(marker)) code.push(lines[j++] ?? "");
      code.push(marker);
      blocks.push(code.join("\n"));
      i = j;
      continue;
    }
    const atx = ATX_HEADING.exec(line);
    if (atx) {
      openHeading(atx[1]?.length ?? 1, atx[2] ?? "");
      continue;
    }
    const next = lines[i + 1] ?? "";
    if (paragraph.length === 0 && !line.startsWith("    ") && /^ {0,3}(=+|-+)\s*$/.test(next)) {
      openHeading(next.trim().startsWith("=") ? 1 : 2, line.trim());
      i++;
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      endParagraph();
      continue;
    }
    if (isTableStart(lines, i)) {
      endParagraph();
      const rows: string[][] = [splitTableRow(line)];
      let j = i + 2;
      while (j < lines.length && (lines[j] ?? "").includes("|") && (lines[j] ?? "").trim())
        rows.push(splitTableRow(lines[j++] ?? ""));
      const table = renderTable(rows, definitions);
      if (table) blocks.push(table);
      i = j - 1;
      continue;
    }
    const item = isListItem(line) ? LIST_ITEM.exec(line) : null;
    // As in CommonMark, only a bullet or a "1." starts a list in the middle of a paragraph.
    if (item && (paragraph.length === 0 || !/^\d/.test(item[2] ?? "") || /^0*1\D/.test(item[2] ?? ""))) {
      endParagraph();
      const list = readList(lines, i, definitions);
      if (list.text) blocks.push(list.text);
      i = list.next - 1;
      continue;
    }
    const text = cleanLine(line, definitions);
    if (text) paragraph.push(text);
  }
  flush();
  addDescription(sections, meta.description, definitions);
  return { title: title ?? fallbackTitle, kind: "markdown", sections, pageCount: null };
}

/** The front matter's description as the first paragraph, unless the article already says it. */
function addDescription(
  sections: ParsedSection[],
  description: string | null,
  definitions: ReadonlySet<string>,
): void {
  const text = description ? cleanLine(removeTemplateTags(description), definitions) : "";
  if (!text) return;
  const said = collapseWhitespace(sections.map((s) => s.text).join(" ")).toLowerCase();
  if (said.includes(text.toLowerCase())) return;
  const first = sections[0];
  if (first) first.text = `${text}\n\n${first.text}`;
  else sections.push({ headingPath: [], text, page: null });
}
