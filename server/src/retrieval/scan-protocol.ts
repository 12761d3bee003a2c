import type { ScanRange } from "./block-scan.ts";
import type { QueryListParts, SearchScratch } from "./query-lists.ts";
import type { HeapEntries } from "./top-slots.ts";

/**
 * How the event loop and the search's second thread talk (`scan-helper.ts`, `scan-worker.ts`): a
 * job and its reply go over a MessagePort, each read at once with `receiveMessageOnPort`; a shared
 * Int32Array of control words wakes the other side (`Atomics.wait` / `notify`).
 */
export const CONTROL_WORDS = 4;
/** 1 once the worker waits for jobs. */
export const READY = 0;
/** The number of the latest job asked for; −1 asks the worker to end. */
export const ASKED = 1;
/** The number of the latest job answered. */
export const DONE = 2;

/**
 * Score the chunks of the slots `from` .. `end` of an index's lists that the worker takes from
 * `claim` (`ScanRange`: the event loop takes the others); all arrays shared with the event loop.
 */
export interface ScanJob extends ScanRange {
  kind: "scan";
  parts: QueryListParts;
  /** The search's scratch but the tie fallback's bits (only the event loop settles ties). */
  scratch: Omit<SearchScratch, "marks">;
  groupOf: Int32Array;
}

/** Zero the scores of these ranges (pairs of from, to): a finished search's blocks. No reply. */
export interface ClearJob {
  kind: "clear";
  scores: Float64Array;
  ranges: Int32Array;
}

/** Zeroes a clearing job's ranges (on the worker, or here where the worker failed). */
export function clearRanges(job: ClearJob): void {
  for (let i = 0; i + 1 < job.ranges.length; i += 2)
    job.scores.fill(0, job.ranges[i] ?? 0, job.ranges[i + 1] ?? 0);
}

export type ScanReply =
  | { heap: HeapEntries; rivals: Int32Array; best: number; blocks: number[] }
  | { error: string };
