import type { AnswerEvent } from "@lore/shared";

// One SSE reader for the widget and the console; the console loads it unbundled, hence plain JS.
import { readSseData } from "../../../demo/sse.js";

const eventTypes = new Set<string>(["start", "token", "sources", "done", "error"]);

/** Parses the widget query stream into AnswerEvents; payloads that are not JSON events are skipped. */
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
