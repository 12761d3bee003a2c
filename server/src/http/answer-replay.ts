import type { AnswerEvent } from "@lore/shared";
import type { Redis } from "ioredis";
import { AppError } from "../errors.ts";
import { answerEventEncoder, sseHeaders } from "./sse.ts";

/** How long a finished answer's events are kept for a reconnecting client. */
const RETAIN_MS = 5 * 60_000;
/** Answers kept at once (running and finished); past it the oldest finished one goes first. */
const MAX_ANSWERS = 2_000;
/** Bytes of events kept per answer; an answer that outgrows it can no longer be resumed. */
const MAX_ANSWER_BYTES = 512 * 1024;
const HEARTBEAT_MS = 15_000;
/** How often a replica following another replica's answer looks for new events in Redis. */
const POLL_MS = 200;

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
  /** A client came back for it (Last-Event-ID): a dropped connection no longer stops it. */
  resumed: boolean;
  listeners: Set<Listener>;
}

/** An answer stream being kept as it is sent: encode each event with it, end it when the stream ends. */
export interface AnswerRecorder {
  /** Lore's encoding of the event (`id: <messageId>:<seq>`), kept once the start event names the answer. */
  encode(event: AnswerEvent): string;
  /** The events of `events`, marking the answer finished however they end (done, error, abort). */
  track(events: AsyncGenerator<AnswerEvent>): AsyncGenerator<AnswerEvent>;
  /**
   * The signal to answer with when the client's `connection` may drop: the answer goes on after a
   * drop, for the reconnecting client, and stops (aborted with the connection's reason) only when no
   * client resumed it within the grace period, or at once when the server is `draining`.
   */
  outlive(connection: AbortSignal, draining: () => boolean): AbortSignal;
}

/**
 * Answer streams kept for a while after they are sent, so a client reconnecting with `Last-Event-ID`
 * (EventSource, fetch-event-source) gets the events it missed and the rest live, or, when the
 * answer is over and it has them all, a 204 (EventSource then stops): never a new answer. In shared
 * mode each answer is also written to Redis (a list of its events and a hash of its owners and
 * state, expiring with it), so any replica resumes it, following a running answer by polling.
 */
export class AnswerReplay {
  readonly #answers = new Map<string, Kept>();
  readonly #shared: SharedStreams | null;
  readonly #resumeGraceMs: number;

  /** `resumeGraceMs`: how long an answer whose client dropped goes on waiting for it to resume. */
  constructor(redis: Redis | null = null, resumeGraceMs = 10_000) {
    this.#shared = redis ? new SharedStreams(redis) : null;
    this.#resumeGraceMs = resumeGraceMs;
  }

