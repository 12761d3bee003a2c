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
 * A write-ahead journal: an entry is appended to a local file synchronously (so it survives the
 * process being killed — the OS holds the write), and moved into LanceDB in the background in
 * batches. `apply` must be idempotent: entries are replayed after a crash, possibly twice.
 */
export class Journal<E> {
  private pending = 0;
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sequence = 0;

  private constructor(
    private readonly dir: string,
    private readonly apply: (entries: E[]) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Opens the journal and replays whatever a previous process left unapplied. */
  static async open<E>(
    dir: string,
    apply: (entries: E[]) => Promise<void>,
    options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
  ): Promise<Journal<E>> {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const journal = new Journal<E>(dir, apply, options.onError ?? (() => undefined));
    for (const file of journal.segments()) {
      const entries = readEntries<E>(join(dir, file));
      if (entries.length > 0) await apply(entries);
      rmSync(join(dir, file), { force: true });
    }
    journal.sequence = Date.now();
    journal.timer = setInterval(() => void journal.flush(), options.intervalMs ?? 50);
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
    this.pending += 1;
  }

  /** Moves everything written so far into the store. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.pending > 0 ? this.flush() : undefined));
    if (this.pending === 0 && !existsSync(this.current)) return Promise.resolve();
    this.flushing = this.applyAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async applyAll(): Promise<void> {
    if (existsSync(this.current)) {
      // New writes go to a fresh file while this segment is applied.
      renameSync(this.current, join(this.dir, `applying-${String(++this.sequence).padStart(16, "0")}.jsonl`));
      this.pending = 0;
    }
    for (const file of this.segments().filter((f) => f.startsWith("applying-"))) {
      const path = join(this.dir, file);
      try {
        const entries = readEntries<E>(path);
        if (entries.length > 0) await this.apply(entries);
        rmSync(path, { force: true });
      } catch (error) {
        this.onError(error); // kept on disk; retried on the next flush or start
        return;
      }
    }
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
