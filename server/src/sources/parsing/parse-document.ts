import type { DocumentKind } from "@lore/shared";
import type { ParsedDocument, RawDocument } from "../documents.ts";
import { ParseError } from "../documents.ts";
import { parseCsv } from "./csv.ts";
import { detectKind, looksLikeMarkup } from "./detect-kind.ts";
import { parseDocx } from "./docx.ts";
import { parseHtml } from "./html.ts";
import { parseMarkdown } from "./markdown.ts";
import { parsePdf } from "./pdf.ts";
import { parseText } from "./text.ts";
import { decodeText, titleFromFileName } from "./text-utils.ts";

export {
  detectKind,
  SUPPORTED_EXTENSIONS,
  SUPPORTED_FILE_TYPES,
  SUPPORTED_MEDIA_TYPES,
  UnsupportedTypeError,
} from "./detect-kind.ts";

function toBytes(body: Uint8Array | string): Uint8Array {
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}

async function parseAs(kind: DocumentKind, raw: RawDocument, fallbackTitle: string): Promise<ParsedDocument> {
  switch (kind) {
    case "pdf":
      return parsePdf(toBytes(raw.body), fallbackTitle);
    case "docx":
      return parseDocx(toBytes(raw.body), fallbackTitle);
    case "html":
    case "web":
      return parseHtml(raw.body, fallbackTitle, { baseUrl: raw.sourceUrl, kind });
    case "markdown":
      return parseMarkdown(raw.body, fallbackTitle);
    case "notion":
      // The Notion connector renders blocks as markdown; the document keeps its kind.
      return { ...parseMarkdown(raw.body, fallbackTitle), kind: "notion", title: fallbackTitle };
    case "csv":
      return parseCsv(raw.body, fallbackTitle);
    case "text": {
      // A text entry holding a help article (markdown, Liquid tags, HTML) is parsed as one; it stays "text".
      const text = decodeText(raw.body);
      return looksLikeMarkup(text)
        ? { ...parseMarkdown(text, fallbackTitle), kind: "text" }
        : parseText(text, fallbackTitle);
    }
    default:
      return kind satisfies never;
  }
}

/**
 * Parses a raw document into sections, detecting the kind from the content (see detectKind).
 * Throws UnsupportedTypeError (→ 415) for types Lore does not read, ParseError for documents that
 * cannot be read (encrypted, malformed, no text) — record it on the document, never fail the sync.
 */
export async function parseDocument(raw: RawDocument): Promise<ParsedDocument> {
  const kind = detectKind(raw);
  const fallbackTitle = raw.title.trim() || titleFromFileName(raw.fileName) || raw.sourceUrl || "Untitled";
  const doc = await parseAs(kind, raw, fallbackTitle);
  if (raw.kind === "text") doc.title = fallbackTitle;
  if (doc.sections.length === 0) throw new ParseError("no text found in the document");
  return doc;
}