  /** Keeps the answer a stream is about to send, resumable by any of `owners`. */
  record(owners: readonly string[]): AnswerRecorder {
    const encode = answerEventEncoder();
    let kept: Kept | undefined;
    let messageId = "";
    const shared = this.#shared;
    const finish = () => {
      if (!kept || kept.finishedAt !== null) return;
      kept.finishedAt = Date.now();
      for (const listener of kept.listeners) listener(null);
      kept.listeners.clear();
      shared?.finish(messageId, kept.overflowed);
    };
    return {
      encode: (event) => {
        const text = encode(event);
        if (event.type === "start") {
          messageId = event.messageId;
          kept = this.#open(messageId, owners);
          shared?.open(messageId, owners);
        }
        if (kept && !kept.overflowed) {
          kept.bytes += text.length;
          if (kept.bytes > MAX_ANSWER_BYTES) {
            kept.overflowed = true;
            kept.events = [];
          } else {
            kept.events.push(text);
            shared?.append(messageId, text);
          }
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
      outlive: (connection, draining) => {
        const answer = new AbortController();
        const stopUnlessResumed = async (answerKept: Kept) => {
          if (answerKept.resumed || answerKept.finishedAt !== null) return;
          // Resumed on another replica (shared mode) counts the same.
          if ((await shared?.state(messageId))?.resumed) return;
          answer.abort(connection.reason);
        };
        const dropped = () => {
          // Before the start event there is nothing a client could resume.
          if (!kept || draining()) answer.abort(connection.reason);
          else setTimeout((k: Kept) => void stopUnlessResumed(k), this.#resumeGraceMs, kept).unref();
        };
        if (connection.aborted) dropped();
        else connection.addEventListener("abort", dropped, { once: true });
        return answer.signal;
      },
    };
  }

  /**
   * The answer to a reconnect with `Last-Event-ID: <messageId>:<seq>` by `owner`: the events after
   * it and then the live ones, or 204 when the answer is over and nothing is missed. An id that is
   * not a kept answer of this owner is 404 (an answer of another caller is not told apart).
   */
  async resume(lastEventId: string, owner: string): Promise<Response> {
    const match = /^([A-Za-z0-9-]{1,64}):(\d{1,9})$/.exec(lastEventId.trim());
    const unknown = () =>
      new AppError(
        "not_found",
        "No answer stream to resume with this Last-Event-ID: it is unknown, expired, or another caller's; ask again without Last-Event-ID",
        { resource: "answer_stream", id: lastEventId.slice(0, 100) },
      );
    const tooLong = () =>
      new AppError("not_found", "This answer was too long to keep for resuming; ask again", {
        resource: "answer_stream",
        id: lastEventId.slice(0, 100),
      });
    if (!match?.[1]) throw unknown();
    const [messageId, after] = [match[1], Number(match[2])];
    const kept = this.#answers.get(messageId);
    if (!kept || this.#expired(kept)) {
      // Streamed by another replica (shared mode), or by this one before it restarted.
      const remote = await this.#shared?.state(messageId);
      if (!remote?.owners.includes(owner)) throw unknown();
      if (remote.overflowed) throw tooLong();
      this.#shared?.resumed(messageId);
      const missed = await this.#shared?.events(messageId, after + 1);
      if (missed?.length === 0 && remote.finished) return new Response(null, { status: 204 });
      return followStream(this.#shared as SharedStreams, messageId, after + 1);
    }
    if (!kept.owners.includes(owner)) throw unknown();
    if (kept.overflowed) throw tooLong();
    kept.resumed = true;
    const missed = kept.events.slice(after + 1);
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
      resumed: false,
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

/**
 * Answer streams in Redis for the other replicas (shared mode): `lore:stream:<messageId>:events`, a
 * list of the events as sent, and `…:state`, its owners and whether it ended; both expire
 * RETAIN_MS after the last write. Writes are not awaited: Redis away, this replica still resumes
 * its own answers.
 */
class SharedStreams {
  constructor(private readonly redis: Redis) {}

  #key(messageId: string, part: "events" | "state"): string {
    return `lore:stream:${messageId}:${part}`;
  }

  #expire(messageId: string): void {
    const ms = RETAIN_MS;
    this.redis.pexpire(this.#key(messageId, "events"), ms).catch(() => undefined);
    this.redis.pexpire(this.#key(messageId, "state"), ms).catch(() => undefined);
  }

  open(messageId: string, owners: readonly string[]): void {
    this.redis
      .hset(this.#key(messageId, "state"), { owners: JSON.stringify(owners), finished: "0", overflowed: "0" })
      .catch(() => undefined);
    this.#expire(messageId);
  }

  append(messageId: string, text: string): void {
    this.redis.rpush(this.#key(messageId, "events"), text).catch(() => undefined);
    this.#expire(messageId);
  }

  finish(messageId: string, overflowed: boolean): void {
    if (overflowed) this.redis.del(this.#key(messageId, "events")).catch(() => undefined);
    this.redis
      .hset(this.#key(messageId, "state"), { finished: "1", overflowed: overflowed ? "1" : "0" })
      .catch(() => undefined);
    this.#expire(messageId);
  }

  /** A client resumed it: the replica running it lets it go on after its own client dropped. */
  resumed(messageId: string): void {
    this.redis.hset(this.#key(messageId, "state"), { resumed: "1" }).catch(() => undefined);
  }

  async state(
    messageId: string,
  ): Promise<{ owners: string[]; finished: boolean; overflowed: boolean; resumed: boolean } | null> {
    const state = await this.redis
      .hgetall(this.#key(messageId, "state"))
      .catch(() => ({}) as Record<string, string>);
    if (!state.owners) return null;
    return {
      owners: JSON.parse(state.owners) as string[],
      finished: state.finished === "1",
      overflowed: state.overflowed === "1",
      resumed: state.resumed === "1",
    };
  }

  /** The events from sequence number `from` on. */
  events(messageId: string, from: number): Promise<string[]> {
    return this.redis.lrange(this.#key(messageId, "events"), from, -1).catch(() => []);
  }
}

/** Another replica's answer: the events from `from` on, then new ones as they land in Redis, until it ends. */
function followStream(shared: SharedStreams, messageId: string, from: number): Response {
  const encoder = new TextEncoder();
  let next = from;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastSent = Date.now();
  const body = new ReadableStream<Uint8Array>({
    start(out) {
      const poll = async () => {
        if (stopped) return;
        try {
          // The state first: events written before it said "finished" are all in the list.
          const state = await shared.state(messageId);
          const texts = await shared.events(messageId, next);
          for (const text of texts) out.enqueue(encoder.encode(text));
          next += texts.length;
          if (texts.length > 0) lastSent = Date.now();
          else if (Date.now() - lastSent > HEARTBEAT_MS) {
            out.enqueue(encoder.encode(": heartbeat\n\n"));
            lastSent = Date.now();
          }
          if (!state || state.finished || state.overflowed) {
            stopped = true;
            out.close();
            return;
          }
          timer = setTimeout(poll, POLL_MS);
        } catch {
          stopped = true; // the client went away
        }
      };
      void poll();
    },
    cancel() {
      stopped = true;
      clearTimeout(timer);
    },
  });
  return new Response(body, { status: 200, headers: sseHeaders });
}
