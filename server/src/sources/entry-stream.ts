/**
 * Reading a bulk load of entries as it arrives: NDJSON (one JSON object per line) or a JSON array
 * (its elements parsed one at a time). Only one item is held as text at a time, never the body.
 */

/** A body that cannot be read as items; `at` names the 1-based line (NDJSON) or element (array). */
export class EntryStreamError extends Error {
  override readonly name = "EntryStreamError";
  constructor(
    message: string,
    readonly at: number | null,
  ) {
    super(message);
  }
}

export interface StreamItem {
  /** 1-based line number (NDJSON) or element number (JSON array). */
  at: number;
  value: unknown;
}

/** The longest item accepted as text: an entry's 1 MB of content, its title and JSON escaping. */
export const MAX_ITEM_CHARS = 8 * 1024 * 1024;

async function* decode(body: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  // Fatal: invalid UTF-8 is refused, not turned into U+FFFD.
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const bytes of body) yield decoder.decode(bytes, { stream: true });
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (error) {
    if (error instanceof TypeError) throw new EntryStreamError("The body is not valid UTF-8", null);
    throw error;
  }
}

function parse(text: string, what: string, at: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new EntryStreamError(`${what} ${at} is not valid JSON`, at);
  }
}

/** One JSON value per line; blank lines are skipped but counted, so `at` is the line an editor shows. */
export async function* readNdjson(body: AsyncIterable<Uint8Array>): AsyncIterable<StreamItem> {
  let buffer = "";
  let line = 0;
  const item = (text: string): StreamItem | null => {
    line += 1;
    const trimmed = text.trim();
    return trimmed === "" ? null : { at: line, value: parse(trimmed, "Line", line) };
  };
  for await (const text of decode(body)) {
    buffer += text;
    let end = buffer.indexOf("\n");
    while (end >= 0) {
      const next = item(buffer.slice(0, end));
      if (next) yield next;
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf("\n");
    }
    if (buffer.length > MAX_ITEM_CHARS)
      throw new EntryStreamError(`Line ${line + 1} is longer than ${MAX_ITEM_CHARS} characters`, line + 1);
  }
  const last = item(buffer);
  if (last) yield last;
}

/**
 * The elements of a top-level JSON array, each parsed on its own once its closing `,` or `]` is
 * seen (outside strings); anything but whitespace around the array is an error.
 */
export async function* readJsonArray(body: AsyncIterable<Uint8Array>): AsyncIterable<StreamItem> {
  let state = "before" as "before" | "inside" | "after";
  let element = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  let count = 0;
  for await (const text of decode(body)) {
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (state === "before") {
        if (ch === "[") {
          state = "inside";
          from = i + 1;
        } else if (!/\s/.test(ch ?? "")) throw new EntryStreamError("The body is not a JSON array", null);
        continue;
      }
      if (state === "after") {
        if (!/\s/.test(ch ?? "")) throw new EntryStreamError("Unexpected content after the array", null);
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === "{" || ch === "[") depth += 1;
      else if ((ch === "}" || ch === "]") && depth > 0) depth -= 1;
      else if (depth === 0 && (ch === "," || ch === "]")) {
        element += text.slice(from, i);
        from = i + 1;
        const trimmed = element.trim();
        element = "";
        if (trimmed === "" && ch === "]" && count === 0) {
          state = "after"; // `[]`
          continue;
        }
        count += 1;
        if (trimmed === "") throw new EntryStreamError(`Element ${count} is empty`, count);
        yield { at: count, value: parse(trimmed, "Element", count) };
        if (ch === "]") state = "after";
      }
    }
    if (state === "inside") {
      element += text.slice(from);
      if (element.length > MAX_ITEM_CHARS)
        throw new EntryStreamError(
          `Element ${count + 1} is longer than ${MAX_ITEM_CHARS} characters`,
          count + 1,
        );
    }
  }
  if (state !== "after") throw new EntryStreamError("The JSON array is not closed", null);
}

/** A request body's chunks as they arrive. */
export async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** A body above the bulk cap, found while reading it. */
export class BodyTooLargeError extends Error {
  override readonly name = "BodyTooLargeError";
  constructor(readonly maxBytes: number) {
    super(`The body exceeds ${maxBytes} bytes`);
  }
}

/** The body's chunks, stopping with `BodyTooLargeError` once more than `maxBytes` arrived. */
export async function* capBytes(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): AsyncIterable<Uint8Array> {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new BodyTooLargeError(maxBytes);
    yield chunk;
  }
}

const NDJSON = /^application\/(x-)?(ndjson|jsonl|jsonlines|json-seq)\b/i;
const JSON_TYPE = /^application\/(.+\+)?json\b/i;

/** How a bulk body with this Content-Type is read, or null for a type that is not accepted. */
export function bulkFormat(contentType: string): "ndjson" | "array" | null {
  if (NDJSON.test(contentType)) return "ndjson";
  if (JSON_TYPE.test(contentType)) return "array";
  return null;
}
