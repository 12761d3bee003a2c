import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import type { Logger } from "../log/logger.ts";
import { PRIVATE_FILE_MODE } from "../store/permissions.ts";
import type { Lease } from "./lease.ts";

/** How long a replica counts as alive after its last heartbeat, and how often it beats. */
const ALIVE_MS = 15_000;
const BEAT_MS = 5_000;
const SWEEP_MS = 5_000;

/** This data directory's replica id: made once, kept across restarts (its journal is named by it). */
export function replicaIdOf(dataDir: string): string {
  const file = join(dataDir, "replica-id");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const id = randomUUID();
  writeFileSync(file, id, { mode: PRIVATE_FILE_MODE });
  return id;
}

/**
 * Shared mode on a shared path: each replica journals under `<journals>/<replicaId>` and announces
 * itself in Redis every few seconds. One replica at a time (under a lease) replays the journal of
 * every replica that stopped announcing itself, so what a dead replica acknowledged reaches LanceDB
 * even if it never starts again. A replica takes its own journal's lease before replaying it at
 * start, so the two never replay one journal at once.
 */
export class ReplicaPresence {
  private readonly timers: NodeJS.Timeout[] = [];
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      redis: Redis;
      lease: Lease;
      logger: Logger;
      /** `<storage>/journals`. */
      journals: string;
      replicaId: string;
      replay: (journalDir: string) => Promise<void>;
    },
  ) {}

  private key(id: string): string {
    return `lore:replica:${id}`;
  }

  /** Announces this replica (before its journal opens: nobody else replays it from now on). */
  async announce(): Promise<void> {
    const beat = () => this.deps.redis.set(this.key(this.deps.replicaId), String(Date.now()), "PX", ALIVE_MS);
    await beat();
    const timer = setInterval(() => void beat().catch(() => undefined), BEAT_MS);
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

  /** Replays the journals of replicas that stopped announcing themselves; returns their ids. */
  async sweep(): Promise<string[]> {
    const { redis, lease, journals, replicaId, replay, logger } = this.deps;
    const replayed: string[] = [];
    if (!existsSync(journals)) return replayed;
    for (const id of readdirSync(journals)) {
      if (id === replicaId || !/^[0-9a-f-]{36}$/.test(id)) continue;
      const dir = join(journals, id);
      if (!hasEntries(dir)) continue;
      if ((await redis.exists(this.key(id))) === 1) continue;
      const outcome = await lease.runExclusive(`journal:${id}`, async () => {
        // Checked again under the lease: the replica may have come back meanwhile.
        if ((await redis.exists(this.key(id))) === 1) return false;
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
