import type { AnswerEvent } from "@lore/shared";
import { AppError } from "../errors.ts";

const HEARTBEAT_MS = 15_000;

export const sseHeaders = {
  // Without a charset (an event stream is always UTF-8): fetch-based clients such as
  // @microsoft/fetch-event-source check the type with ===, and a mismatch made their README's
  // example retry the request, each retry a new, charged question.
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
};

/** Ends one open stream with a last event (shutdown's deadline). */
type EndStream = (last: AnswerEvent) => void;

// Streams open in this process: a shutdown whose grace period runs out ends each with an error event.
const openStreams = new Set<EndStream>();

/** How many answer streams are open in this process. */
export function openStreamCount(): number {
  return openStreams.size;
}

/**
 * Ends every open stream with an `error` event (`service_unavailable`), so clients see a clean end
 * rather than a cut connection, and aborts the answers behind them.
 */
export function endOpenStreams(message = "The server is restarting; please ask again"): number {
  const ended = openStreams.size;
  for (const end of [...openStreams]) end({ type: "error", error: "service_unavailable", message });
  return ended;
}

/** True when the client asked for Server-Sent Events. */
export function wantsStream(accept: string | undefined): boolean {
  return (accept ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * Lore's own stream: each event is `id: <messageId>:<seq>` (the answer's message id from its start
 * event, then 0, 1, 2… in order) and one `data: {json}` line. No `event:` names, so an `onmessage`
 * handler sees every event. Stateful: one encoder per stream.
 */
export function answerEventEncoder(): (event: AnswerEvent) => string {
  let messageId = "";
  let seq = 0;
  return (event) => {
    if (event.type === "start") messageId = event.messageId;
    const id = messageId === "" ? `${seq}` : `${messageId}:${seq}`;
    seq += 1;
    return `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;
  };
}

/**
 * Runs the generator up to its first event before answering, so validation errors are plain HTTP
 * errors; then streams the encoded events (Lore's by default) with heartbeats. Closing the stream aborts `controller`.
 */
export async function streamEvents(
  events: AsyncGenerator<AnswerEvent>,
  controller: AbortController,
  headers: Record<string, string> = {},
  encode: (event: AnswerEvent) => string = answerEventEncoder(),
  trailer = "",
): Promise<Response> {
  const first = await events.next();
  const encoder = new TextEncoder();
  let heartbeat: NodeJS.Timeout | undefined;
  let end: EndStream | undefined;
  const body = new ReadableStream<Uint8Array>({
    async start(out) {
      let ended = false;
      const send = (text: string) => {
        if (ended) return;
        try {
          out.enqueue(encoder.encode(text));
        } catch {
          controller.abort(new Error("client went away"));
        }
      };
      const finish = (last: AnswerEvent | null) => {
        if (ended) return;
        if (last) send(encode(last));
        // `data: [DONE]` marks a finished stream: after an error the stream just ends, as OpenAI's does.
        if (trailer && last?.type !== "error") send(trailer);
        ended = true;
        clearInterval(heartbeat);
        if (end) openStreams.delete(end);
        try {
          out.close();
        } catch {
          // already closed by a disconnect
        }
      };
      end = (last) => {
        finish(last);
        controller.abort(new Error("server shutting down"));
      };
      openStreams.add(end);
      heartbeat = setInterval(() => send(": heartbeat\n\n"), HEARTBEAT_MS);
      let failure: AnswerEvent | null = null;
      try {
        if (!first.done) send(encode(first.value));
        for await (const event of events) send(encode(event));
      } catch (error) {
        const e =
          error instanceof AppError
            ? error
            : new AppError("internal_error", "The answer could not be completed");
        failure = { type: "error", error: e.code, message: e.message };
      } finally {
        finish(failure);
      }
    },
    cancel() {
      clearInterval(heartbeat);
      if (end) openStreams.delete(end);
      controller.abort(new Error("client disconnected"));
    },
  });
  return new Response(body, { status: 200, headers: { ...sseHeaders, ...headers } });
}

/** Aborts when the request is aborted (client gone) or when the stream is cancelled. */
export function linkedController(requestSignal: AbortSignal): AbortController {
  const controller = new AbortController();
  if (requestSignal.aborted) controller.abort();
  else
    requestSignal.addEventListener("abort", () => controller.abort(new Error("client disconnected")), {
      once: true,
    });
  return controller;
}
