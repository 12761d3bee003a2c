import { LeaseUnavailableError } from "./lease.ts";

export interface JobRunnerOptions {
  /** Finds due work and starts each piece with `runner.run(key, job)`; never called twice at once. */
  poll: () => Promise<void>;
  /** How often to poll when nothing wakes the runner; without it the runner polls only when woken. */
  intervalMs?: number;
  /** A poll or a job that threw; the runner carries on. */
  onError: (error: unknown) => void;
}

interface InFlight {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The loop behind the durable workers: polls for due work on an interval or when woken, runs each
 * job under a key with its own AbortSignal, and stops by aborting the jobs in flight and waiting for
 * them (and a poll under way) to settle.
 */
export class JobRunner {
  private readonly inflight = new Map<string, InFlight>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private pollAgain = false;
  private stopped = false;

  constructor(private readonly options: JobRunnerOptions) {}

  /** Polls now and then every `intervalMs`. */
  start(): void {
    this.stopped = false;
    if (this.options.intervalMs !== undefined && !this.timer) {
      this.timer = setInterval(() => this.wake(), this.options.intervalMs);
      this.timer.unref();
    }
    this.wake();
  }

  /** Polls soon; a wake during a poll polls once more after it, so new work is not left for the interval. */
  wake(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.pollUntilQuiet().finally(() => {
      this.polling = null;
    });
  }

  /** Jobs in flight. */
  get size(): number {
    return this.inflight.size;
  }

  isRunning(key: string): boolean {
    return this.inflight.has(key);
  }

  keys(): IterableIterator<string> {
    return this.inflight.keys();
  }

  /** Starts `job` under `key` unless a job runs under it already or the runner stopped; says whether it started. */
  run(key: string, job: (signal: AbortSignal) => Promise<void>): boolean {
    if (this.stopped || this.inflight.has(key)) return false;
    const entry: InFlight = { controller: new AbortController(), done: Promise.resolve() };
    // In flight before its first line runs, so the job sees itself as running.
    this.inflight.set(key, entry);
    entry.done = (async () => {
      try {
        await job(entry.controller.signal);
      } catch (error) {
        this.failed(error);
      } finally {
        this.inflight.delete(key);
      }
    })();
    return true;
  }

  /** Aborts the job running under `key`, if any. */
  abort(key: string, reason: Error): void {
    this.inflight.get(key)?.controller.abort(reason);
  }

  /** Stops polling, aborts the jobs in flight and resolves once they and any poll under way have settled. */
  async stop(reason = new Error("server shutting down")): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const { controller } of this.inflight.values()) controller.abort(reason);
    // A poll under way can start no job now, but it still reads and writes: wait for it too.
    while (this.polling || this.inflight.size > 0) {
      await Promise.all([this.polling, ...[...this.inflight.values()].map((job) => job.done)]);
    }
  }

  private async pollUntilQuiet(): Promise<void> {
    do {
      this.pollAgain = false;
      try {
        await this.options.poll();
      } catch (error) {
        this.failed(error);
      }
    } while (this.pollAgain && !this.stopped);
  }

  /** Redis down is said once where the client notices it; the job waits for its next turn meanwhile. */
  private failed(error: unknown): void {
    if (error instanceof LeaseUnavailableError) return;
    this.options.onError(error);
  }
}
