import type { ParsedDocument, ParsedSection } from "../documents.ts";
import { decodeText, renderTableRows, tidyText } from "./text-utils.ts";

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Strips inline markdown that adds nothing to retrieval: links keep their text, images their alt text. */
function stripInline(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/<[^>\n]+>/g, "");
}

function splitTableRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((c) => stripInline(c.trim().replace(/\\\|/g, "|")));
}

/**
 * Markdown: ATX and setext headings become the heading path, fenced code is kept verbatim
 * (headings inside fences are code, not structure), pipe tables become row-per-line table sections,
 * YAML front matter is dropped (its `title:` used as the title).
 */
export function parseMarkdown(body: Uint8Array | string, fallbackTitle: string): ParsedDocument {
  let lines = decodeText(body).replace(/\r\n?/g, "\n").split("\n");
  let title: string | null = null;
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((l, i) => i > 0 && (l.trim() === "---" || l.trim() === "..."));
    if (end > 0) {
      const fm = lines.slice(1, end).find((l) => /^title\s*:/i.test(l));
      if (fm)
        title =
          fm
            .replace(/^title\s*:\s*/i, "")
            .replace(/^["']|["']$/g, "")
            .trim() || null;
      lines = lines.slice(end + 1);
    }
  }

  const sections: ParsedSection[] = [];
  const path: string[] = [];
  const levels: number[] = [];
  let buffer: string[] = [];

  const flush = (): void => {
    const text = tidyKeepingCode(buffer);
    if (text) sections.push({ headingPath: [...path], text, page: null });
    buffer = [];
  };
  const openHeading = (level: number, text: string): void => {
    flush();
    while (levels.length > 0 && (levels[levels.length - 1] ?? 0) >= level) {
      levels.pop();
      path.pop();
    }
    const clean = stripInline(text).replace(/[*_`]/g, "").trim();
    levels.push(level);
    path.push(clean);
    if (level === 1 && title === null && clean) title = clean;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? "```";
      const code: string[] = [line.trim()];
      let j = i + 1;
      while (j < lines.length && !(lines[j] ?? "").trim().startsWith(marker)) code.push(lines[j++] ?? "");
      code.push(marker);
      // Code is kept verbatim; \u0000 marks its lines so tidying leaves indentation alone.
      buffer.push(...code.map((c) => `\u0000${c}`));
      i = j;
      continue;
    }
    const atx = ATX_HEADING.exec(line);
    if (atx) {
      openHeading(atx[1]?.length ?? 1, atx[2] ?? "");
      continue;
    }
    const next = lines[i + 1] ?? "";
    if (line.trim() && !line.startsWith("    ") && /^ {0,3}(=+|-+)\s*$/.test(next)) {
      const prevBlank = i === 0 || (lines[i - 1] ?? "").trim() === "";
      if (prevBlank) {
        openHeading(next.trim().startsWith("=") ? 1 : 2, line.trim());
        i++;
        continue;
      }
    }
    if (line.includes("|") && TABLE_DIVIDER.test(next) && next.includes("-")) {
      const rows: string[][] = [splitTableRow(line)];
      let j = i + 2;
      while (j < lines.length && (lines[j] ?? "").includes("|") && (lines[j] ?? "").trim())
        rows.push(splitTableRow(lines[j++] ?? ""));
      flush();
      const text = renderTableRows(rows);
      if (text) sections.push({ headingPath: [...path], text, page: null, isTable: true });
      i = j - 1;
      continue;
    }
    buffer.push(stripInline(line));
  }
  flush();
  return { title: title ?? fallbackTitle, kind: "markdown", sections, pageCount: null };
}

function tidyKeepingCode(lines: string[]): string {
  const out: string[] = [];
  let prose: string[] = [];
  const flushProse = (): void => {
    const t = tidyText(prose.join("\n"));
    if (t) out.push(t);
    prose = [];
  };
  let code: string[] = [];
  for (const l of lines) {
    if (l.startsWith("\u0000")) {
      if (prose.length) flushProse();
      code.push(l.slice(1));
    } else {
      if (code.length) {
        out.push(code.join("\n"));
        code = [];
      }
      prose.push(l);
    }
  }
  if (code.length) out.push(code.join("\n"));
  flushProse();
  return out.join("\n\n").trim();
}
