import { Worker } from "node:worker_threads";
import { workerSource } from "../../worker-source.ts";
import type { Language } from "../language.ts";
import type { DictionaryTable } from "./dictionary.ts";
import type { DictionaryReply, DictionaryRequest } from "./dictionary-worker.ts";
import type { DictionaryKeys } from "./translate-question.ts";

/** How long a question waits for a dictionary not yet read: the first in a language is searched as written. */
export const LOADING_WAIT_MS = 300;
/** How long a question waits for a dictionary already read (a lookup takes milliseconds). */
const LOADED_WAIT_MS = 5_000;

/** What the dictionaries' thread answered for a question: its table, or why there is none. */
export type ThreadAnswer =
  | { kind: "found"; table: DictionaryTable }
  | { kind: "missing" }
  | { kind: "failed"; message: string }
  /** Not within the wait: the dictionary is still being read (or the thread is stuck). */
  | { kind: "late" }
  /** The thread failed or exited; the next question starts another. */
  | { kind: "stopped"; message: string };

/** The part of a dictionary one question looked up: answers `translateQuestion` as the dictionary would. */
class LookedUp implements DictionaryTable {
  private readonly senses: Map<string, readonly string[]>;
  private readonly headwords: Set<string>;

  constructor(
    readonly language: Language,
    readonly longest: number,
    senses: [string, readonly string[]][],
    headwords: string[],
  ) {
    this.senses = new Map(senses);
    this.headwords = new Set(headwords);
  }

  lookup(folded: string): readonly string[] {
    return this.senses.get(folded) ?? [];
  }

  has(folded: string): boolean {
    return this.headwords.has(folded);
  }
}

interface Pending {
  settle: (answer: ThreadAnswer) => void;
}

/**
 * The dictionaries read and kept on a worker thread (dictionary-worker.ts), so the seconds a large
 * one takes to read never hold the event loop (issue #49): one message per question, with every key
 * its translation may look up. Started on the first question that needs it; a thread that fails is
 * replaced on the next.
 */
export class DictionaryThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Languages the current thread has answered for: read, so a question may wait longer. */
  private readonly read = new Set<Language>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly onStopped: (message: string) => void,
  ) {}

  /** The keys' senses in `language`'s dictionary, or why there are none, within the wait. */
  lookUp(language: Language, keys: DictionaryKeys): Promise<ThreadAnswer> {
    if (this.closed) return Promise.resolve({ kind: "stopped", message: "closed" });
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<ThreadAnswer>((resolve) => {
      const timer = setTimeout(
        () => {
          this.pending.delete(id);
          resolve({ kind: "late" });
        },
        this.read.has(language) ? LOADED_WAIT_MS : LOADING_WAIT_MS,
      );
      this.pending.set(id, {
        settle: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
      });
      worker.postMessage({ id, language, ...keys } satisfies DictionaryRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.stop("closed");
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(
      workerSource(
        new URL("./dictionary-worker.mjs", import.meta.url),
        new URL("./dictionary-worker.ts", import.meta.url),
      ),
      // The parent's own loader flags are not needed (and would register tsx twice).
      { eval: true, execArgv: [], workerData: { dir: this.dir } },
    );
    worker.on("message", (reply: DictionaryReply) => this.answered(reply));
    worker.on("error", (error) => this.failed(worker, error.message));
    worker.on("exit", (code) => this.failed(worker, `exited with code ${code}`));
    // A question waiting holds the process by its timer; an idle thread holds nothing.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private answered(reply: DictionaryReply): void {
    const pending = this.pending.get(reply.id);
    if (reply.kind === "found") this.read.add(reply.language);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (reply.kind === "found")
      pending.settle({
        kind: "found",
        table: new LookedUp(reply.language, reply.longest, reply.senses, reply.headwords),
      });
    else if (reply.kind === "missing") pending.settle({ kind: "missing" });
    else pending.settle({ kind: "failed", message: reply.message });
  }

  private failed(worker: Worker, message: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    void worker.terminate();
    this.stop(message);
    this.onStopped(message);
  }

  /** Every waiting question is searched as written; the dictionaries read are read again by the next thread. */
  private stop(message: string): void {
    this.read.clear();
    for (const pending of this.pending.values()) pending.settle({ kind: "stopped", message });
    this.pending.clear();
  }
}
