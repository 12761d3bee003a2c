import { Parser } from "htmlparser2";
import type { ParsedDocument, ParsedSection } from "../documents.ts";
import { ParseError } from "../documents.ts";
import { ElementBudget } from "./markup-budget.ts";
import { collapseWhitespace, renderTableRows } from "./text-utils.ts";
import { listZipEntries, readZipEntry, type ZipEntry, ZipTooLargeError } from "./zip.ts";

/** Cap on the inflated size of any one part of a DOCX: beyond this it is a bomb or not worth indexing. */
export const DOCX_MAX_INFLATED_BYTES = 50 * 1024 * 1024;

/** Nesting a Word document's body may have (tables in tables stay far below it). */
export const DOCX_MAX_DEPTH = 256;
/** Elements read from a Word document's body before it is refused as a bomb. */
export const DOCX_MAX_ELEMENTS = 5_000_000;

interface StyleInfo {
  headingLevel: number | null;
  isTitle: boolean;
}

function readStyles(xml: string): Map<string, StyleInfo> {
  const styles = new Map<string, StyleInfo>();
  let current: { id: string; name: string; outline: number | null } | null = null;
  const save = (): void => {
    if (!current) return;
    const byName = /^heading\s*(\d)$/i.exec(current.name) ?? /^Heading(\d)$/.exec(current.id);
    const level = byName ? Number(byName[1]) : current.outline !== null ? current.outline + 1 : null;
    styles.set(current.id, {
      headingLevel: level,
      isTitle: /^title$/i.test(current.name) || current.id === "Title",
    });
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === "w:style") {
          save();
          current = { id: attrs["w:styleId"] ?? "", name: "", outline: null };
        } else if (current && name === "w:name") current.name = attrs["w:val"] ?? "";
        else if (current && name === "w:outlineLvl") {
          const lvl = Number(attrs["w:val"]);
          if (Number.isInteger(lvl) && lvl < 9) current.outline = lvl;
        }
      },
    },
    { xmlMode: true },
  );
  parser.end(xml);
  save();
  return styles;
}

function readCoreTitle(xml: string): string | null {
  const m = /<dc:title>([^<]*)<\/dc:title>/.exec(xml);
  return m?.[1]
    ? collapseWhitespace(m[1].replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">")) || null
    : null;
}

/**
 * DOCX (Office Open XML): paragraphs in order, headings from paragraph styles (Heading1..9, outline
 * levels, or built-in heading names), tables as row lines, list paragraphs prefixed with "- ".
 * The zip parts read share one DOCX_MAX_INFLATED_BYTES budget: the cap is per file, not per part.
 */
export function parseDocx(
  bytes: Uint8Array,
  fallbackTitle: string,
  maxBytes = DOCX_MAX_INFLATED_BYTES,
): ParsedDocument {
  const entries = listZipEntries(bytes);
  const find = (name: string) => entries.find((e) => e.name === name);
  const main = find("word/document.xml");
  if (!main) throw new ParseError("not a Word document: word/document.xml is missing");
  const decoder = new TextDecoder();
  let budget = maxBytes;
  const read = (entry: ZipEntry): string => {
    let data: Uint8Array;
    try {
      data = readZipEntry(bytes, entry, budget);
    } catch (err) {
      if (!(err instanceof ZipTooLargeError) || budget === maxBytes) throw err;
      throw new ZipTooLargeError(`the document's parts inflate past ${maxBytes} bytes (decompression bomb?)`);
    }
    budget -= data.length;
    return decoder.decode(data);
  };
  const documentXml = read(main);
  const stylesEntry = find("word/styles.xml");
  const styles = stylesEntry ? readStyles(read(stylesEntry)) : new Map();
  const coreEntry = find("docProps/core.xml");
  let title = coreEntry ? readCoreTitle(read(coreEntry)) : null;

  const sections: ParsedSection[] = [];
  const path: string[] = [];
  const levels: number[] = [];
  let paragraphs: string[] = [];
  const flush = (): void => {
    const text = paragraphs.join("\n\n").trim();
    if (text) sections.push({ headingPath: [...path], text, page: null });
    paragraphs = [];
  };

  // Parser state.
  let para = "";
  let styleId = "";
  let outline: number | null = null;
  let isList = false;
  let inText = false;
  let tableDepth = 0;
  let rows: string[][] = [];
  let row: string[] = [];
  let cell: string[] = [];

  const endParagraph = (): void => {
    const text = collapseWhitespace(para);
    para = "";
    if (tableDepth > 0) {
      if (text) cell.push(text);
      return;
    }
    const style = styles.get(styleId);
    const level =
      style?.headingLevel ?? (outline !== null ? outline + 1 : (/^Heading(\d)$/.exec(styleId)?.[1] ?? null));
    if (!text) return;
    if (style?.isTitle || styleId === "Title") {
      title ??= text;
      return;
    }
    if (level !== null) {
      flush();
      const n = Number(level);
      while (levels.length > 0 && (levels[levels.length - 1] ?? 0) >= n) {
        levels.pop();
        path.pop();
      }
      levels.push(n);
      path.push(text);
      return;
    }
    paragraphs.push(isList ? `- ${text}` : text);
  };

  // Checked while streaming (issue #49): 2 million nested <w:p> in a 33 KB file held the parse
  // thread for its whole 120 s timeout, and every other workspace's sync behind it.
  const markup = new ElementBudget(DOCX_MAX_DEPTH, DOCX_MAX_ELEMENTS);
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        markup.open();
        switch (name) {
          case "w:p":
            para = "";
            styleId = "";
            outline = null;
            isList = false;
            break;
          case "w:pStyle":
            styleId = attrs["w:val"] ?? "";
            break;
          case "w:outlineLvl": {
            const lvl = Number(attrs["w:val"]);
            if (Number.isInteger(lvl) && lvl < 9) outline = lvl;
            break;
          }
          case "w:numPr":
            isList = true;
            break;
          case "w:t":
            inText = true;
            break;
          case "w:tab":
            para += "\t";
            break;
          case "w:br":
          case "w:cr":
            para += " ";
            break;
          case "w:tbl":
            if (tableDepth === 0) {
              flush();
              rows = [];
            }
            tableDepth++;
            break;
          case "w:tr":
            if (tableDepth === 1) row = [];
            break;
          case "w:tc":
            if (tableDepth === 1) cell = [];
            break;
        }
      },
      ontext(text) {
        if (inText) para += text;
      },
      onclosetag(name) {
        markup.close();
        switch (name) {
          case "w:t":
            inText = false;
            break;
          case "w:p":
            endParagraph();
            break;
          case "w:tc":
            if (tableDepth === 1) row.push(cell.join(" "));
            break;
          case "w:tr":
            if (tableDepth === 1) rows.push(row);
            break;
          case "w:tbl": {
            tableDepth--;
            if (tableDepth === 0) {
              const text = renderTableRows(rows);
              if (text) sections.push({ headingPath: [...path], text, page: null, isTable: true });
            }
            break;
          }
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(documentXml);
  flush();
  return { title: title ?? fallbackTitle, kind: "docx", sections, pageCount: null };
}
