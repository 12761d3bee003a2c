import type { QueryLists, SearchScratch } from "./query-lists.ts";
import { TopSlots } from "./top-slots.ts";

/** What a scan of a range of slots found (`scanSlots`). */
export interface SlotScan {
  heap: TopSlots;
  /**
   * The slots with a document that scored at least best / 1.5 of the best so far when the scan
   * reached them (the first `rivalCount`), ascending: every slot with 1.5 · score ≥ the range's best
   * is among them.
   */
  rivals: Int32Array;
  rivalCount: number;
  /** The best score of a slot with a document in the range, 0 for none. */
  best: number;
  /** The first slot of each block gone over: their scores stay in the scratch until cleared. */
  blocks: number[];
}

/**
 * The slots a scan scores: `from` .. `end` (whole blocks of `block` slots) in chunks of `span` slots
 * (whole blocks), chunk c being `from + c · span` on. With `claim` (a shared counter) two threads
 * take the chunks in turn, each the next one not taken, so neither waits long for the other;
 * without, a thread takes chunks `first`, `first + step`, … (one thread all: 0 and 1; tests give
 * each of two threads every other one, 0 or 1 and 2).
 */
export interface ScanRange {
  from: number;
  end: number;
  block: number;
  span: number;
  claim: Int32Array | null;
  first: number;
  step: number;
  /** The heap's size. */
  limit: number;
}

/**
 * Scores the slots of the chunks of `range` it takes, a block at a time: each block's postings are
 * added (`QueryLists.addUpTo`), then its slots are read in slot order while their scores are still in
 * the cache. Those scoring at least the heap's floor go to the heap, and those with a document scoring
 * at least the best so far / 1.5 are kept as rivals (the best only rises, so none that passes at the
 * end was left out). The chunks one thread takes ascend, so the lists' cursors only move on.
 *
 * The same code scores the whole index on the event loop, or some of its chunks on each of two
 * threads (`scan-helper.ts`): the two threads' heaps and rivals combine to the whole's.
 */
export function scanSlots(
  lists: QueryLists,
  scratch: SearchScratch,
  groupOf: Int32Array,
  range: ScanRange,
): SlotScan {
  const { end, block, span, claim } = range;
  const acc = scratch.scores;
  if (end > acc.length || end > scratch.norms.length || end > groupOf.length || end > scratch.lengths.length)
    throw new RangeError(`slots up to ${end} lie past the search's arrays`);
  if (!(span > 0)) throw new RangeError(`a scan's chunks must hold slots (span ${span})`);
  const heap = new TopSlots(range.limit);
  const blocks: number[] = [];
  let rivals = new Int32Array(256);
  let rivalCount = 0;
  // The best score of a slot with a document, and the floor of the heap: a slot scoring below the
  // heap's floor is not offered (the heap would refuse it, and it cannot tie with the floor the
  // heap ends with: floors only rise), nor kept as a rival below best / 1.5.
  let best = 0;
  let floor = heap.floor();
  // Below both (0.66 < 1 / 1.5, so rounding cannot leave a rival out): one test a slot.
  let gate = floor;
  let taken = 0;
  for (;;) {
    const chunk = claim ? Atomics.add(claim, 0, 1) : range.first + range.step * taken++;
    const start = range.from + chunk * span;
    if (start >= end) break;
    const stop = Math.min(end, start + span);
    lists.skipTo(start);
    for (let from = lists.nextBlock(block, stop); from < stop; ) {
      const to = Math.min(stop, from + block);
      blocks.push(from);
      lists.normBlock(from, to, from / block, scratch);
      lists.addUpTo(to, scratch);
      // Unchecked reads: every slot here is below `end`, checked above.
      for (let slot = from; slot < to; slot++) {
        const score = acc[slot] as number;
        // A slot no posting reached scores 0, every other more (see QueryLists).
        if (score < gate || score === 0) continue;
        if (score >= floor) {
          heap.offer(slot, score);
          floor = heap.floor();
        }
        if ((groupOf[slot] as number) >= 0 && 1.5 * score >= best) {
          if (score > best) best = score;
          if (rivalCount === rivals.length) {
            const grown = new Int32Array(rivalCount * 2);
            grown.set(rivals);
            rivals = grown;
          }
          rivals[rivalCount++] = slot;
        }
        gate = Math.min(floor, best * 0.66);
      }
      from = lists.nextBlock(block, stop);
    }
  }
  return { heap, rivals, rivalCount, best, blocks };
}
