// Server-sent events read from a fetch body (EventSource can't POST): one reader for the widget and
// the console. Only types come from the contract, so the widget's bundle gains no zod.
import type { AnswerEvent } from "./answers.ts";

/**
 * Yields the `data` payload of each server-sent event in a byte stream. Lines starting with ":"
 * (heartbeats) are skipped; multi-line data is joined with "\n".
 */
export async function* readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  // stream: true keeps a multi-byte character split across chunks until its last byte arrives.
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        if (line === "") {
          if (data.length > 0) yield data.join("\n");
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const raw = colon < 0 ? "" : line.slice(colon + 1);
          if (field === "data") data.push(raw.startsWith(" ") ? raw.slice(1) : raw);
        }
      }
      if (done) {
        // Lenient about a missing final blank line: a last event is still delivered.
        if (buffer.startsWith("data:")) data.push(buffer.slice(5).replace(/^ /, ""));
        if (data.length > 0) yield data.join("\n");
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

const eventTypes = new Set<string>(["start", "token", "sources", "done", "error"]);

/** Parses an answer stream into AnswerEvents; payloads that are not JSON events are skipped. */
export async function* readAnswerEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<AnswerEvent> {
  for await (const data of readSseData(body)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      continue;
    }
    if (isAnswerEvent(parsed)) yield parsed;
  }
}

function isAnswerEvent(value: unknown): value is AnswerEvent {
  if (typeof value !== "object" || value === null || !("type" in value)) return false;
  return typeof value.type === "string" && eventTypes.has(value.type);
}
