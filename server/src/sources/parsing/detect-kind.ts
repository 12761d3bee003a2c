import type { DocumentKind } from "@lore/shared";
import type { RawDocument } from "../documents.ts";
import { zipHasEntry } from "./zip.ts";

/** File types an upload may carry; anything else is refused with 415 listing these. */
export const SUPPORTED_FILE_TYPES = [
  { kind: "pdf", extensions: [".pdf"], mediaTypes: ["application/pdf"] },
  {
    kind: "docx",
    extensions: [".docx"],
    mediaTypes: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
  },
  {
    kind: "markdown",
    extensions: [".md", ".markdown", ".mdx"],
    mediaTypes: ["text/markdown", "text/x-markdown"],
  },
  {
    kind: "html",
    extensions: [".html", ".htm", ".xhtml"],
    mediaTypes: ["text/html", "application/xhtml+xml"],
  },
  { kind: "text", extensions: [".txt", ".text", ".log"], mediaTypes: ["text/plain"] },
  { kind: "csv", extensions: [".csv", ".tsv"], mediaTypes: ["text/csv", "text/tab-separated-values"] },
] as const satisfies readonly {
  kind: DocumentKind;
  extensions: readonly string[];
  mediaTypes: readonly string[];
}[];

/** Flat list for error details: [".pdf", ".docx", …, "application/pdf", …]. */
export const SUPPORTED_EXTENSIONS: readonly string[] = SUPPORTED_FILE_TYPES.flatMap((t) => t.extensions);
export const SUPPORTED_MEDIA_TYPES: readonly string[] = SUPPORTED_FILE_TYPES.flatMap((t) => t.mediaTypes);

/** The content is a type Lore does not read (image, archive, legacy Office, other binary): map to 415. */
export class UnsupportedTypeError extends Error {
  override readonly name = "UnsupportedTypeError";
  readonly supported = SUPPORTED_EXTENSIONS;
  constructor(readonly detected: string) {
    super(`unsupported file type (${detected}); supported: ${SUPPORTED_EXTENSIONS.join(", ")}`);
  }
}

const MAGIC: { bytes: number[]; name: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], name: "PNG image" },
  { bytes: [0xff, 0xd8, 0xff], name: "JPEG image" },
  { bytes: [0x47, 0x49, 0x46, 0x38], name: "GIF image" },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], name: "legacy Office document (.doc/.xls/.ppt)" },
  { bytes: [0x1f, 0x8b], name: "gzip archive" },
  { bytes: [0x7b, 0x5c, 0x72, 0x74, 0x66], name: "RTF document" },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], name: "executable" },
  { bytes: [0x52, 0x61, 0x72, 0x21], name: "RAR archive" },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf], name: "7z archive" },
];

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function hintKind(raw: Pick<RawDocument, "fileName" | "mediaType">): DocumentKind | null {
  const name = raw.fileName?.toLowerCase() ?? "";
  const media = raw.mediaType?.toLowerCase().split(";")[0]?.trim() ?? "";
  for (const type of SUPPORTED_FILE_TYPES) {
    if (type.extensions.some((ext) => name.endsWith(ext))) return type.kind;
  }
  for (const type of SUPPORTED_FILE_TYPES) {
    if ((type.mediaTypes as readonly string[]).includes(media)) return type.kind;
  }
  return null;
}

/** Text control characters other than tab/newline/CR/FF/ESC in the head of the file mean binary. */
function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return false;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return false;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i] ?? 0;
    if (b === 0) return true;
    if (b < 9 || (b > 13 && b < 32 && b !== 27)) control++;
  }
  return n > 0 && control / n > 0.05;
}

const HTML_START = /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body)\b/i;
const HTML_TAGS = /<(html|head|body|div|p|h[1-6]|article|main|table|ul|section)\b[^>]*>/gi;

function looksLikeHtml(head: string): boolean {
  if (HTML_START.test(head)) return true;
  return (head.match(HTML_TAGS)?.length ?? 0) >= 3 && /<\/(p|div|h[1-6]|li|td)>/i.test(head);
}

