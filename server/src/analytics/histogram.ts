import { z } from "zod";

/**
 * Log-spaced latency bins: bin 0 holds values below 0.1 ms, bin i ≥ 1 holds [0.1·r^(i-1), 0.1·r^i)
 * with r = 1.05, up to ten minutes (the last bin takes anything larger). A percentile read from the
 * bins is within ±2.5 % of the exact one, whatever the range merged.
 */
export const HISTOGRAM_RATIO = 1.05;
const MIN_MS = 0.1;
const LOG_RATIO = Math.log(HISTOGRAM_RATIO);
export const HISTOGRAM_BINS = 2 + Math.ceil(Math.log(600_000 / MIN_MS) / LOG_RATIO);

/** A sparse histogram as stored: its bins and their counts, pairwise. */
export const sparseHistogramJsonSchema = z
  .tuple([z.array(z.number().int().nonnegative()), z.array(z.number())])
  .refine(([bins, counts]) => bins.length === counts.length, "bins and counts must pair up");
export type SparseHistogramJson = z.infer<typeof sparseHistogramJsonSchema>;

export function binOf(ms: number): number {
  if (!(ms >= MIN_MS)) return 0;
  return Math.min(HISTOGRAM_BINS - 1, 1 + Math.floor(Math.log(ms / MIN_MS) / LOG_RATIO));
}

/** The value reported for a bin: the geometric middle of its bounds. */
export function binValue(bin: number): number {
  if (bin <= 0) return 0;
  return MIN_MS * HISTOGRAM_RATIO ** (bin - 0.5);
}

/** A histogram stored sparsely (sorted bin ids and their counts): hour buckets rarely use more than a few dozen bins. */
export class SparseHistogram {
  bins: Uint16Array;
  counts: Uint32Array;
  size = 0;

  constructor(capacity = 8) {
    this.bins = new Uint16Array(capacity);
    this.counts = new Uint32Array(capacity);
  }

  add(ms: number, times = 1): void {
    this.addBin(binOf(ms), times);
  }

  addBin(bin: number, times: number): void {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.bins[mid] ?? 0) < bin) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.size && this.bins[lo] === bin) {
      this.counts[lo] = (this.counts[lo] ?? 0) + times;
      return;
    }
    if (this.size === this.bins.length) {
      const bins = new Uint16Array(this.size * 2);
      const counts = new Uint32Array(this.size * 2);
      bins.set(this.bins);
      counts.set(this.counts);
      this.bins = bins;
      this.counts = counts;
    }
    this.bins.copyWithin(lo + 1, lo, this.size);
    this.counts.copyWithin(lo + 1, lo, this.size);
    this.bins[lo] = bin;
    this.counts[lo] = times;
    this.size += 1;
  }

  /** Adds this histogram's counts into a dense accumulator of HISTOGRAM_BINS entries. */
  mergeInto(dense: Float64Array): void {
    for (let i = 0; i < this.size; i++) {
      const bin = this.bins[i] ?? 0;
      dense[bin] = (dense[bin] ?? 0) + (this.counts[i] ?? 0);
    }
  }

  toJSON(): SparseHistogramJson {
    return [Array.from(this.bins.subarray(0, this.size)), Array.from(this.counts.subarray(0, this.size))];
  }

  static fromJSON(data: SparseHistogramJson): SparseHistogram {
    const h = new SparseHistogram(Math.max(8, data[0].length));
    h.bins.set(data[0]);
    h.counts.set(data[1]);
    h.size = data[0].length;
    return h;
  }
}

export function denseHistogram(): Float64Array {
  return new Float64Array(HISTOGRAM_BINS);
}

/** Nearest-rank percentile (the smallest value with at least p·n values at or below it); null when empty. */
export function percentile(dense: Float64Array, p: number): number | null {
  let total = 0;
  for (const c of dense) total += c;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (let bin = 0; bin < dense.length; bin++) {
    seen += dense[bin] ?? 0;
    if (seen >= rank) return binValue(bin);
  }
  return binValue(dense.length - 1);
}
