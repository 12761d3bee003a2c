import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./permissions.ts";

/**
 * How often the journal moves its entries into LanceDB. Reads merge what is not there yet, so this
 * only sets how many entries a commit takes: every 50 ms, at a million chunks, a commit of two or
 * three answers' entries held the event loop ~1.3 ms an answer (Arrow conversion, two merges);
 * once a second, one commit takes a second's answers.
 */
const FLUSH_INTERVAL_MS = 1000;
const MIN_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;
const REPORT_EVERY_MS = 60_000;

/**
 * A write-ahead journal: an entry is appended to a local file synchronously (so it survives the
 * process being killed — the OS holds the write), and moved into LanceDB in the background in
 * batches. `apply` must be idempotent: entries are replayed after a crash, possibly twice.
 */
export class Journal<E> {
  /** Entries written by this process; of those, taken into a segment being applied, and applied. */
  private written = 0;
  private taken = 0;
  private applied = 0;
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sequence = 0;
  /** After a failed attempt the timer waits this long before it tries again (doubling, capped). */
  private retryDelayMs = 0;
  private retryAt = 0;
  private reportedAt = 0;

  private constructor(
    private readonly dir: string,
    private readonly apply: (entries: E[], replayed: boolean) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Opens the journal and replays whatever a previous process left unapplied (`apply` is told so:
   * storage may hold later states of those entries, written since by another process).
   */
  static async open<E>(
    dir: string,
    apply: (entries: E[], replayed: boolean) => Promise<void>,
    options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
  ): Promise<Journal<E>> {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const journal = new Journal<E>(dir, apply, options.onError ?? (() => undefined));
    for (const file of journal.segments()) {
      const entries = readEntries<E>(join(dir, file));
      if (entries.length > 0) await apply(entries, true);
      rmSync(join(dir, file), { force: true });
    }
    journal.sequence = Date.now();
    // A failed attempt (storage down) is retried by the timer after a growing delay, not every tick;
    // a caller's own flush still tries at once.
    journal.timer = setInterval(() => {
      if (Date.now() >= journal.retryAt) journal.flush().catch(journal.onError);
    }, options.intervalMs ?? FLUSH_INTERVAL_MS);
    journal.timer.unref();
    return journal;
  }

  private get current(): string {
    return join(this.dir, "current.jsonl");
  }

  /** Segments in write order: those being applied first, the current one last. */
  private segments(): string[] {
    const files = readdirSync(this.dir).filter((f) => f.endsWith(".jsonl"));
    const applying = files.filter((f) => f.startsWith("applying-")).sort();
    return [...applying, ...files.filter((f) => f === "current.jsonl")];
  }

  /** Durable against a killed process when this returns. */
  write(entry: E): void {
    appendFileSync(this.current, `${JSON.stringify(entry)}\n`, { mode: PRIVATE_FILE_MODE });
    this.written += 1;
  }

  /**
   * Moves everything written so far into the store: resolves once it is applied, or once an attempt
   * that held it failed (the entries stay on disk and are retried on the next flush or start).
   */
  async flush(): Promise<void> {
    const target = this.written;
    for (;;) {
      if (this.applied >= target) return;
      if (!this.flushing) {
        this.flushing = this.applyAll().finally(() => {
          this.flushing = null;
        });
        await this.flushing;
        return;
      }
      // A flush under way may have taken only the entries written before this call's: then wait
      // for it and go again (another caller may have started the next one meanwhile).
      const holdsTarget = this.taken >= target;
      await this.flushing;
      if (holdsTarget) return;
    }
  }

  private async applyAll(): Promise<void> {
    const upTo = this.written;
    try {
      if (existsSync(this.current)) {
        // New writes go to a fresh file while this segment is applied.
        renameSync(
          this.current,
          join(this.dir, `applying-${String(++this.sequence).padStart(16, "0")}.jsonl`),
        );
      }
      this.taken = upTo;
      for (const file of this.segments().filter((f) => f.startsWith("applying-"))) {
        const path = join(this.dir, file);
        const entries = readEntries<E>(path);
        if (entries.length > 0) await this.apply(entries, false);
        rmSync(path, { force: true });
      }
    } catch (error) {
      // The disk is full, read-only or gone, or the store refused: whatever was not applied stays on
      // disk (or in the file not yet renamed) and is retried on the next flush or start. Reported at
      // the first failure, then once a minute while they go on.
      if (Date.now() - this.reportedAt >= REPORT_EVERY_MS) {
        this.reportedAt = Date.now();
        this.onError(error);
      }
      this.retryDelayMs = Math.min(MAX_RETRY_DELAY_MS, Math.max(MIN_RETRY_DELAY_MS, this.retryDelayMs * 2));
      this.retryAt = Date.now() + this.retryDelayMs;
      return;
    }
    this.retryDelayMs = 0;
    this.retryAt = 0;
    this.reportedAt = 0;
    this.applied = upTo;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}

function readEntries<E>(path: string): E[] {
  const entries: E[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as E);
    } catch {
      // A torn last line from a crash mid-append: that entry never completed.
    }
  }
  return entries;
}