function looksLikeMarkdown(head: string): boolean {
  const headings = head.match(/^#{1,6} \S/gm)?.length ?? 0;
  const fences = head.match(/^```/gm)?.length ?? 0;
  const lists = head.match(/^\s*[-*] \S/gm)?.length ?? 0;
  const links = head.match(/\[[^\]]+\]\([^)]+\)/g)?.length ?? 0;
  return headings >= 1 || fences >= 2 || (lists >= 3 && links >= 1);
}

// Help-center markup: Liquid/Jekyll or Hugo tags, kramdown attributes, HTML tags, entities, markdown
// links, images, reference definitions, emphasis, backslash escapes, pipe tables and YAML front matter.
const MARKUP = [
  /\{%-?\s*[a-z]+[^%]*%\}|\{\{[^{}\n]*\}\}|\{\{[<%][^}]*\}\}/i,
  /\{:[^}\n]*\}|\{::[a-z]+/,
  /<\/?(p|div|br|hr|img|a|ul|ol|li|table|tr|td|th|h[1-6]|strong|em|b|i|span|code|pre|blockquote|section|video|iframe|script|style)\b[^>\n]*>/i,
  /&(nbsp|amp|lt|gt|quot|mdash|ndash|#\d+|#x[0-9a-f]+);/i,
  /!?\[[^\]\n]+\]\([^)\n]+\)/,
  /^ {0,3}\[[^\]\n]+\]:[ \t]*\S+[ \t]*$/m,
  /\*\*\S[^*\n]*\*\*|(^|\s)_[^_\s][^_\n]*_(?=[\s.,;:!?)]|$)/m,
  /\\[_*[\]#`|<>{}]/,
  /^\s*\|.*\|\s*\n\s*\|?\s*:?-{3,}/m,
  /^\uFEFF?---[ \t]*\r?\n[\w-]+[ \t]*:/,
];

/**
 * True when text (a `text` entry or a .txt file) is written in markdown or carries help-center markup,
 * so it is parsed as markdown rather than as plain paragraphs.
 */
export function looksLikeMarkup(text: string): boolean {
  const head = text.slice(0, 65_536);
  return looksLikeMarkdown(head) || MARKUP.some((re) => re.test(head));
}

/**
 * Decides a document's kind from its content first (PDF magic, DOCX zip layout, HTML markup, binary
 * bytes), using the file name / media type only to tell text formats apart. Connectors that know the
 * kind (`web`, `notion`, `text`) keep it. Throws UnsupportedTypeError for unreadable binaries.
 */
export function detectKind(raw: Pick<RawDocument, "body" | "kind" | "fileName" | "mediaType">): DocumentKind {
  const bytes = typeof raw.body === "string" ? null : raw.body;
  if (bytes) {
    // pdf.js accepts a header within the first 1,024 bytes, as do most readers.
    const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
    if (head.includes("%PDF-")) return "pdf";
    if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
      if (zipHasEntry(bytes, "word/document.xml")) return "docx";
      if (zipHasEntry(bytes, "xl/workbook.xml")) throw new UnsupportedTypeError("Excel workbook (.xlsx)");
      if (zipHasEntry(bytes, "ppt/presentation.xml"))
        throw new UnsupportedTypeError("PowerPoint presentation (.pptx)");
      throw new UnsupportedTypeError("zip archive");
    }
    for (const magic of MAGIC) if (startsWith(bytes, magic.bytes)) throw new UnsupportedTypeError(magic.name);
    if (looksBinary(bytes)) throw new UnsupportedTypeError("binary data");
  }
  if (raw.kind === "notion" || raw.kind === "text") return raw.kind;

  const head =
    typeof raw.body === "string"
      ? raw.body.slice(0, 4096)
      : new TextDecoder("utf-8").decode((bytes ?? new Uint8Array()).subarray(0, 4096));
  const hint = hintKind(raw);
  if (raw.kind === "web") return looksLikeHtml(head) || hint === "html" || hint === null ? "web" : hint;
  if (looksLikeHtml(head) && hint !== "markdown" && hint !== "text" && hint !== "csv") return "html";
  if (hint === "pdf" || hint === "docx") {
    // The name says PDF/DOCX but the bytes are not: trust the content.
    return looksLikeMarkdown(head) ? "markdown" : "text";
  }
  if (hint === "html") return looksLikeHtml(head) || /<[a-z]/i.test(head) ? "html" : "text";
  if (hint === "csv" || hint === "markdown") return hint;
  if (hint === "text") return raw.kind === "markdown" ? "markdown" : "text";
  if (raw.kind === "markdown" || raw.kind === "csv" || raw.kind === "html") return raw.kind;
  return looksLikeMarkdown(head) ? "markdown" : "text";
}
