import type { OptimizeStats, Table } from "@lancedb/lancedb";
import type { EventBus } from "../events/event-bus.ts";
import { createLocalLease, type Lease } from "../jobs/lease.ts";
import type { Logger } from "../log/logger.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import type { StorageHealth } from "./storage-health.ts";
import type { Store } from "./store.ts";

/**
 * Versions of a table younger than this are kept by a cleanup (a reader may still be on one); older
 * ones, and the files only they use, are deleted.
 */
export const CLEANUP_AGE_MS = 60_000;

/** A table that merges its fragments and drops old versions when its `CompactionPolicy` says so. */
export interface Compactable {
  /** `force`: compact whatever was written, even below the thresholds. */
  compact(force?: boolean): Promise<void>;
}

/**
 * When a table is compacted and its old versions cleaned: after `minWrites` commits, or once
 * `maxBytes` were written (a few commits of large records bloat the disk as much as many small ones),
 * or, whatever was written, once versions not yet cleaned are older than the cleanup age, so no
 * superseded copy outlives the cleanup age by more than a maintenance tick.
 */
export class CompactionPolicy {
  private writes = 0;
  private bytes = 0;
  private lastWriteAt = 0;
  /** Since when superseded versions wait for a cleanup (null: none). */
  private uncleanedSince: number | null = null;

  constructor(
    private readonly minWrites = 20,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  /** Records one commit of about `bytes` bytes. */
  wrote(bytes: number, now = Date.now()): void {
    this.writes += 1;
    this.bytes += bytes;
    this.lastWriteAt = now;
    this.uncleanedSince ??= now;
  }

  due(force = false, now = Date.now()): boolean {
    if (force && this.writes > 0) return true;
    if (this.writes >= this.minWrites || this.bytes >= this.maxBytes) return true;
    return this.uncleanedSince !== null && now - this.uncleanedSince >= CLEANUP_AGE_MS;
  }

  /** Records a compaction that started at `at`: what it could not clean yet waits for the next one. */
  compacted(stats: OptimizeStats | undefined, at = Date.now()): void {
    this.writes = 0;
    this.bytes = 0;
    // Commits younger than the cleanup age survived it; so do the fragments this compaction replaced.
    const survivors = this.lastWriteAt > at - CLEANUP_AGE_MS ? this.lastWriteAt : null;
    this.uncleanedSince = (stats?.compaction.fragmentsRemoved ?? 0) > 0 ? at : survivors;
  }
}

/** Compacts `table` and cleans its versions older than the cleanup age, telling `policy` what it did. */
export async function optimizeTable(table: Table, policy: CompactionPolicy): Promise<void> {
  const at = Date.now();
  policy.compacted(await table.optimize({ cleanupOlderThan: new Date(at - CLEANUP_AGE_MS) }), at);
}

/** How often tables check their compaction policy. */
const TICK_MS = 30_000;

/**
 * Background upkeep of the store and the chunk index: tables compact as their policy says (checked
 * every 30 s), the index is optimised every five minutes. After a sync, both run 5 s after it lands
 * and once more when the cleanup age has passed, so the versions the sync wrote are gone from disk
 * about a minute after it, however few writes follow. Returns the function that stops it: it
 * resolves once the upkeep under way is over (a compaction goes on to no further table), so the
 * store can close with nothing still writing to its tables.
 */
export function startMaintenance(deps: {
  store: Store;
  index: ChunkIndex;
  events: EventBus;
  logger: Logger;
  /** Tables kept outside `Store` (the text entries). */
  tables?: readonly Compactable[];
  /** Shared mode: compaction and index optimisation run on one replica at a time. */
  lease?: Lease;
  /** While the disk cannot be written, upkeep waits (a compaction writes before it frees); it runs again when it can. */
  storage?: Pick<StorageHealth, "writable" | "noteFailure" | "onRecovered">;
}): () => Promise<void> {
  const { store, index, events, logger, tables = [], lease = createLocalLease(), storage } = deps;
  // The same failure on every tick is logged once a minute, not each time.
  const lastWarned = new Map<string, number>();
  const warn = (what: string) => (e: unknown) => {
    storage?.noteFailure(e);
    const now = Date.now();
    if (now - (lastWarned.get(what) ?? 0) < 60_000) return;
    lastWarned.set(what, now);
    logger.warn(`${what} failed`, { error: String(e) });
  };
  let stopped = false;
  // Upkeep under way: awaited by the stop. None starts once stopped.
  const running = new Set<Promise<void>>();
  const track = (task: () => Promise<unknown>): Promise<void> => {
    if (stopped || storage?.writable === false) return Promise.resolve();
    const run = task().then(() => undefined);
    running.add(run);
    void run.finally(() => running.delete(run));
    return run;
  };
  // The tables once for the fleet (under the lease); every replica its own memory and snapshot.
  const optimize = () =>
    track(() =>
      lease
        .runExclusive("optimize", () => index.optimizeTables())
        .then(() => (stopped ? undefined : index.optimizeMemory()))
        .catch(warn("index optimize")),
    );
  const compact = (force = false) =>
    track(() =>
      lease
        .runExclusive("compact", async () => {
          await store.compact(() => stopped).catch(warn("compaction"));
          for (const table of tables) {
            if (stopped) return;
            await table.compact(force).catch(warn("compaction"));
          }
        })
        .catch(warn("compaction")),
    );
  let afterSync: NodeJS.Timeout | null = null;
  let cleanup: NodeJS.Timeout | null = null;
  const later = (ms: number, task: () => void) => {
    const timer = setTimeout(task, ms);
    timer.unref();
    return timer;
  };
  events.subscribe((event) => {
    if (event.type !== "data_source.sync.completed" || afterSync || stopped) return;
    afterSync = later(5_000, () => {
      void (async () => {
        await Promise.all([optimize(), compact(true)]);
        afterSync = null;
        if (stopped) return;
        if (cleanup) clearTimeout(cleanup);
        cleanup = later(CLEANUP_AGE_MS + 5_000, () => {
          cleanup = null;
          void Promise.all([optimize(), compact()]);
        });
      })();
    });
  });
  // What waited for the disk runs as soon as it can be written again.
  storage?.onRecovered(() => void Promise.all([optimize(), compact(true)]));
  const timers = [setInterval(() => void compact(), TICK_MS), setInterval(optimize, 5 * 60_000)];
  for (const t of timers) t.unref();
  return async () => {
    for (const t of timers) clearInterval(t);
    stopped = true;
    if (afterSync) clearTimeout(afterSync);
    if (cleanup) clearTimeout(cleanup);
    await Promise.allSettled([...running]);
  };
}
