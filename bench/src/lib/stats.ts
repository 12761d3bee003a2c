/** Percentiles, recall at k and small timing helpers. */

/** Nearest-rank percentile (p in 0..100) of unsorted samples; 0 for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? 0;
}

export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const mean = samples.length === 0 ? 0 : samples.reduce((a, b) => a + b, 0) / samples.length;
  return {
    n: samples.length,
    p50: round(percentile(samples, 50)),
    p95: round(percentile(samples, 95)),
    p99: round(percentile(samples, 99)),
    mean: round(mean),
  };
}

/** Share of queries whose first relevant hit has rank ≤ k, for each k (ranks are 1-based, Infinity = miss). */
export function recallAt(ranks: readonly number[], ks: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of ks) {
    const hits = ranks.filter((r) => r <= k).length;
    out[`@${k}`] = ranks.length === 0 ? 0 : round(hits / ranks.length, 4);
  }
  return out;
}

/** Rank (1-based) of the first item matching, Infinity when none. */
export function firstRank<T>(items: readonly T[], relevant: (item: T) => boolean): number {
  const i = items.findIndex(relevant);
  return i < 0 ? Number.POSITIVE_INFINITY : i + 1;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Every `step`-th item starting at `offset` (a fixed, reproducible sample). */
export function everyNth<T>(items: readonly T[], step: number, offset = 0): T[] {
  return items.filter((_, i) => i % step === offset);
}

/** Runs `fn` over items with at most `concurrency` in flight; results keep input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return out;
}

export function elapsedMs(start: number): number {
  return round(performance.now() - start, 1);
}
