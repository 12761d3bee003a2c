import type { Redis } from "ioredis";

/**
 * Shared mode: which refresh tokens (by `jti`) were spent, and when, counted once for the fleet. Two
 * replicas handed the same token at the same moment cannot both see it as unspent: `SET NX` decides.
 */
export interface SpentTokens {
  /** Marks the token spent at `at`; returns when it was first spent (ms) if it already was, else null. */
  spend(jti: string, at: number, ttlMs: number): Promise<number | null>;
}

export function createRedisSpentTokens(redis: Redis, prefix = "lore:spent-refresh"): SpentTokens {
  return {
    async spend(jti, at, ttlMs) {
      const key = `${prefix}:${jti}`;
      const set = await redis.set(key, String(at), "PX", Math.max(1, Math.round(ttlMs)), "NX");
      if (set === "OK") return null;
      const first = Number(await redis.get(key));
      return Number.isFinite(first) ? first : at;
    },
  };
}
