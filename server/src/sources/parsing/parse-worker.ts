import { parentPort } from "node:worker_threads";
import { chunkedDocument } from "../chunking/chunk-document.ts";
import type { ChunkedDocument, ParsedDocument, RawDocument } from "../documents.ts";
import { ParseError } from "../documents.ts";
import { UnsupportedTypeError } from "./detect-kind.ts";
import { parseDocument } from "./parse-document.ts";

/** What a worker does with a document: parse it, or parse and chunk it (what a sync needs). */
export type ParseTask = "parse" | "chunk";

/** Worker entry for parse-in-worker.ts: one message in ({id, task, raw}), one out ({id, ok, …}). */
export interface ParseRequest {
  id: number;
  task: ParseTask;
  raw: RawDocument;
}
export type ParseReply =
  | { id: number; ok: true; task: "parse"; doc: ParsedDocument }
  | { id: number; ok: true; task: "chunk"; doc: ChunkedDocument }
  | {
      id: number;
      ok: false;
      error: { kind: "parse" | "unsupported" | "other"; message: string; detected?: string };
    };

async function run(id: number, task: ParseTask, raw: RawDocument): Promise<ParseReply> {
  const parsed = await parseDocument(raw);
  // Chunking here keeps its token counting and language detection off the server's event loop.
  return task === "chunk"
    ? { id, ok: true, task, doc: chunkedDocument(parsed) }
    : { id, ok: true, task, doc: parsed };
}

parentPort?.on("message", async ({ id, task, raw }: ParseRequest) => {
  let reply: ParseReply;
  try {
    reply = await run(id, task, raw);
  } catch (err) {
    if (err instanceof UnsupportedTypeError)
      reply = { id, ok: false, error: { kind: "unsupported", message: err.message, detected: err.detected } };
    else if (err instanceof ParseError)
      reply = { id, ok: false, error: { kind: "parse", message: err.message } };
    // A stack or string overflow is this file's fault: fail it with the reason, never the whole sync.
    else if (err instanceof RangeError)
      reply = {
        id,
        ok: false,
        error: { kind: "parse", message: `the document could not be read (${err.message})` },
      };
    else
      reply = {
        id,
        ok: false,
        error: { kind: "other", message: err instanceof Error ? err.message : String(err) },
      };
  }
  parentPort?.postMessage(reply);
});
