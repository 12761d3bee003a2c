import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import { AppError } from "../errors.ts";
import { limitKey } from "../http/client-ip.ts";

const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** The account slow-down: the first wait past the limit, doubling with each further failure, and its ceiling. */
const SLOWDOWN_BASE_MS = 250;
const SLOWDOWN_MAX_MS = 10_000;

/** Failed logins per key in a window that starts at the key's first failure. */
export interface FailureCounter {
  count(key: string): Promise<{ count: number; resetAt: number }>;
  add(key: string): Promise<void>;
  clear(key: string): Promise<void>;
}

/** This process's memory (the single-process default). */
export function createMemoryFailureCounter(): FailureCounter {
  const failures = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string, now: number) => {
    const entry = failures.get(key);
    return entry && entry.resetAt > now ? entry : null;
  };
  return {
    async count(key) {
      const now = Date.now();
      return live(key, now) ?? { count: 0, resetAt: now };
    },
    async add(key) {
      const now = Date.now();
      const entry = live(key, now);
      if (entry) entry.count += 1;
      else failures.set(key, { count: 1, resetAt: now + FAILURE_WINDOW_MS });
      if (failures.size > 100_000) {
        for (const [k, v] of failures) if (v.resetAt <= now) failures.delete(k);
      }
    },
    async clear(key) {
      failures.delete(key);
    },
  };
}

/** Redis, shared by every replica using it (rate-limiter-flexible's counters; memory while Redis is down). */
export function createRedisFailureCounter(redis: Redis, prefix = "lore:login-failures"): FailureCounter {
  const options = { points: 1_000_000_000, duration: FAILURE_WINDOW_MS / 1000 };
  const counter = new RateLimiterRedis({
    ...options,
    storeClient: redis,
    // While the connection is down, count in memory at once rather than queue behind reconnects.
    rejectIfRedisNotReady: true,
    keyPrefix: prefix,
    insuranceLimiter: new RateLimiterMemory(options),
  });
  return {
    async count(key) {
      const now = Date.now();
      const res = await counter.get(key);
      return res
        ? { count: res.consumedPoints, resetAt: now + res.msBeforeNext }
        : { count: 0, resetAt: now };
    },
    async add(key) {
      await counter.penalty(key, 1);
    },
    async clear(key) {
      await counter.delete(key);
    },
  };
}

/**
 * Counts failed logins per (account, IP) pair, per IP and per account, each in a 15-minute window.
 * A pair or an IP past its limit is refused; an account past it is only slowed down, so failures
 * sent by someone else never lock its owner out.
 */
export class LoginThrottle {
  constructor(
    private readonly limit: number,
    private readonly failures: FailureCounter = createMemoryFailureCounter(),
  ) {}

  /**
   * Throws 429 for a locked pair or IP; otherwise the milliseconds the attempt waits before it is
   * checked. An IPv6 address counts as its /64 (`limitKey`), here and in `fail`/`succeed`.
   */
  async check(account: string, address: string): Promise<number> {
    const ip = limitKey(address);
    await this.refuseOver(`ip:${ip}`, this.limit * 5, "login_failures_per_ip");
    await this.refuseOver(`pair:${account}|${ip}`, this.limit, "login_failures_per_account_ip");
    const { count: failed } = await this.failures.count(`account:${account}`);
    if (failed < this.limit) return 0;
    return Math.min(SLOWDOWN_MAX_MS, SLOWDOWN_BASE_MS * 2 ** (failed - this.limit));
  }

  async fail(account: string, address: string): Promise<void> {
    const ip = limitKey(address);
    for (const key of [`ip:${ip}`, `pair:${account}|${ip}`, `account:${account}`])
      await this.failures.add(key);
  }

  /** The right password from this IP: its pair starts over (the account's slow-down decays with its window). */
  async succeed(account: string, address: string): Promise<void> {
    const ip = limitKey(address);
    await this.failures.clear(`pair:${account}|${ip}`);
  }

  private async refuseOver(key: string, limit: number, name: string): Promise<void> {
    const { count, resetAt } = await this.failures.count(key);
    if (count < limit) return;
    const retryAfter = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    throw new AppError(
      "rate_limited",
      "Too many failed logins; try again later",
      { limit: name, retryAfter },
      { "Retry-After": String(retryAfter) },
    );
  }
}
