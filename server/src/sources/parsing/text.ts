import type { ParsedDocument } from "../documents.ts";
import { decodeText, tidyText } from "./text-utils.ts";

/** Plain text: one section; paragraphs (blank-line separated) are kept for the chunker. */
export function parseText(body: Uint8Array | string, title: string): ParsedDocument {
  const text = tidyText(decodeText(body));
  return {
    title,
    kind: "text",
    sections: text ? [{ headingPath: [], text, page: null }] : [],
    pageCount: null,
  };
}
