import type { AnswerEvent } from "@lore/shared";
import { AppError } from "../errors.ts";

const HEARTBEAT_MS = 15_000;

export const sseHeaders = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
};

/** True when the client asked for Server-Sent Events. */
export function wantsStream(accept: string | undefined): boolean {
  return (accept ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * Runs the generator up to its first event before answering, so validation errors are plain HTTP
 * errors; then streams `data: {json}` lines with heartbeats. Closing the stream aborts `controller`.
 */
export async function streamEvents(
  events: AsyncGenerator<AnswerEvent>,
  controller: AbortController,
  headers: Record<string, string> = {},
  encode: (event: AnswerEvent) => string = (e) => `data: ${JSON.stringify(e)}\n\n`,
  trailer = "",
): Promise<Response> {
  const first = await events.next();
  const encoder = new TextEncoder();
  let heartbeat: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    async start(out) {
      const send = (text: string) => {
        try {
          out.enqueue(encoder.encode(text));
        } catch {
          controller.abort(new Error("client went away"));
        }
      };
      heartbeat = setInterval(() => send(": heartbeat\n\n"), HEARTBEAT_MS);
      try {
        if (!first.done) send(encode(first.value));
        for await (const event of events) send(encode(event));
      } catch (error) {
        const e =
          error instanceof AppError
            ? error
            : new AppError("internal_error", "The answer could not be completed");
        send(encode({ type: "error", error: e.code, message: e.message }));
      } finally {
        clearInterval(heartbeat);
        if (trailer) send(trailer);
        try {
          out.close();
        } catch {
          // already closed by a disconnect
        }
      }
    },
    cancel() {
      clearInterval(heartbeat);
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
