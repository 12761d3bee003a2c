import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

/** What `runExclusive` did: ran the task (with its result), or left it to the replica holding the lease. */
export type LeaseOutcome<T> = { ran: true; value: T } | { ran: false };

/**
 * A named lease, so a background job (a sync, a compaction, a webhook delivery sweep) runs on one
 * replica at a time. The holder renews it while its task runs; a holder that dies stops renewing and
 * the lease lapses after its TTL, so another replica takes the job over.
 */
export interface Lease {
  /**
   * Runs `task` when this process takes the lease `name`; otherwise does nothing. The signal aborts
   * when the lease is lost mid-task (a renewal failed: another replica may be running it by now).
   */
  runExclusive<T>(name: string, task: (signal: AbortSignal) => Promise<T>): Promise<LeaseOutcome<T>>;
}

/** One process: every job is this process's; the lease is always taken. */
export function createLocalLease(): Lease {
  return {
    async runExclusive(_name, task) {
      return { ran: true, value: await task(new AbortController().signal) };
    },
  };
}

// Compare-and-act on the holder's token: only the holder renews or releases its lease.
const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

/**
 * Redis could not be asked for a lease (down, or past its deadline): nobody knows who holds it. A
 * background job waits for its next turn; a request's short decision takes this replica's own lock.
 */
export class LeaseUnavailableError extends Error {
  constructor(name: string, cause: unknown) {
    super(`lease ${name}: Redis is unavailable`, { cause });
  }
}

/**
 * Leases in Redis (`SET NX PX` with a random token, renewed at a third of the TTL). A renewal that
 * fails for Redis (a deadline passed, a reconnect) is tried again at the next beat; the task is told
 * the lease is lost when Redis says another holds it, or when renewals failed for so long that the
 * lease may have lapsed.
 */
export function createRedisLease(redis: Redis, options: { ttlMs?: number; prefix?: string } = {}): Lease {
  const ttlMs = options.ttlMs ?? 30_000;
  const prefix = options.prefix ?? "lore:lease";
  const beatMs = Math.max(10, Math.floor(ttlMs / 3));
  return {
    async runExclusive(name, task) {
      const key = `${prefix}:${name}`;
      const token = randomUUID();
      const taken = await redis.set(key, token, "PX", ttlMs, "NX").catch((error: unknown) => {
        throw new LeaseUnavailableError(name, error);
      });
      if (taken !== "OK") return { ran: false };
      const lost = new AbortController();
      let renewedAt = Date.now();
      const renew = setInterval(() => {
        redis.eval(RENEW, 1, key, token, String(ttlMs)).then(
          (renewed) => {
            if (renewed === 1) renewedAt = Date.now();
            else lost.abort(new Error(`lease ${name} was lost`));
          },
          (error: unknown) => {
            // The next beat would come after the lease lapsed: another replica may take it by then.
            if (Date.now() - renewedAt + beatMs >= ttlMs) lost.abort(error);
          },
        );
      }, beatMs);
      try {
        return { ran: true, value: await task(lost.signal) };
      } finally {
        clearInterval(renew);
        await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
      }
    },
  };
}

/**
 * Runs `task` under the lease if it is free, once this replica has applied every change the fleet
 * numbered so far (`settled`), so the task decides on what the last holder wrote: a job another
 * replica has just finished is seen as finished.
 */
export function runExclusiveSettled<T>(
  lease: Lease,
  feed: { settled(): Promise<void> },
  name: string,
  task: (signal: AbortSignal) => Promise<T>,
): Promise<LeaseOutcome<T>> {
  return lease.runExclusive(name, async (lost) => {
    await feed.settled();
    return task(lost);
  });
}

/** Runs `task` under the lease once it is free (a few seconds at most), for short decisions. */
export async function waitForLease<T>(lease: Lease, name: string, task: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await lease.runExclusive(name, task);
    if (outcome.ran) return outcome.value;
    if (attempt >= 400) throw new Error(`lease ${name} stayed taken`);
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
  }
}
