/**
 * Rate limits count in fixed windows aligned to the clock (server/src/http/rate-limiter.ts). A test
 * that spends a per-minute limit and expects the 429 must not straddle a minute's end, where the
 * count starts again: late in a minute, this waits for the next one to begin.
 */
export async function startEarlyInWindow(windowMs = 60_000, needMs = 20_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
