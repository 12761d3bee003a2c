import { parentPort } from "node:worker_threads";
import type { RawDocument } from "../documents.ts";
import { ParseError } from "../documents.ts";
import { UnsupportedTypeError } from "./detect-kind.ts";
import { parseDocument } from "./parse-document.ts";

/** Worker entry for parse-in-worker.ts: one message in ({id, raw}), one out ({id, ok, …}). */
export interface ParseRequest {
  id: number;
  raw: RawDocument;
}
export type ParseReply =
  | { id: number; ok: true; doc: Awaited<ReturnType<typeof parseDocument>> }
  | {
      id: number;
      ok: false;
      error: { kind: "parse" | "unsupported" | "other"; message: string; detected?: string };
    };

parentPort?.on("message", async ({ id, raw }: ParseRequest) => {
  let reply: ParseReply;
  try {
    reply = { id, ok: true, doc: await parseDocument(raw) };
  } catch (err) {
    if (err instanceof UnsupportedTypeError)
      reply = { id, ok: false, error: { kind: "unsupported", message: err.message, detected: err.detected } };
    else if (err instanceof ParseError)
      reply = { id, ok: false, error: { kind: "parse", message: err.message } };
    else
      reply = {
        id,
        ok: false,
        error: { kind: "other", message: err instanceof Error ? err.message : String(err) },
      };
  }
  parentPort?.postMessage(reply);
});
