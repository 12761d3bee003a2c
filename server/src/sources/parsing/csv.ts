import type { ParsedDocument } from "../documents.ts";
import { decodeText, renderTableRows } from "./text-utils.ts";

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF); the delimiter is sniffed from the first line. */
export function parseCsvRows(text: string, delimiter = sniffDelimiter(text)): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inQuotes) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else field += ch;
    } else if (ch === '"' && field.length === 0) inQuotes = true;
    else if (ch === delimiter) {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field.length > 0 || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((c) => c.trim().length > 0));
}

function sniffDelimiter(text: string): string {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  let best = ",";
  let bestCount = 0;
  for (const candidate of [",", ";", "\t", "|"]) {
    const count = firstLine.split(candidate).length - 1;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}

/** CSV: one table section; each row becomes a "column: value; …" line so rows stand alone in chunks. */
export function parseCsv(body: Uint8Array | string, title: string): ParsedDocument {
  const text = renderTableRows(parseCsvRows(decodeText(body)));
  return {
    title,
    kind: "csv",
    sections: text ? [{ headingPath: [], text, page: null, isTable: true }] : [],
    pageCount: null,
  };
}
