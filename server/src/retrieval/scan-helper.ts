import { availableParallelism } from "node:os";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { workerSource } from "../worker-source.ts";
import {
  ASKED,
  type ClearJob,
  CONTROL_WORDS,
  clearRanges,
  DONE,
  READY,
  type ScanJob,
  type ScanReply,
} from "./scan-protocol.ts";
import { isShared } from "./shared-arrays.ts";

/** A job not answered in this long is given up, and the helper with it (the search is scored here). */
const REPLY_TIMEOUT_MS = 30_000;

type Answer = Exclude<ScanReply, { error: string }>;

/**
 * The search's second thread: the event loop and a worker take chunks of a big index's slots in
 * turn and score them into the same shared scores (`scanSlots` on both; the arrays in
 * shared-arrays.ts). A search is synchronous, so the event loop hands the job over, scores the chunks
 * it takes, then blocks on `Atomics.wait` until the worker's reply — a few milliseconds at a million
 * chunks, where handing work to an asynchronous pool would let other callbacks in between.
 *
 * One worker per process, started on the first search that could use it and used once it waits
 * for jobs (searches before that run on the event loop alone). Not started on a one-core machine,
 * nor with `LORE_SEARCH_THREADS=1` (`configure`). A worker that fails or does not answer is given up for good:
 * the search is scored again on the event loop, from zero, and every later search runs there.
 */
export class ScanHelper {
  private static started: ScanHelper | undefined;
  /** Threads a search may use (`configure`): 2 starts the worker, 1 never does. */
  private static threads = Math.min(2, availableParallelism());
  /** Jobs the worker answered (tests and the bench read it). */
  static answered = 0;
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private asked = 0;
  private broken = false;
  /** A clearing handed over and not known finished: its job, to redo here if the worker fails. */
  private clearing: ClearJob | null = null;

  private constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(
      workerSource(
        new URL("./scan-worker.mjs", import.meta.url),
        new URL("./scan-worker.ts", import.meta.url),
      ),
      {
        eval: true,
        // The parent's own flags are not needed (its loader would register tsx twice).
        execArgv: [],
        workerData: { control: this.control, port: port2 },
        transferList: [port2],
      },
    );
    this.worker.unref();
    this.port.unref();
    const fail = () => {
      this.broken = true;
    };
    this.worker.on("error", fail);
    this.worker.on("exit", fail);
  }

  /** Sets how many threads searches use (`LORE_SEARCH_THREADS`); 1 ends a running worker. */
  static configure(threads: number): void {
    ScanHelper.threads = threads;
    if (threads < 2) void ScanHelper.stop();
  }

  /** The process's helper once its worker waits for jobs; null before, or where there is none. */
  static ready(): ScanHelper | null {
    if (ScanHelper.threads < 2) return null;
    if (ScanHelper.started === undefined) ScanHelper.started = new ScanHelper();
    const helper = ScanHelper.started;
    return !helper.broken && Atomics.load(helper.control, READY) === 1 ? helper : null;
  }

  /** Ends the worker (tests; the process's exit ends it anyway). */
  static async stop(): Promise<void> {
    // A clearing still handed over ends (or is done here) first: the scores must be zero after.
    ScanHelper.settle();
    const helper = ScanHelper.started;
    ScanHelper.started = undefined;
    if (!helper) return;
    helper.broken = true;
    Atomics.store(helper.control, ASKED, -1);
    Atomics.notify(helper.control, ASKED);
    await helper.worker.terminate();
  }

  /** Whether `begin` can take a job over these arrays (the worker must write the very scores read here). */
  static canShare(job: Pick<ScanJob, "scratch" | "groupOf" | "parts" | "claim">): boolean {
    const { scores, lengths, norms, normed } = job.scratch;
    return (
      (job.claim === null || isShared(job.claim)) &&
      [scores, lengths, norms, normed].every(isShared) &&
      isShared(job.groupOf) &&
      job.parts.docs.every(isShared) &&
      job.parts.tfs.every(isShared)
    );
  }

  /**
   * Waits for a clearing handed over (`clear`) to end; a search calls this before it reads or
   * writes any scores. Where the worker failed, the scores are cleared here.
   */
  static settle(): void {
    const helper = ScanHelper.started;
    const job = helper?.clearing;
    if (!helper || !job) return;
    helper.clearing = null;
    if (!helper.waitDone()) clearRanges(job);
  }

  /**
   * Hands the zeroing of a finished search's scores (`ranges`: pairs of from, to) to the worker,
   * which does it while the event loop goes on with the answer; the next search settles it first.
   */
  clear(scores: Float64Array, ranges: Int32Array): void {
    const job: ClearJob = { kind: "clear", scores, ranges };
    this.post(job);
    this.clearing = job;
  }

  /** Hands a job to the worker, which starts on it at once. */
  begin(job: ScanJob): void {
    ScanHelper.settle();
    this.post(job);
  }

  private post(job: ScanJob | ClearJob): void {
    this.port.postMessage(job);
    this.asked += 1;
    Atomics.store(this.control, ASKED, this.asked);
    Atomics.notify(this.control, ASKED);
  }

  /** Waits for the job's answer; null when the worker failed or timed out (then it is given up). */
  finish(): Answer | null {
    if (!this.waitDone()) return null;
    const reply = receiveMessageOnPort(this.port)?.message as ScanReply | undefined;
    if (!reply || "error" in reply) return this.giveUp();
    ScanHelper.answered += 1;
    return reply;
  }

  /** Waits until the worker ended the last job asked; false when it failed or timed out (given up). */
  private waitDone(): boolean {
    const deadline = Date.now() + REPLY_TIMEOUT_MS;
    for (;;) {
      const done = Atomics.load(this.control, DONE);
      if (done === this.asked) return true;
      if (this.broken || Date.now() > deadline) {
        this.giveUp();
        return false;
      }
      Atomics.wait(this.control, DONE, done, 100);
    }
  }

  private giveUp(): null {
    this.broken = true;
    void this.worker.terminate();
    return null;
  }
}
