import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import type { Logger } from "../log/logger.ts";
import { PRIVATE_FILE_MODE } from "../store/permissions.ts";
import type { Lease } from "./lease.ts";

/** How long a replica counts as alive after its last heartbeat, and how often it beats. */
const ALIVE_MS = 15_000;
const BEAT_MS = 5_000;
const SWEEP_MS = 5_000;
/** The heartbeat a replica writes into its journal directory in the shared storage. */
const HEARTBEAT = "alive";

/** This data directory's replica id: made once, kept across restarts (its journal is named by it). */
export function replicaIdOf(dataDir: string): string {
  const file = join(dataDir, "replica-id");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const id = randomUUID();
  writeFileSync(file, id, { mode: PRIVATE_FILE_MODE });
  return id;
}

/**
 * Shared mode on a shared path: each replica journals under `<journals>/<replicaId>` and beats every
 * few seconds, in Redis and in the storage (its directory's `alive` file). One replica at a time
 * (under a lease) replays the journal of every replica that stopped beating, so what a dead replica
 * acknowledged reaches LanceDB even if it never starts again. The storage decides: a lapsed Redis key
 * (Redis restarted, or unreachable for a while) is not a dead replica while its `alive` file still
 * changes. A replica takes its own journal's lease before replaying it at start, so the two never
 * replay one journal at once.
 */
export class ReplicaPresence {
  private readonly timers: NodeJS.Timeout[] = [];
  private sweeping: Promise<void> | null = null;
  /** Each other replica's heartbeat as this one last saw it change (its own clock: no skew). */
  private readonly heartbeats = new Map<string, { mtimeMs: number; seenAt: number }>();
  private readonly aliveMs: number;

  constructor(
    private readonly deps: {
      redis: Redis;
      lease: Lease;
      logger: Logger;
      /** `<storage>/journals`. */
      journals: string;
      replicaId: string;
      replay: (journalDir: string) => Promise<void>;
      /** Tests: how long a heartbeat that stopped changing still counts as alive, and the beat. */
      timing?: { aliveMs: number; beatMs: number };
    },
  ) {
    this.aliveMs = deps.timing?.aliveMs ?? ALIVE_MS;
  }

  private key(id: string): string {
    return `lore:replica:${id}`;
  }

  /** Announces this replica (before its journal opens: nobody else replays it from now on). */
  async announce(): Promise<void> {
    const { redis, replicaId, journals } = this.deps;
    const dir = join(journals, replicaId);
    const beatInStorage = () => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, HEARTBEAT), String(Date.now()), { mode: PRIVATE_FILE_MODE });
    };
    const beat = () => redis.set(this.key(replicaId), String(Date.now()), "PX", this.aliveMs);
    beatInStorage();
    await beat();
    const timer = setInterval(() => {
      void beat().catch(() => undefined);
      try {
        beatInStorage();
      } catch {
        // The storage at fault: its health reports it; the beat is tried again.
      }
    }, this.deps.timing?.beatMs ?? BEAT_MS);
    timer.unref();
    this.timers.push(timer);
  }

  /** The lease on this replica's own journal, held while `task` replays it at start. */
  async ownJournal<T>(task: () => Promise<T>): Promise<T> {
    for (;;) {
      const outcome = await this.deps.lease.runExclusive(`journal:${this.deps.replicaId}`, task);
      if (outcome.ran) return outcome.value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  startSweeping(): void {
    const timer = setInterval(() => {
      // Without Redis no lease can be taken: the sweep waits for it (a lapse is judged by the storage).
      if (this.deps.redis.status !== "ready") return;
      this.sweeping ??= this.sweep()
        .then(() => undefined)
        .catch((error: unknown) => this.deps.logger.warn("journal sweep failed", { error: String(error) }))
        .finally(() => {
          this.sweeping = null;
        });
    }, SWEEP_MS);
    timer.unref();
    this.timers.push(timer);
  }

  /** Replays the journals of replicas that stopped beating; returns their ids. */
  async sweep(): Promise<string[]> {
    const { lease, journals, replicaId, replay, logger } = this.deps;
    const replayed: string[] = [];
    if (!existsSync(journals)) return replayed;
    for (const id of readdirSync(journals)) {
      if (id === replicaId || !/^[0-9a-f-]{36}$/.test(id)) continue;
      const dir = join(journals, id);
      if (!hasEntries(dir)) continue;
      if (await this.alive(id)) continue;
      const outcome = await lease.runExclusive(`journal:${id}`, async () => {
        // Checked again under the lease: the replica may have come back meanwhile.
        if (await this.alive(id)) return false;
        await replay(dir);
        return true;
      });
      if (outcome.ran && outcome.value) {
        logger.warn("replayed the journal of a replica that stopped", { replica: id });
        replayed.push(id);
      }
    }
    return replayed;
  }

  /**
   * Whether replica `id` still beats: its key in Redis, or else its heartbeat in the storage changed
   * less than ALIVE_MS ago as this replica saw it. A replica that never wrote one (an older version)
   * is judged by its key alone.
   */
  private async alive(id: string): Promise<boolean> {
    if ((await this.deps.redis.exists(this.key(id))) === 1) return true;
    let mtimeMs: number;
    try {
      mtimeMs = statSync(join(this.deps.journals, id, HEARTBEAT)).mtimeMs;
    } catch {
      return false;
    }
    const now = Date.now();
    const seen = this.heartbeats.get(id);
    if (!seen || seen.mtimeMs !== mtimeMs) {
      this.heartbeats.set(id, { mtimeMs, seenAt: now });
      return true;
    }
    return now - seen.seenAt < this.aliveMs;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.sweeping;
    await this.deps.redis.del(this.key(this.deps.replicaId)).catch(() => undefined);
  }
}

/** Whether a replica's journal holds any segment (files are removed once applied). */
function hasEntries(dir: string): boolean {
  const conversations = join(dir, "conversations");
  return existsSync(conversations) && readdirSync(conversations).some((f) => f.endsWith(".jsonl"));
}
