import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { workerSource } from "../../worker-source.ts";
import type { ChunkedDocument, ParsedDocument, RawDocument } from "../documents.ts";
import { ParseError } from "../documents.ts";
import { UnsupportedTypeError } from "./detect-kind.ts";
import type { ParseReply, ParseRequest } from "./parse-worker.ts";

/**
 * A document's parse time budget (`LORE_PARSE_TIMEOUT_MS`): a hostile file is failed with the reason
 * after this long instead of holding a parse thread for minutes (it was 120 s, issue #49).
 */
export const DEFAULT_PARSE_TIMEOUT_MS = 20_000;

interface TaskOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Whose document this is: each workspace has its own queue, and the queues are taken in turn. */
  workspaceId?: string;
}

export interface ParseWorkerPool {
  /** Parses in a worker thread; a timeout terminates that worker and throws ParseError("timed out …"). */
  parse(raw: RawDocument, opts?: TaskOptions): Promise<ParsedDocument>;
  /** Parses and chunks in a worker thread (chunkedDocument), with the same timeout and errors. */
  chunk(raw: RawDocument, opts?: TaskOptions): Promise<ChunkedDocument>;
  close(): Promise<void>;
}

type Job = {
  raw: RawDocument;
  workspaceId: string;
  timeoutMs: number;
  reject: (err: Error) => void;
  signal?: AbortSignal;
} & (
  | { task: "parse"; resolve: (doc: ParsedDocument) => void }
  | { task: "chunk"; resolve: (doc: ChunkedDocument) => void }
);

interface Slot {
  worker: Worker | null;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  onAbort: (() => void) | null;
}

/**
 * A small pool (1–2 threads) that keeps CPU-heavy parsing (PDF, DOCX) off the event loop. Each
 * workspace has its own queue and the queues are taken in turn, and one spare thread serves only a
 * workspace with nothing being parsed: another workspace's hostile uploads (each held up to its time
 * budget) cannot keep a small source queued behind them.
 */
