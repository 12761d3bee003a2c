import { randomUUID } from "node:crypto";
import type { SyncRun } from "@lore/shared";
import { withoutPaths } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { Logger } from "../log/logger.ts";
import { type SyncCounts, type SyncDeps, syncSource } from "../sources/sync-source.ts";
import type { DataSourceRecord, SyncRunRecord } from "../store/records.ts";
import { type StorageHealth, storageStateOf } from "../store/storage-health.ts";
import type { Store } from "../store/store.ts";
import { JobRunner } from "./job-runner.ts";
import { createLocalLease, type Lease, runExclusiveSettled } from "./lease.ts";

export interface SyncRunnerOptions {
  /** Syncs of one workspace running at once. */
  concurrency: number;
  /**
   * Workspaces whose syncs run at once (default 4). Due runs are taken in turn across workspaces, so
   * one workspace's slow or hostile sources cannot keep another's queued (issue #49).
   */
  workspaces?: number;
  maxAttempts?: number;
  leaseMs?: number;
  tickMs?: number;
  /** Finished runs (completed, failed, cancelled) kept per source; older ones are deleted. */
  keepFinished?: number;
  /** Purges everything deleted sources owned (chunks, documents, files, runs, the record). Must be idempotent. */
  purge: (sources: DataSourceRecord[]) => Promise<void>;
  /** Shared mode: a sync, the scheduler and purging each run on one replica at a time. */
  lease?: Lease;
  /**
   * The data directory's disk: while it cannot be written, or is below the free-space floor, no sync
   * starts; a sync the disk stopped is queued again without spending an attempt, and runs when it clears.
   */
  storage?: Pick<StorageHealth, "writable" | "lowOnSpace" | "noteFailure" | "onRecovered">;
  /**
   * How many of a source's stored items no sync indexed yet (a text source's entries), counting only
   * those changed after `changedAfter` when given: a source with any is never `ready`, and one gets
   * a sync at start (a bulk load a crash cut short).
   */
  pendingItems?: (source: DataSourceRecord, changedAfter?: string) => number;
  /** How many documents a sync of the source will list, when known beforehand (a text source's entries); 0 if not. */
  expectedDocuments?: (source: DataSourceRecord) => number;
}

/**
 * Runs in turns across workspaces: each workspace's oldest, then each one's second oldest, and so on
 * (oldest first within a turn).
 */
function inTurns(runs: SyncRunRecord[]): SyncRunRecord[] {
  const byAge = [...runs].sort((a, b) => a.queuedAt.localeCompare(b.queuedAt));
  const turnOf = new Map<SyncRunRecord, number>();
  const taken = new Map<string, number>();
  for (const run of byAge) {
    const turn = taken.get(run.workspaceId) ?? 0;
    taken.set(run.workspaceId, turn + 1);
    turnOf.set(run, turn);
  }
  return byAge.sort((a, b) => (turnOf.get(a) ?? 0) - (turnOf.get(b) ?? 0));
}

/** Deleted sources purged together (one commit per table). */
const PURGE_BATCH = 200;

const ACTIVE = new Set<SyncRun["status"]>(["queued", "running"]);

/**
 * Durable sync jobs: each run is a row with a lease and attempts. A crash leaves the row `running`
 * with a lapsing lease; the next process takes it over. Failures retry with backoff, then fail with the reason.
 */
