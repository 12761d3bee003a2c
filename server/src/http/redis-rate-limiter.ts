import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import {
  type LimitRule,
  type LimitState,
  type RateLimiter,
  rateLimitedError,
  tightestState,
} from "./rate-limiter.ts";

/**
 * Rate limits counted in Redis (rate-limiter-flexible's atomic counters), so every replica on the
 * same Redis charges the same windows: 60 queries a minute is 60 for the fleet, not per replica.
 * Windows start at a key's first request (not on the clock's minute). While Redis is unreachable,
 * each replica counts in its own memory (the library's insurance limiter) rather than failing requests.
 */
export function createRedisRateLimiter(redis: Redis, prefix = "lore:rate"): RateLimiter {
  const limiters = new Map<string, RateLimiterRedis>();
  const limiterFor = (rule: LimitRule): RateLimiterRedis => {
    const id = `${rule.name}:${rule.limit}:${rule.windowMs}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const options = { points: rule.limit, duration: Math.max(1, Math.round(rule.windowMs / 1000)) };
      limiter = new RateLimiterRedis({
        ...options,
        storeClient: redis,
        // While the connection is down, count in memory at once rather than queue behind reconnects.
        rejectIfRedisNotReady: true,
        keyPrefix: `${prefix}:${rule.name}:${rule.limit}:${rule.windowMs}`,
        insuranceLimiter: new RateLimiterMemory(options),
      });
      limiters.set(id, limiter);
    }
    return limiter;
  };

  return {
    async charge(rules, now = Date.now()) {
      const charged: LimitRule[] = [];
      const states: LimitState[] = [];
      for (const rule of rules) {
        try {
          const res = await limiterFor(rule).consume(rule.key);
          charged.push(rule);
          states.push({
            name: rule.name,
            limit: rule.limit,
            remaining: Math.max(0, res.remainingPoints),
            reset: Math.ceil((now + res.msBeforeNext) / 1000),
          });
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          // Every rule or none: what this request was already charged is given back.
          await Promise.all(charged.map((r) => limiterFor(r).reward(r.key, 1)));
          throw rateLimitedError(rule, now + rejection.msBeforeNext, now);
        }
      }
      return tightestState(states);
    },
  };
}