export function createParseWorkerPool(opts: { size?: number; maxMemoryMb?: number } = {}): ParseWorkerPool {
  const size = Math.min(2, Math.max(1, opts.size ?? availableParallelism() - 1));
  const slots: Slot[] = Array.from({ length: size + 1 }, () => ({
    worker: null,
    job: null,
    timer: null,
    onAbort: null,
  }));
  /** Waiting jobs per workspace. */
  const queues = new Map<string, Job[]>();
  /** When each workspace was last given a thread: the one served longest ago (or never) goes next. */
  const lastServed = new Map<string, number>();
  let turn = 0;
  let nextId = 1;
  let closed = false;

  const finish = (slot: Slot): Job | null => {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.onAbort && job?.signal) job.signal.removeEventListener("abort", slot.onAbort);
    slot.job = null;
    slot.timer = null;
    slot.onAbort = null;
    slot.worker?.unref();
    return job;
  };

  const kill = (slot: Slot, reason: Error): void => {
    const worker = slot.worker;
    slot.worker = null;
    const job = finish(slot);
    job?.reject(reason);
    void worker?.terminate();
    pump();
  };

  const spawn = (slot: Slot): Worker => {
    const worker = new Worker(
      workerSource(
        new URL("./parse-worker.mjs", import.meta.url),
        new URL("./parse-worker.ts", import.meta.url),
      ),
      {
        eval: true,
        // The parent's own loader flags are not needed (and would register tsx twice).
        execArgv: [],
        // A runaway document hits this ceiling and kills only its worker.
        resourceLimits: { maxOldGenerationSizeMb: opts.maxMemoryMb ?? 1024 },
      },
    );
    worker.on("message", (reply: ParseReply) => {
      const job = finish(slot);
      if (!job) return;
      if (reply.ok) {
        if (job.task === "parse" && reply.task === "parse") job.resolve(reply.doc);
        else if (job.task === "chunk" && reply.task === "chunk") job.resolve(reply.doc);
        else job.reject(new Error(`parse worker answered ${reply.task} to ${job.task}`));
      } else if (reply.error.kind === "unsupported")
        job.reject(new UnsupportedTypeError(reply.error.detected ?? "unknown"));
      else if (reply.error.kind === "parse") job.reject(new ParseError(reply.error.message));
      else job.reject(new Error(reply.error.message));
      pump();
    });
    worker.on("error", (err) => {
      if (slot.worker === worker) kill(slot, new ParseError(`parser crashed: ${err.message}`));
    });
    worker.on("exit", (code) => {
      if (slot.worker === worker) kill(slot, new ParseError(`parser exited with code ${code}`));
    });
    worker.unref();
    return worker;
  };

  /** The next job in turn that may take a thread now, out of its queue; null if none may. */
  const takeNext = (): Job | null => {
    const busy = slots.filter((s) => s.job);
    if (busy.length > size) return null;
    let next: string | null = null;
    for (const workspaceId of queues.keys()) {
      // Past the pool's size, only the spare thread is left: for a workspace with nothing running.
      if (busy.length === size && busy.some((s) => s.job?.workspaceId === workspaceId)) continue;
      if (next === null || (lastServed.get(workspaceId) ?? -1) < (lastServed.get(next) ?? -1))
        next = workspaceId;
    }
    if (next === null) return null;
    const waiting = queues.get(next) ?? [];
    const job = waiting.shift() ?? null;
    if (waiting.length === 0) queues.delete(next);
    lastServed.set(next, ++turn);
    return job;
  };

  const pump = (): void => {
    for (const slot of slots) {
      if (slot.job || closed) continue;
      const job = takeNext();
      if (!job) return;
      if (job.signal?.aborted) {
        job.reject(new ParseError("parse cancelled"));
        continue;
      }
      slot.worker ??= spawn(slot);
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(
        () => kill(slot, new ParseError(`parse timed out after ${job.timeoutMs} ms`)),
        job.timeoutMs,
      );
      if (job.signal) {
        slot.onAbort = () => kill(slot, new ParseError("parse cancelled"));
        job.signal.addEventListener("abort", slot.onAbort, { once: true });
      }
      slot.worker.postMessage({ id: nextId++, task: job.task, raw: job.raw } satisfies ParseRequest);
    }
  };

  const enqueue = (job: Job): void => {
    const waiting = queues.get(job.workspaceId);
    if (waiting) waiting.push(job);
    else queues.set(job.workspaceId, [job]);
    pump();
  };

  return {
    parse(raw, { timeoutMs = DEFAULT_PARSE_TIMEOUT_MS, signal, workspaceId = "" } = {}) {
      if (closed) return Promise.reject(new Error("parse worker pool is closed"));
      return new Promise<ParsedDocument>((resolve, reject) =>
        enqueue({ task: "parse", raw, workspaceId, timeoutMs, resolve, reject, signal }),
      );
    },
    chunk(raw, { timeoutMs = DEFAULT_PARSE_TIMEOUT_MS, signal, workspaceId = "" } = {}) {
      if (closed) return Promise.reject(new Error("parse worker pool is closed"));
      return new Promise<ChunkedDocument>((resolve, reject) =>
        enqueue({ task: "chunk", raw, workspaceId, timeoutMs, resolve, reject, signal }),
      );
    },
    async close() {
      closed = true;
      const waiting = [...queues.values()].flat();
      queues.clear();
      for (const job of waiting) job.reject(new ParseError("parse worker pool closed"));
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker;
          slot.worker = null;
          finish(slot)?.reject(new ParseError("parse worker pool closed"));
          await worker?.terminate();
        }),
      );
    },
  };
}

let defaultPool: ParseWorkerPool | null = null;

/**
 * chunkedDocument(parseDocument(raw)) in the shared worker pool: what a sync runs per changed
 * document, so token counting and language detection (most of a text entry's cost) leave the event loop.
 */
export function chunkInWorker(raw: RawDocument, opts: TaskOptions = {}): Promise<ChunkedDocument> {
  defaultPool ??= createParseWorkerPool();
  return defaultPool.chunk(raw, opts);
}

/** Terminates the shared pool's threads (graceful shutdown, test teardown). */
export async function closeParseWorkers(): Promise<void> {
  const pool = defaultPool;
  defaultPool = null;
  await pool?.close();
}