export class SyncRunner {
  /** Sync jobs, one per data source at most, keyed by the source's id. */
  private readonly jobs: JobRunner;
  /** Purging runs beside the sync polls: under a stream of deletes it must not hold back the syncs. */
  private readonly purger: JobRunner;
  private readonly maxAttempts: number;
  private readonly leaseMs: number;
  private readonly keepFinished: number;
  private readonly lease: Lease;
  /** Runs a storage fault stopped whose new state could not be saved (the disk refused): due again once it clears. */
  private readonly stalled = new Set<string>();
  /** The workspace of each source whose sync was started (read for the keys the job runner holds). */
  private readonly workspaceOf = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly deps: Omit<SyncDeps, "onProgress">,
    private readonly events: EventBus,
    private readonly logger: Logger,
    private readonly options: SyncRunnerOptions,
  ) {
    this.maxAttempts = options.maxAttempts ?? 3;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.keepFinished = options.keepFinished ?? 100;
    this.lease = options.lease ?? createLocalLease();
    this.jobs = new JobRunner({
      poll: () => this.startDue(),
      intervalMs: options.tickMs ?? 200,
      onError: (error) => this.onError("sync runner tick failed", error),
    });
    this.purger = new JobRunner({
      poll: () => this.purgeDeleted(),
      onError: (error) => this.onError("purging deleted sources failed", error),
    });
    options.storage?.onRecovered(() => {
      void this.retryStorageFailures().catch((error: unknown) =>
        this.onError("resuming syncs failed", error),
      );
    });
  }

  /** A failure the disk caused is the storage health's to log (once a minute); any other is logged here. */
  private onError(what: string, error: unknown): void {
    if (this.options.storage?.noteFailure(error)) return;
    this.logger.error(what, { error: String(error) });
  }

  /** Whether syncs may start: the disk takes writes and has room above the floor. */
  private get storageAllows(): boolean {
    const storage = this.options.storage;
    return !storage || (storage.writable && !storage.lowOnSpace);
  }

  /**
   * Sources that failed because the disk was full or read-only (in this process, or one before it
   * recorded such a failure) sync again, and stalled runs are due: after a fault, nothing waits for
   * a manual sync.
   */
  async retryStorageFailures(): Promise<void> {
    const failed = this.store.dataSources.filter(
      (d) =>
        d.deletedAt === null &&
        d.status === "failed" &&
        d.lastError !== null &&
        storageStateOf(new Error(d.lastError)) !== null &&
        !this.activeRun(d.id),
    );
    for (const source of failed) await this.enqueue(source, "manual");
    this.jobs.wake();
  }

  /**
   * Resumes what a previous process left: orphaned runs and unfinished purges. One process owns every
   * run, so a running one is orphaned; in shared mode it may be another replica's, and is taken over
   * only once its lease lapses.
   */
  async start(): Promise<void> {
    if (!this.store.feed.shared) {
      const orphaned = this.store.syncRuns.filter((r) => r.status === "running");
      await this.store.syncRuns.putMany(orphaned.map((r) => ({ ...r, status: "queued", leaseUntil: null })));
    }
    // A crash (or a backup snapshot) between saving a source and queueing its sync, or between
    // completing a run and marking the source, leaves it queued/syncing with no job: queue one.
    const stranded = this.store.dataSources.filter(
      (d) =>
        d.deletedAt === null && (d.status === "queued" || d.status === "syncing") && !this.activeRun(d.id),
    );
    for (const source of stranded) await this.enqueue(source, source.lastSyncedAt ? "manual" : "create");
    // Entries stored with no sync to index them (a process killed during a bulk load, before it queued one).
    const pendingItems = this.options.pendingItems;
    if (pendingItems) {
      const unsynced = this.store.dataSources.filter(
        (d) => d.deletedAt === null && !this.activeRun(d.id) && pendingItems(d) > 0,
      );
      for (const source of unsynced) {
        this.logger.warn("entries stored with no sync to index them: queueing one", {
          dataSourceId: source.id,
          entries: pendingItems(source),
        });
        await this.enqueue(source, "entries");
      }
    }
    await this.retryStorageFailures();
    this.jobs.start();
  }

  /** Aborts the syncs in flight and resolves once they, and a purge under way, have settled. */
  async stop(): Promise<void> {
    await Promise.all([this.jobs.stop(), this.purger.stop()]);
  }

  activeRun(dataSourceId: string): SyncRunRecord | undefined {
    return this.store.syncRuns.find((r) => r.dataSourceId === dataSourceId && ACTIVE.has(r.status));
  }

  /** Queues a sync, or returns the one already queued or running. */
  async enqueue(source: DataSourceRecord, trigger: SyncRun["trigger"]): Promise<SyncRunRecord> {
    // Shared mode: one replica at a time decides, having applied what the others queued.
    const run = await this.store.feed.serialize(`enqueue:${source.id}`, () =>
      this.enqueueNow(source, trigger),
    );
    if (run.status === "queued" && source.status !== "syncing")
      await this.setSource(source.id, { status: "queued" });
    this.jobs.wake();
    return run;
  }

  private enqueueNow(source: DataSourceRecord, trigger: SyncRun["trigger"]): Promise<SyncRunRecord> {
    return this.store.syncRuns.transact(() => {
      const active = this.activeRun(source.id);
      if (active) return { rows: [], result: active };
      const now = new Date().toISOString();
      const created: SyncRunRecord = {
        id: randomUUID(),
        dataSourceId: source.id,
        workspaceId: source.workspaceId,
        status: "queued",
        trigger,
        added: 0,
        updated: 0,
        removed: 0,
        unchanged: 0,
        failed: 0,
        attempts: 0,
        error: null,
        queuedAt: now,
        startedAt: null,
        finishedAt: null,
        durationMs: null,
        leaseUntil: null,
        nextAttemptAt: now,
      };
      return { rows: [created], result: created };
    });
  }

  /**
   * A load is storing items a sync must index: the source reads `queued` from the first stored batch
   * (not `ready` with items pending); the load queues the sync when it ends, or a restart does.
   */
  async expectSync(dataSourceId: string): Promise<void> {
    const source = this.store.dataSources.get(dataSourceId);
    if (!source || this.activeRun(dataSourceId) || source.status === "queued") return;
    await this.setSource(dataSourceId, { status: "queued" });
  }

  /** Stops a running sync of a source and cancels queued ones. */
  async cancel(dataSourceId: string): Promise<void> {
    this.jobs.abort(dataSourceId, new Error("cancelled"));
    const active = this.store.syncRuns.filter((r) => r.dataSourceId === dataSourceId && ACTIVE.has(r.status));
    const now = new Date().toISOString();
    await this.store.syncRuns.putMany(
      active.map((r) => ({ ...r, status: "cancelled", finishedAt: now, leaseUntil: null })),
    );
    await this.pruneHistory(dataSourceId);
  }

  /** Queues the scheduled syncs that are due and starts due runs up to the concurrency. */
  private async startDue(): Promise<void> {
    // Nothing is written while the disk is at fault or short of room: what is due waits for it.
    if (!this.storageAllows) return;
    this.purger.wake();
    await runExclusiveSettled(this.lease, this.store.feed, "sync-schedule", () => this.enqueueScheduled());
    const now = Date.now();
    const due = this.store.syncRuns.filter((r) => this.isDue(r, now) && !this.jobs.isRunning(r.dataSourceId));
    const running = new Map<string, number>();
    for (const sourceId of this.jobs.keys()) {
      const workspaceId = this.workspaceOf.get(sourceId) ?? "";
      running.set(workspaceId, (running.get(workspaceId) ?? 0) + 1);
    }
    for (const run of inTurns(due)) {
      const mine = running.get(run.workspaceId) ?? 0;
      if (mine >= this.options.concurrency) continue;
      if (mine === 0 && running.size >= (this.options.workspaces ?? 4)) continue;
      this.workspaceOf.set(run.dataSourceId, run.workspaceId);
      if (this.jobs.run(run.dataSourceId, (signal) => this.executeOnce(run.id, signal)))
        running.set(run.workspaceId, mine + 1);
    }
    for (const sourceId of this.workspaceOf.keys())
      if (!this.jobs.isRunning(sourceId)) this.workspaceOf.delete(sourceId);
  }

  /** Queued and due, or running under a lease that lapsed (its process died). */
  private isDue(r: SyncRunRecord, now: number): boolean {
    return (
      (r.status === "queued" && Date.parse(r.nextAttemptAt) <= now) ||
      (r.status === "running" && r.leaseUntil !== null && Date.parse(r.leaseUntil) < now) ||
      (r.status === "running" && this.stalled.has(r.id))
    );
  }

  /**
   * Runs a due sync once across the fleet: under the source's lease, and only if the run is still due
   * once every replica's earlier writes are applied here (another replica may have just finished it).
   */
  private async executeOnce(runId: string, signal: AbortSignal): Promise<void> {
    const queued = this.store.syncRuns.get(runId);
    if (!queued) return;
    await runExclusiveSettled(this.lease, this.store.feed, `sync:${queued.dataSourceId}`, async (lost) => {
      const current = this.store.syncRuns.get(runId);
      if (!current || !this.isDue(current, Date.now())) return;
      await this.execute(current, AbortSignal.any([signal, lost]));
    });
  }

  /** Purges the deleted sources whose sync has stopped, up to PURGE_BATCH together. */
  private async purgeDeleted(): Promise<void> {
    await runExclusiveSettled(this.lease, this.store.feed, "purge", () => this.purgeDeletedNow());
  }

  private async purgeDeletedNow(): Promise<void> {
    for (;;) {
      const batch = this.store.dataSources
        .filter((s) => s.deletedAt !== null && !this.jobs.isRunning(s.id))
        .slice(0, PURGE_BATCH);
      if (batch.length === 0) break;
      await this.options.purge(batch);
      if (batch.some((s) => this.store.dataSources.get(s.id))) break; // no progress: next poll
    }
  }

  private async enqueueScheduled(): Promise<void> {
    const now = Date.now();
    for (const source of this.store.dataSources.all()) {
      if (!source.schedule || source.deletedAt || this.activeRun(source.id)) continue;
      const last = source.lastSyncedAt ? Date.parse(source.lastSyncedAt) : Date.parse(source.createdAt);
      if (now - last >= source.schedule.intervalMinutes * 60_000) await this.enqueue(source, "schedule");
    }
  }

  private async execute(queued: SyncRunRecord, signal: AbortSignal): Promise<void> {
    const source = this.store.dataSources.get(queued.dataSourceId);
    const started = Date.now();
    this.stalled.delete(queued.id);
    let run: SyncRunRecord = {
      ...queued,
      status: "running",
      attempts: queued.attempts + 1,
      startedAt: new Date(started).toISOString(),
      leaseUntil: new Date(started + this.leaseMs).toISOString(),
    };
    const renew = setInterval(() => {
      run = { ...run, leaseUntil: new Date(Date.now() + this.leaseMs).toISOString() };
      void this.store.syncRuns.put(run).catch(() => undefined);
    }, this.leaseMs / 3);
    try {
      if (!source || source.deletedAt) {
        await this.store.syncRuns.put({
          ...run,
          status: "cancelled",
          finishedAt: new Date().toISOString(),
          leaseUntil: null,
        });
        return;
      }
      await this.store.syncRuns.put(run);
      const total = this.options.expectedDocuments?.(source) ?? 0;
      await this.setSource(source.id, { status: "syncing", progress: { total, processed: 0 } });
      if (this.store.feed.shared) await this.removeOrphans(source.id);
      let reported = 0;
      const counts = await syncSource(
        {
          ...this.deps,
          onProgress: async (processed, c) => {
            // Progress is a commit of the source record: at most one per 10 documents (or per batch).
            if (processed - reported >= 10) {
              reported = processed;
              await this.setSource(source.id, { progress: { total: Math.max(total, processed), processed } });
            }
            run = { ...run, ...c };
          },
        },
        source,
        signal,
      );
      await this.complete(run, source, counts, started);
    } catch (error) {
      await this.fail(run, error, signal.aborted, started);
    } finally {
      clearInterval(renew);
    }
  }

  /**
   * Shared mode: chunks of this source whose document has no record (a replica killed between
   * indexing and recording) go before it syncs again; holding the source's lease, nobody else is
   * between those two steps for it. One process does this for every source at start.
   */
  private async removeOrphans(dataSourceId: string): Promise<void> {
    const recorded = new Set(
      this.store.documents.filter((d) => d.dataSourceId === dataSourceId).map((d) => d.id),
    );
    const removed = await this.deps.index.deleteOrphans(recorded, dataSourceId);
    if (removed > 0)
      this.logger.warn("removed chunks of unrecorded documents", { dataSourceId, documents: removed });
  }

  /** As `pruneHistory`, after a run finished: before its source turns ready, so no reader sees the history long. */
  private async pruneFinished(dataSourceId: string): Promise<void> {
    await this.pruneHistory(dataSourceId).catch((error: unknown) =>
      this.logger.warn("sync history pruning failed", { error: String(error) }),
    );
  }

  /** Deletes a source's finished runs beyond the newest `keepFinished`: a source synced every minute would otherwise grow its history forever. */
  private async pruneHistory(dataSourceId: string): Promise<void> {
    const finished = this.store.syncRuns
      .filter((r) => r.dataSourceId === dataSourceId && !ACTIVE.has(r.status))
      .sort((a, b) => b.queuedAt.localeCompare(a.queuedAt) || b.id.localeCompare(a.id));
    await this.store.syncRuns.delete(finished.slice(this.keepFinished).map((r) => r.id));
  }

  private async complete(
    run: SyncRunRecord,
    source: DataSourceRecord,
    counts: SyncCounts,
    started: number,
  ): Promise<void> {
    const finishedAt = new Date().toISOString();
    await this.store.syncRuns.put({
      ...run,
      ...counts,
      status: "completed",
      error: null,
      finishedAt,
      durationMs: Date.now() - started,
      leaseUntil: null,
    });
    await this.pruneFinished(source.id);
    const docs = this.store.documents.filter((d) => d.dataSourceId === source.id);
    const indexed = docs.filter((d) => d.status === "indexed");
    const failedDocs = docs.filter((d) => d.error !== null);
    const allFailed = docs.length > 0 && indexed.length === 0;
    const wasReady = this.store.dataSources.get(source.id)?.everReady ?? false;
    const processingBefore = this.processingAgents(source);
    // Items stored after this sync listed them (a bulk load still arriving): not ready, another sync follows.
    const current = this.store.dataSources.get(source.id) ?? source;
    const more = run.startedAt ? (this.options.pendingItems?.(current, run.startedAt) ?? 0) : 0;
    await this.setSource(source.id, {
      status: more > 0 ? "queued" : allFailed ? "failed" : "ready",
      everReady: wasReady || !allFailed,
      lastSyncedAt: finishedAt,
      lastError:
        failedDocs.length > 0
          ? `${failedDocs.length} document(s) could not be read: ${failedDocs[0]?.error}`
          : null,
      documentCount: indexed.length,
      chunkCount: indexed.reduce((n, d) => n + d.chunkCount, 0),
      progress: { total: docs.length, processed: docs.length },
    });
    if (more > 0) await this.enqueue(this.store.dataSources.get(source.id) ?? current, "entries");
    this.events.emit({
      type: "data_source.sync.completed",
      workspaceId: source.workspaceId,
      dataSourceId: source.id,
      syncRunId: run.id,
      counts: { ...counts },
    });
    for (const agentId of processingBefore) {
      const agent = this.store.agents.get(agentId);
      const stillProcessing = agent?.dataSourceIds.some((id) => {
        const s = this.store.dataSources.get(id);
        return s && !s.deletedAt && !s.everReady;
      });
      if (agent && !stillProcessing)
        this.events.emit({ type: "agent.ready", workspaceId: agent.workspaceId, agentId });
    }
  }

  private processingAgents(source: DataSourceRecord): string[] {
    return this.store.agents
      .filter((a) => a.workspaceId === source.workspaceId && a.dataSourceIds.includes(source.id))
      .filter((a) => a.dataSourceIds.some((id) => !this.store.dataSources.get(id)?.everReady))
      .map((a) => a.id);
  }

  private async fail(run: SyncRunRecord, error: unknown, aborted: boolean, started: number): Promise<void> {
    const raw = error instanceof Error ? error.message : String(error);
    // Shown to owners as the run's and the source's error: no paths of this machine.
    const message = withoutPaths(raw);
    const source = this.store.dataSources.get(run.dataSourceId);
    if (aborted || !source || source.deletedAt) {
      await this.store.syncRuns.put({
        ...run,
        status: "cancelled",
        error: message,
        finishedAt: new Date().toISOString(),
        leaseUntil: null,
      });
      return;
    }
    if (this.options.storage?.noteFailure(error) ?? storageStateOf(error)) {
      // The disk, not the source: queued again as it was, without spending an attempt; it starts once
      // the disk clears. If even that cannot be saved, the run is due again from memory.
      this.stalled.add(run.id);
      await this.store.syncRuns.put({
        ...run,
        status: "queued",
        attempts: run.attempts - 1,
        leaseUntil: null,
        nextAttemptAt: new Date().toISOString(),
      });
      this.stalled.delete(run.id);
      return;
    }
    this.logger.warn("sync attempt failed", {
      dataSourceId: run.dataSourceId,
      attempt: run.attempts,
      error: raw,
    });
    // A refusal that cannot change by retrying (an address the outbound policy blocks) fails at once.
    const permanent =
      typeof error === "object" && error !== null && (error as { permanent?: unknown }).permanent === true;
    if (!permanent && run.attempts < this.maxAttempts) {
      const backoff = 2 ** run.attempts * 1000;
      await this.store.syncRuns.put({
        ...run,
        status: "queued",
        error: message,
        leaseUntil: null,
        nextAttemptAt: new Date(Date.now() + backoff).toISOString(),
      });
      return;
    }
    await this.store.syncRuns.put({
      ...run,
      status: "failed",
      error: message,
      finishedAt: new Date().toISOString(),
      durationMs: Date.now() - started,
      leaseUntil: null,
    });
    await this.pruneFinished(source.id);
    await this.setSource(source.id, { status: "failed", lastError: message });
    this.events.emit({
      type: "data_source.sync.failed",
      workspaceId: source.workspaceId,
      dataSourceId: source.id,
      syncRunId: run.id,
      error: message,
    });
  }

  private async setSource(id: string, patch: Partial<DataSourceRecord>): Promise<void> {
    await this.store.dataSources.transact(() => {
      const current = this.store.dataSources.get(id);
      if (!current || current.deletedAt) return { rows: [], result: null };
      return { rows: [{ ...current, ...patch, updatedAt: new Date().toISOString() }], result: null };
    });
  }
}
