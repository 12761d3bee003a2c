/** Decodes bytes as UTF-8 (BOM-aware, UTF-16 by BOM), falling back to Windows-1252 for legacy files. */
export function decodeText(body: Uint8Array | string): string {
  if (typeof body === "string") return body.replace(/^\uFEFF/, "");
  if (body[0] === 0xff && body[1] === 0xfe) return new TextDecoder("utf-16le").decode(body.subarray(2));
  if (body[0] === 0xfe && body[1] === 0xff) return new TextDecoder("utf-16be").decode(body.subarray(2));
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body).replace(/^\uFEFF/, "");
  } catch {
    return new TextDecoder("windows-1252").decode(body);
  }
}

/** Collapses runs of spaces and tabs inside lines, trims lines, and keeps at most one blank line in a row. */
export function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t\f\v\u00a0]+/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Collapses all whitespace (newlines included) to single spaces. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Strips a file extension and turns separators into spaces: "q3-report_final.pdf" → "q3 report final". */
export function titleFromFileName(fileName: string | undefined): string | null {
  if (!fileName) return null;
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const stem = base
    .replace(/\.[a-z0-9]{1,5}$/i, "")
    .replace(/[_-]+/g, " ")
    .trim();
  return stem.length > 0 ? stem : null;
}

/** Renders table rows as one line each, "header: value; header: value", so every row stands alone. */
export function renderTableRows(rows: string[][]): string {
  const cleaned = rows
    .map((row) => row.map((cell) => collapseWhitespace(cell)))
    .filter((row) => row.some((c) => c));
  const [header, ...body] = cleaned;
  if (!header) return "";
  // A lone row (or a table whose first row is not a plausible header) is rendered as plain cells.
  if (body.length === 0) return header.filter(Boolean).join(" | ");
  const names = header.map((h, i) => (h.length > 0 ? h : `Column ${i + 1}`));
  return body
    .map((row) =>
      row
        .map((cell, i) => (cell.length > 0 ? `${names[i] ?? `Column ${i + 1}`}: ${cell}` : ""))
        .filter(Boolean)
        .join("; "),
    )
    .filter(Boolean)
    .join("\n");
}
