import type { DocumentKind } from "@lore/shared";

/** What a connector yields: one document's bytes or text, before parsing. */
export interface RawDocument {
  /** Stable identity inside its data source (file id, canonical URL, Notion page id, entry title). */
  externalId: string;
  title: string;
  sourceUrl: string | null;
  /** The kind when the connector knows it; `null` lets the parser detect it from the content. */
  kind: DocumentKind | null;
  /** File name when there is one (used as a hint, never trusted alone). */
  fileName?: string;
  mediaType?: string;
  body: Uint8Array | string;
}

/**
 * A document the lister knows is indexed as it stands (a stored text entry whose hash and title match
 * its document): listed so the sync keeps it, and never read.
 */
export interface UnchangedDocument {
  externalId: string;
  unchanged: true;
}

/** What a lister yields. */
export type ListedDocument = RawDocument | UnchangedDocument;

export interface ParsedSection {
  /** Headings above this text, outermost first. */
  headingPath: string[];
  text: string;
  /** 1-based page number for paged formats (PDF), otherwise null. */
  page: number | null;
  /** True for a table rendered as text rows; the chunker keeps rows whole. */
  isTable?: boolean;
}

export interface ParsedDocument {
  title: string;
  kind: DocumentKind;
  sections: ParsedSection[];
  pageCount: number | null;
}

export interface ChunkDraft {
  ordinal: number;
  /** What is indexed and shown: the heading path as a context line, a blank line, then `body`. */
  text: string;
  /** The chunk's own text without the heading context line (e.g. for quoting sentences). */
  body: string;
  headingPath: string[];
  page: number | null;
  tokenCount: number;
}

/**
 * A parsed document cut into chunks where it was parsed (the parse worker), as a sync indexes it:
 * its sections and the chunks' `body` stay behind, only what the index stores crosses threads.
 */
export interface ChunkedDocument {
  title: string;
  kind: DocumentKind;
  pageCount: number | null;
  chunks: Omit<ChunkDraft, "body">[];
}

/** A document the parser could not read (encrypted PDF, malformed file): recorded, never fatal to a sync. */
export class ParseError extends Error {
  override readonly name = "ParseError";
}
