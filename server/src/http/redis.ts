import { Redis } from "ioredis";

/**
 * Connects to the Redis of shared mode and waits until it answers, so a wrong LORE_REDIS_URL stops
 * start-up with a message rather than surfacing on the first request. Later outages are retried by
 * the client in the background (see the callers' fallbacks).
 */
export async function connectRedis(url: string, timeoutMs = 5000): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    // A command waits for a reconnect at most this long, then fails over to the caller's fallback.
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    // Commands issued in the same tick share one round trip (every request asks for the change counter).
    enableAutoPipelining: true,
  });
  // Without a listener an unreachable server is an unhandled 'error' event.
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    const safeUrl = url.replace(/\/\/[^@/]*@/, "//***@");
    throw new Error(
      `LORE_REDIS_URL: cannot reach Redis at ${safeUrl}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return redis;
}
