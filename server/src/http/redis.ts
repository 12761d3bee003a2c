import type { Redis } from "ioredis";
import type { Logger } from "../log/logger.ts";

/**
 * How long any Redis command may take at run time. Redis is an accelerator (fleet-wide limits, the
 * change feed, leases): past this, a caller takes its local fallback instead of waiting.
 */
export const REDIS_DEADLINE_MS = 100;
const RECONNECT_MAX_MS = 500;

/**
 * Connects to the Redis of shared mode and waits until it answers, so a wrong LORE_REDIS_URL stops
 * start-up with a message rather than surfacing on the first request. At run time every command
 * fails within REDIS_DEADLINE_MS, at once while the connection is down (no offline queue), and the
 * client reconnects in the background; the callers fall back to this replica's own memory meanwhile.
 */
export async function connectRedis(
  url: string,
  options: { timeoutMs?: number; logger?: Logger } = {},
): Promise<Redis> {
  // Loaded here, not at start: only shared mode connects, and loading it cost every other start.
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: options.timeoutMs ?? 5000,
    // Down: fail at once rather than queue behind reconnects (a request never waits on Redis).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect attempts at most half a second apart: back within a second of Redis.
    retryStrategy: (times) => Math.min(times * 50, RECONNECT_MAX_MS),
    // Commands issued in the same tick share one round trip (every request asks for the change counter).
    enableAutoPipelining: true,
  });
  // Without a listener an unreachable server is an unhandled 'error' event.
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    // From now on (not while a busy start-up might hold the reply past it).
    setDeadline(redis);
  } catch (error) {
    redis.disconnect();
    const safeUrl = url.replace(/\/\/[^@/]*@/, "//***@");
    throw new Error(
      `LORE_REDIS_URL: cannot reach Redis at ${safeUrl}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const logger = options.logger;
  if (logger) {
    // Said once per outage, where operators look: what this replica does meanwhile.
    let down = false;
    redis.on("close", () => {
      if (down || redis.status === "end") return;
      down = true;
      logger.warn(
        "Redis is unreachable: this replica counts limits and coordinates writes on its own until it is back",
      );
    });
    redis.on("ready", () => {
      if (!down) return;
      down = false;
      logger.info("Redis is back: limits, leases and the change feed are shared again");
    });
  }
  return redis;
}

/** Every command on this connection fails after REDIS_DEADLINE_MS (set once it is connected). */
export function setDeadline(redis: Redis): void {
  redis.options.commandTimeout = REDIS_DEADLINE_MS;
}
