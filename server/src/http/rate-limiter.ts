import { AppError } from "../errors.ts";

export interface LimitRule {
  /** Named in 429 details, e.g. "user_per_hour". */
  name: string;
  key: string;
  limit: number;
  windowMs: number;
}

export interface LimitState {
  name: string;
  limit: number;
  remaining: number;
  /** Unix time, seconds, when the window resets. */
  reset: number;
}

/** Counts requests in fixed windows, in memory; check-and-charge is synchronous, so concurrency can't overshoot. */
export interface RateLimiter {
  /** Charges every rule or none; throws 429 naming the exhausted limit. Returns the tightest state. */
  charge(rules: LimitRule[], now?: number): LimitState;
}

export function createMemoryRateLimiter(): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let sweepAt = 0;

  return {
    charge(rules, now = Date.now()) {
      if (now > sweepAt) {
        for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
        sweepAt = now + 60_000;
      }
      const states = rules.map((rule) => {
        const id = `${rule.name}:${rule.key}`;
        let w = windows.get(id);
        if (!w || w.resetAt <= now) {
          w = { count: 0, resetAt: Math.floor(now / rule.windowMs) * rule.windowMs + rule.windowMs };
          windows.set(id, w);
        }
        return { rule, w };
      });
      const exhausted = states.find(({ rule, w }) => w.count >= rule.limit);
      if (exhausted) {
        const retryAfter = Math.max(1, Math.ceil((exhausted.w.resetAt - now) / 1000));
        const reset = Math.ceil(exhausted.w.resetAt / 1000);
        throw new AppError(
          "rate_limited",
          "Rate limit exceeded; retry after the delay in Retry-After",
          {
            limit: exhausted.rule.name,
            max: exhausted.rule.limit,
            windowSeconds: exhausted.rule.windowMs / 1000,
            retryAfter,
          },
          {
            "Retry-After": String(retryAfter),
            "X-RateLimit-Limit": String(exhausted.rule.limit),
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": String(reset),
          },
        );
      }
      let tightest: LimitState | null = null;
      for (const { rule, w } of states) {
        w.count += 1;
        const state = {
          name: rule.name,
          limit: rule.limit,
          remaining: rule.limit - w.count,
          reset: Math.ceil(w.resetAt / 1000),
        };
        if (!tightest || state.remaining < tightest.remaining) tightest = state;
      }
      if (!tightest) throw new Error("charge() needs at least one rule");
      return tightest;
    },
  };
}
