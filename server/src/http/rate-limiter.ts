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

/** Counts requests per rule and key in fixed windows: in this process (memory) or across replicas (Redis). */
export interface RateLimiter {
  /** Charges every rule or none; throws 429 naming the exhausted limit. Returns the tightest state. */
  charge(rules: LimitRule[], now?: number): Promise<LimitState>;
}

/** The 429 for an exhausted rule whose window ends at `resetAtMs`. */
export function rateLimitedError(rule: LimitRule, resetAtMs: number, now: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((resetAtMs - now) / 1000));
  return new AppError(
    "rate_limited",
    "Rate limit exceeded; retry after the delay in Retry-After",
    { limit: rule.name, max: rule.limit, windowSeconds: rule.windowMs / 1000, retryAfter },
    {
      "Retry-After": String(retryAfter),
      "X-RateLimit-Limit": String(rule.limit),
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(Math.ceil(resetAtMs / 1000)),
    },
  );
}

/** The state with the fewest requests left. */
export function tightestState(states: readonly LimitState[]): LimitState {
  let tightest: LimitState | null = null;
  for (const state of states) if (!tightest || state.remaining < tightest.remaining) tightest = state;
  if (!tightest) throw new Error("charge() needs at least one rule");
  return tightest;
}

/** In this process's memory; check-and-charge runs without an await, so concurrency can't overshoot. */
export function createMemoryRateLimiter(): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let sweepAt = 0;

  return {
    async charge(rules, now = Date.now()) {
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
      if (exhausted) throw rateLimitedError(exhausted.rule, exhausted.w.resetAt, now);
      return tightestState(
        states.map(({ rule, w }) => {
          w.count += 1;
          return {
            name: rule.name,
            limit: rule.limit,
            remaining: rule.limit - w.count,
            reset: Math.ceil(w.resetAt / 1000),
          };
        }),
      );
    },
  };
}
