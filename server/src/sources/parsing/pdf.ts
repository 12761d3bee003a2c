import { getDocumentProxy } from "unpdf";
import type { ParsedDocument, ParsedSection } from "../documents.ts";
import { ParseError } from "../documents.ts";
import { checkPdfInflation } from "./pdf-inflation.ts";

interface PdfLine {
  text: string;
  /** Baseline y in PDF space (grows upwards). */
  y: number;
  x: number;
  size: number;
}

interface PositionedItem {
  str: string;
  transform: unknown[];
  hasEOL?: boolean;
}

function isPositionedItem(item: unknown): item is PositionedItem {
  return typeof item === "object" && item !== null && "str" in item && "transform" in item;
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** Groups a page's text items into lines (pdf.js marks line ends with hasEOL; a baseline jump also ends one). */
function toLines(items: unknown[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let current: PdfLine | null = null;
  for (const item of items) {
    if (!isPositionedItem(item)) continue;
    const y = num(item.transform[5]);
    const size =
      Math.abs(num(item.transform[3])) || Math.hypot(num(item.transform[2]), num(item.transform[3]));
    if (current && Math.abs(current.y - y) > Math.max(2, current.size * 0.5) && item.str.trim()) {
      lines.push(current);
      current = null;
    }
    if (!current) current = { text: "", y, x: num(item.transform[4]), size: 0 };
    current.text += item.str;
    if (item.str.trim()) current.size = Math.max(current.size, size);
    if (item.hasEOL) {
      lines.push(current);
      current = null;
    }
  }
  if (current) lines.push(current);
  return lines
    .map((l) => ({ ...l, text: l.text.replace(/\s+/g, " ").trim() }))
    .filter((l) => l.text.length > 0);
}

/** The font size that carries the most characters: the body text size. */
function bodySize(pages: PdfLine[][]): number {
  const weight = new Map<number, number>();
  for (const page of pages)
    for (const line of page) {
      const key = Math.round(line.size * 2) / 2;
      weight.set(key, (weight.get(key) ?? 0) + line.text.length);
    }
  let best = 0;
  let bestWeight = -1;
  for (const [size, w] of weight)
    if (w > bestWeight) {
      best = size;
      bestWeight = w;
    }
  return best;
}

function looksLikeHeading(line: PdfLine, body: number): boolean {
  return (
    body > 0 &&
    line.size >= body * 1.25 &&
    line.text.length >= 2 &&
    line.text.length <= 120 &&
    /\p{L}{2}/u.test(line.text) &&
    !/[.,;:]$/.test(line.text)
  );
}

/** Joins a line onto a paragraph, repairing words hyphenated across the line break. */
function appendLine(paragraph: string, line: string): string {
  if (!paragraph) return line;
  if (/\p{Ll}-$/u.test(paragraph) && /^\p{Ll}/u.test(line)) return paragraph.slice(0, -1) + line;
  return `${paragraph} ${line}`;
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/** More pages than this in one PDF is refused before any is read (a long manual has a few thousand). */
export const PDF_MAX_PAGES = 5_000;
/** More text items than this in one PDF is refused as they are read (a dense page holds a few thousand). */
export const PDF_MAX_TEXT_ITEMS = 2_000_000;

/**
 * PDF text layer, one or more sections per page (page numbers kept for citations). Lines become
 * paragraphs by vertical gaps; lines set clearly larger than the body text become the heading path.
 * Encrypted, malformed and text-less PDFs throw ParseError with the reason, and so does one past its
 * page or text-item budget, counted page by page as it is read (issue #49: one workspace's file must
 * not hold a parse thread for long).
 */
export async function parsePdf(
  bytes: Uint8Array,
  fallbackTitle: string,
  limits: { pages: number; textItems: number } = { pages: PDF_MAX_PAGES, textItems: PDF_MAX_TEXT_ITEMS },
): Promise<ParsedDocument> {
  // pdf.js inflates streams into native memory no heap limit bounds: measure them first.
  checkPdfInflation(bytes);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js may transfer (detach) the buffer it is given: hand it a copy.
    pdf = await getDocumentProxy(bytes.slice(), { verbosity: 0, stopAtErrors: false });
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "PasswordException")
      throw new ParseError("encrypted PDF: a password is required to read it");
    throw new ParseError(`malformed PDF: ${describe(err)}`);
  }
  try {
    if (pdf.numPages > limits.pages)
      throw new ParseError(`the PDF has ${pdf.numPages} pages, more than the ${limits.pages} read`);
    const pages: PdfLine[][] = [];
    let textItems = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      textItems += content.items.length;
      if (textItems > limits.textItems)
        throw new ParseError(`the PDF has more than ${limits.textItems} pieces of text (by page ${n})`);
      pages.push(toLines(content.items));
      page.cleanup();
    }
    let title = fallbackTitle;
    try {
      const meta = await pdf.getMetadata();
      const info = meta.info as Record<string, unknown> | undefined;
      const t = typeof info?.Title === "string" ? info.Title.trim() : "";
      // Producer junk ("Microsoft Word - x.docx", SEC accession numbers) is worse than the file name.
      if (t && /\p{L}{3}/u.test(t) && !/^(untitled|microsoft word|document\d*)\b/i.test(t)) title = t;
    } catch {
      // Broken metadata is not a reason to lose the text.
    }
    const body = bodySize(pages);
    const headingSizes = [
      ...new Set(
        pages
          .flat()
          .filter((l) => looksLikeHeading(l, body))
          .map((l) => Math.round(l.size)),
      ),
    ].sort((a, b) => b - a);
    // Only the two largest heading sizes make structure; finer ones are usually emphasis.
    const levelOf = (size: number): number | null => {
      const i = headingSizes.indexOf(Math.round(size));
      return i >= 0 && i < 2 ? i + 1 : null;
    };

    const sections: ParsedSection[] = [];
    const path: string[] = [];
    const levels: number[] = [];
    pages.forEach((lines, index) => {
      const pageNumber = index + 1;
      let paragraphs: string[] = [];
      let paragraph = "";
      let prev: PdfLine | null = null;
      const endParagraph = (): void => {
        if (paragraph.trim()) paragraphs.push(paragraph.trim());
        paragraph = "";
      };
      const flush = (): void => {
        endParagraph();
        if (paragraphs.length)
          sections.push({ headingPath: [...path], text: paragraphs.join("\n\n"), page: pageNumber });
        paragraphs = [];
      };
      for (const line of lines) {
        const level = looksLikeHeading(line, body) ? levelOf(line.size) : null;
        if (level !== null) {
          // Consecutive heading lines of one size are one wrapped heading.
          if (
            prev &&
            prev.size === line.size &&
            paragraph === "" &&
            paragraphs.length === 0 &&
            path.length > 0 &&
            levels.at(-1) === level &&
            prev.y - line.y < line.size * 2 &&
            (path.at(-1) ?? "").length + line.text.length < 150
          ) {
            path[path.length - 1] = `${path[path.length - 1] ?? ""} ${line.text}`;
          } else {
            flush();
            while (levels.length > 0 && (levels[levels.length - 1] ?? 0) >= level) {
              levels.pop();
              path.pop();
            }
            levels.push(level);
            path.push(line.text);
          }
          prev = line;
          continue;
        }
        if (prev) {
          const gap = prev.y - line.y;
          const lineHeight = Math.max(prev.size, line.size, 1);
          // A wide gap, a move up the page (next column) or a change of font size starts a paragraph.
          if (gap > lineHeight * 1.7 || gap < -lineHeight || Math.abs(prev.size - line.size) > 1.5)
            endParagraph();
        }
        paragraph = appendLine(paragraph, line.text);
        prev = line;
      }
      flush();
    });
    if (sections.length === 0) {
      throw new ParseError(
        `no text layer in ${pdf.numPages} page(s): image-only or scanned PDF (OCR is not supported)`,
      );
    }
    return { title, kind: "pdf", sections, pageCount: pdf.numPages };
  } catch (err) {
    if (err instanceof ParseError) throw err;
    throw new ParseError(`malformed PDF: ${describe(err)}`);
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}
