import type { AnswerEvent } from "@lore/shared";
import { AppError } from "../errors.ts";
import { answerEventEncoder, sseHeaders } from "./sse.ts";

/** How long a finished answer's events are kept for a reconnecting client. */
const RETAIN_MS = 5 * 60_000;
/** Answers kept at once (running and finished); past it the oldest finished one goes first. */
const MAX_ANSWERS = 2_000;
/** Bytes of events kept per answer; an answer that outgrows it can no longer be resumed. */
const MAX_ANSWER_BYTES = 512 * 1024;
const HEARTBEAT_MS = 15_000;

/** What a live follower is told: one more event's text, or the end (null). */
type Listener = (text: string | null) => void;

interface Kept {
  /** Who may resume it: the agent and the caller (see the routes' `resumeOwner`). */
  owners: readonly string[];
  /** Each event as sent, by its sequence number (the part of its id after the colon). */
  events: string[];
  bytes: number;
  /** Over MAX_ANSWER_BYTES: no longer resumable. */
  overflowed: boolean;
  finishedAt: number | null;
  listeners: Set<Listener>;
}

/** An answer stream being kept as it is sent: encode each event with it, end it when the stream ends. */
export interface AnswerRecorder {
  /** Lore's encoding of the event (`id: <messageId>:<seq>`), kept once the start event names the answer. */
  encode(event: AnswerEvent): string;
  /** The events of `events`, marking the answer finished however they end (done, error, abort). */
  track(events: AsyncGenerator<AnswerEvent>): AsyncGenerator<AnswerEvent>;
}

/**
 * Answer streams kept for a while after they are sent, so a client reconnecting with `Last-Event-ID`
 * (EventSource, fetch-event-source) gets the events it missed and the rest live, or, when the
 * answer is over and it has them all, a 204 (EventSource then stops): never a new answer. Per
 * process: a reconnect must reach the replica that streamed the answer (docs/api.md).
 */
export class AnswerReplay {
  readonly #answers = new Map<string, Kept>();

  /** Keeps the answer a stream is about to send, resumable by any of `owners`. */
  record(owners: readonly string[]): AnswerRecorder {
    const encode = answerEventEncoder();
    let kept: Kept | undefined;
    const finish = () => {
      if (!kept || kept.finishedAt !== null) return;
      kept.finishedAt = Date.now();
      for (const listener of kept.listeners) listener(null);
      kept.listeners.clear();
    };
    return {
      encode: (event) => {
        const text = encode(event);
        if (event.type === "start") kept = this.#open(event.messageId, owners);
        if (kept && !kept.overflowed) {
          kept.bytes += text.length;
          if (kept.bytes > MAX_ANSWER_BYTES) {
            kept.overflowed = true;
            kept.events = [];
          } else kept.events.push(text);
          for (const listener of kept.listeners) listener(text);
        }
        if (event.type === "done" || event.type === "error") finish();
        return text;
      },
      track: async function* (events) {
        try {
          yield* events;
        } finally {
          // After the stream's last event is encoded (streamEvents encodes a failure after this).
          queueMicrotask(finish);
        }
      },
    };
  }

  /**
   * The answer to a reconnect with `Last-Event-ID: <messageId>:<seq>` by `owner`: the events after
   * it and then the live ones, or 204 when the answer is over and nothing is missed. An id that is
   * not a kept answer of this owner is 404 (an answer of another caller is not told apart).
   */
  resume(lastEventId: string, owner: string): Response {
    const match = /^([A-Za-z0-9-]{1,64}):(\d{1,9})$/.exec(lastEventId.trim());
    const kept = match?.[1] ? this.#answers.get(match[1]) : undefined;
    if (!match || !kept?.owners.includes(owner) || this.#expired(kept))
      throw new AppError(
        "not_found",
        "No answer stream to resume with this Last-Event-ID: it is unknown, expired, or another caller's; ask again without Last-Event-ID",
        { resource: "answer_stream", id: lastEventId.slice(0, 100) },
      );
    if (kept.overflowed)
      throw new AppError("not_found", "This answer was too long to keep for resuming; ask again", {
        resource: "answer_stream",
        id: lastEventId.slice(0, 100),
      });
    const missed = kept.events.slice(Number(match[2]) + 1);
    if (missed.length === 0 && kept.finishedAt !== null) return new Response(null, { status: 204 });
    return replayStream(kept, missed);
  }

  #expired(kept: Kept): boolean {
    return kept.finishedAt !== null && Date.now() - kept.finishedAt > RETAIN_MS;
  }

  #open(messageId: string, owners: readonly string[]): Kept {
    this.#sweep();
    const kept: Kept = {
      owners,
      events: [],
      bytes: 0,
      overflowed: false,
      finishedAt: null,
      listeners: new Set(),
    };
    this.#answers.set(messageId, kept);
    return kept;
  }

  /** Drops expired answers, then the oldest finished ones (else the oldest) while over MAX_ANSWERS. */
  #sweep(): void {
    for (const [id, kept] of this.#answers) if (this.#expired(kept)) this.#answers.delete(id);
    while (this.#answers.size >= MAX_ANSWERS) {
      let victim: string | undefined;
      for (const [id, kept] of this.#answers)
        if (kept.finishedAt !== null) {
          victim = id;
          break;
        }
      victim ??= this.#answers.keys().next().value;
      if (victim === undefined) return;
      this.#answers.delete(victim);
    }
  }
}

/** The missed events, then (while the answer runs) each new one as it is sent, with heartbeats. */
function replayStream(kept: Kept, missed: string[]): Response {
  const encoder = new TextEncoder();
  let heartbeat: NodeJS.Timeout | undefined;
  let listener: Listener | undefined;
  const stop = () => {
    clearInterval(heartbeat);
    if (listener) kept.listeners.delete(listener);
  };
  const body = new ReadableStream<Uint8Array>({
    start(out) {
      for (const text of missed) out.enqueue(encoder.encode(text));
      if (kept.finishedAt !== null) {
        out.close();
        return;
      }
      listener = (text) => {
        try {
          if (text === null) {
            stop();
            out.close();
          } else out.enqueue(encoder.encode(text));
        } catch {
          stop(); // the client went away
        }
      };
      kept.listeners.add(listener);
      heartbeat = setInterval(() => listener?.(": heartbeat\n\n"), HEARTBEAT_MS);
    },
    cancel: stop,
  });
  return new Response(body, { status: 200, headers: sseHeaders });
}
