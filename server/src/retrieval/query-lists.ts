import { float64At, int32At, itemAt } from "./checked-access.ts";
import { firstAtLeast, type PostingLists } from "./posting-lists.ts";

/** One term's BM25 contribution; `lengthNorm` is k1 · (1 − b + b · length / average length). */
export const bm25Part = (weight: number, tf: number, k1: number, lengthNorm: number): number =>
  (weight * tf * (k1 + 1)) / (tf + lengthNorm);

/** BM25's parameters for a search of the body field. */
export interface BodyScoring {
  k1: number;
  b: number;
  avgLength: number;
}

/** Per slot during a search: its score, and a bit for `offerInListOrder`; both zero between searches. */
export interface SearchScratch {
  scores: Float64Array;
  /** Bit slot % 32 of word slot / 32 for each slot (`offerInListOrder`'s `seen`). */
  marks: Int32Array;
  /** Per slot its body length, negative for a removed chunk (which scores nothing). */
  lengths: Int32Array;
  /**
   * Per slot its length norm (`bm25Part`'s `lengthNorm`), −1 for a removed chunk: kept between
   * searches, and valid in the blocks of slots whose entry in `normed` is `generation` (`normBlock`).
   */
  norms: Float64Array;
  /** Per block of slots the `generation` its norms were computed for. */
  normed: Int32Array;
  /** The index's lengths and average length: every change to them makes a new generation. */
  generation: number;
}
/** How often (in entries) `offerInListOrder` looks whether the heap's floor reached the cut. */
const FLOOR_CHECK_ENTRIES = 1024;

/**
 * The posting lists one question scores, in order (each term's body list, then its title list where
 * titles count), each as the stretches of its entries whose source the question may read, with a
 * cursor. `addUpTo(end)` adds every list's entries for slots below `end`, from where each stopped.
 *
 * Called a block of slots at a time (`LexicalIndex.topInBlocks`), every list goes over the block
 * before the next block: the scores being added to stay in the cache, where a list at a time sweeps
 * the whole score array once per list, and at a million slots each posting then pays a miss. Every
 * slot still gets the same additions in the same order (a list's entries ascend by slot), so the
 * same scores. Only the order in which slots are first reached differs from a list at a time; where
 * it matters, `offerInListOrder` gives the slots in that order.
 *
 * Lists of weight 0 (or less) are left out: they add nothing to a score. So every posting adds more
 * than zero (weights are IDFs, always above zero, and shares of them), and a slot scores above zero
 * exactly when some posting reached it.
 */
export class QueryLists {
  private readonly docs: Int32Array[] = [];
  private readonly tfs: Uint16Array[] = [];
  /** Per list: the term's weight (body) or its flat title share, and whether it is the latter. */
  private readonly weights: number[] = [];
  private readonly flat: boolean[] = [];
  /** Every list's stretches' bounds, concatenated; list k's stretches are firstStretch[k] .. [k + 1]. */
  private bounds: Int32Array = new Int32Array(64);
  private readonly firstStretch: number[] = [0];
  /** Per list: the stretch and the entry its cursor is at. */
  private stretch = new Int32Array(0);
  private position = new Int32Array(0);
  constructor(private readonly body: BodyScoring) {}

  get count(): number {
    return this.weights.length;
  }

  /** The lists as plain data (typed arrays over shared memory), for `fromParts` on another thread. */
  parts(): QueryListParts {
    return {
      body: this.body,
      docs: this.docs,
      tfs: this.tfs,
      weights: this.weights,
      flat: this.flat,
      bounds: this.bounds.subarray(0, itemAt(this.firstStretch, this.count) * 2),
      firstStretch: this.firstStretch,
    };
  }

  /** The lists `parts` gave, with no cursor placed yet (`startAt`). */
  static fromParts(parts: QueryListParts): QueryLists {
    const lists = new QueryLists(parts.body);
    lists.docs.push(...parts.docs);
    lists.tfs.push(...parts.tfs);
    lists.weights.push(...parts.weights);
    lists.flat.push(...parts.flat);
    lists.bounds = parts.bounds;
    lists.firstStretch.length = 0;
    lists.firstStretch.push(...parts.firstStretch);
    return lists;
  }

  /** Entries in every list (the work a search's postings are). */
  entries(): number {
    let total = 0;
    for (let s = 0; s < itemAt(this.firstStretch, this.count); s++)
      total += int32At(this.bounds, 2 * s + 1) - int32At(this.bounds, 2 * s);
    return total;
  }

  /** Adds a term's list: its BM25 with `weight`, or `flat` for each entry (a title list). */
  add(lists: PostingLists, term: number, allowed: ReadonlySet<number>, weight: number, flat: boolean): void {
    if (!(weight > 0)) return;
    const found = lists.allowedStretches(term, allowed);
    if (found === null) return;
    const used = itemAt(this.firstStretch, this.count) * 2;
    if (this.bounds.length < used + found.count * 2) {
      const grown = new Int32Array(Math.max(this.bounds.length * 2, used + found.count * 2));
      grown.set(this.bounds);
      this.bounds = grown;
    }
    this.bounds.set(found.bounds.subarray(0, found.count * 2), used);
    this.docs.push(found.docs);
    this.tfs.push(found.tfs);
    this.weights.push(weight);
    this.flat.push(flat);
    this.firstStretch.push(used / 2 + found.count);
  }

  /** Puts every cursor at its list's first entry at or above `slot` (past its end when none is). */
  startAt(slot: number): void {
    this.stretch = new Int32Array(this.count);
    this.position = new Int32Array(this.count);
    for (let k = 0; k < this.count; k++) {
      const first = itemAt(this.firstStretch, k);
      this.stretch[k] = first;
      this.position[k] = first < itemAt(this.firstStretch, k + 1) ? int32At(this.bounds, 2 * first) : 0;
    }
    this.skipTo(slot);
  }

  /** Moves every cursor on to its list's first entry at or above `slot` (a cursor past it stays). */
  skipTo(slot: number): void {
    for (let k = 0; k < this.count; k++) {
      const docs = itemAt(this.docs, k);
      const last = itemAt(this.firstStretch, k + 1);
      let s = int32At(this.stretch, k);
      let i = int32At(this.position, k);
      while (s < last) {
        const to = int32At(this.bounds, 2 * s + 1);
        i = firstAtLeast(docs, i, to, slot);
        if (i < to) break;
        s++;
        if (s < last) i = int32At(this.bounds, 2 * s);
      }
      this.stretch[k] = s;
      this.position[k] = i;
    }
  }

  /**
   * The first slot of the block of `block` slots that holds the lowest entry a cursor is at (each
   * list's entries below it are all added), or `none` once every list is through: a search skips
   * the blocks no list has an entry in, so a small agent's question on a big index goes over its own
   * sources' few blocks only.
   */
  nextBlock(block: number, none: number): number {
    let next = none;
    for (let k = 0; k < this.count; k++) {
      if (int32At(this.stretch, k) >= itemAt(this.firstStretch, k + 1)) continue;
      const slot = int32At(itemAt(this.docs, k), int32At(this.position, k));
      if (slot < next) next = slot;
    }
    return next === none ? none : next - (next % block);
  }

  /**
   * Makes the length norms of the slots `from` .. `to` (block `index`) those of the current lengths
   * and average length, unless they are already: the first search after a change computes each
   * block's once (a division a slot), the next ones read them. A norm is the same double whichever
   * search computed it.
   */
  normBlock(from: number, to: number, index: number, scratch: SearchScratch): void {
    const { norms, normed, lengths, generation } = scratch;
    if (int32At(normed, index) === generation) return;
    const { k1, b, avgLength } = this.body;
    for (let slot = from; slot < to; slot++) {
      const length = int32At(lengths, slot);
      norms[slot] = length < 0 ? -1 : k1 * (1 - b + (b * length) / avgLength);
    }
    normed[index] = generation;
  }

  /**
   * Adds each list's entries for slots below `end` that its cursor has not reached yet; the norms of
   * their slots are computed (`normBlock`), and `end` is within the scratch's arrays.
   */
  addUpTo(end: number, scratch: SearchScratch): void {
    for (let k = 0; k < this.count; k++)
      this.advance(k, (from, to) => this.addStretch(k, from, to, end, scratch));
  }

  /**
   * Moves list k's cursor on, calling `visit` for its entries a stretch at a time (`from` .. `to`);
   * `visit` returns where it stopped, before `to` when it reached the end of a block of slots.
   */
  private advance(k: number, visit: (from: number, to: number) => number): void {
    const last = itemAt(this.firstStretch, k + 1);
    let s = int32At(this.stretch, k);
    let i = int32At(this.position, k);
    while (s < last) {
      const to = int32At(this.bounds, 2 * s + 1);
      i = visit(i, to);
      if (i < to) break;
      s++;
      if (s < last) i = int32At(this.bounds, 2 * s);
    }
    this.stretch[k] = s;
    this.position[k] = i;
  }

  /**
   * Adds list k's entries from `i` up to `to` or the first slot at or past `end`; returns where it
   * stopped. One loop per kind of list, with everything in locals and no test of the score: this
   * runs once per posting. Its reads are unchecked (a checked read cost a fifth of the loop): `to` is
   * checked against the list's arrays once, and every slot read is below `end`, within the scratch.
   */
  private addStretch(k: number, from: number, to: number, end: number, scratch: SearchScratch): number {
    const docs = itemAt(this.docs, k);
    const { scores, norms } = scratch;
    let i = from;
    if (itemAt(this.flat, k)) {
      if (to > docs.length) throw new RangeError(`a stretch ends past its list (${to} > ${docs.length})`);
      const flat = itemAt(this.weights, k);
      for (; i < to; i++) {
        const slot = docs[i] as number;
        if (slot >= end) break;
        if ((norms[slot] as number) < 0) continue;
        scores[slot] = (scores[slot] as number) + flat;
      }
    } else {
      const tfs = itemAt(this.tfs, k);
      if (to > docs.length || to > tfs.length)
        throw new RangeError(`a stretch ends past its list (${to} > ${Math.min(docs.length, tfs.length)})`);
      const weight = itemAt(this.weights, k);
      const k1 = this.body.k1;
      for (; i < to; i++) {
        const slot = docs[i] as number;
        if (slot >= end) break;
        const norm = norms[slot] as number;
        if (norm < 0) continue;
        scores[slot] = (scores[slot] as number) + bm25Part(weight, tfs[i] as number, k1, norm);
      }
    }
    return i;
  }

  /**
   * Offers every slot with a score to `heap` once, in the order a list at a time first reaches them:
   * list by list, and within a list by slot (`seen`: a zeroed bit per slot, left with bits set).
   * `cut` is the lowest score the heap will end with, and `above` the slots that score higher,
   * ascending (fewer than the heap holds: a search in slot order found them).
   *
   * An offer at or below the heap's floor would be refused, then and at any later offer of the slot
   * (floors only rise): it is not made, and the slot is not marked. A removed chunk's slot scores 0.
   *
   * The lists are gone over entry by entry only until the heap is full at `cut`. From then on its
   * floor rises no more, so of the offers still to come only those of `above` get in, and the order
   * they come in changes nothing: every slot at the cut has only such slots below it (a min-heap), so
   * each one taken in sifts down along the same slots at the cut, whatever its score, and pushes out
   * the same one. So those of `above` not reached yet go in, in slot order.
   */
  offerInListOrder(
    scratch: SearchScratch,
    seen: Int32Array,
    cut: number,
    above: Int32Array,
    heap: SlotHeap,
  ): void {
    const { scores } = scratch;
    let floor = heap.floor();
    for (let k = 0; k < this.count; k++) {
      const docs = itemAt(this.docs, k);
      for (let s = itemAt(this.firstStretch, k); s < itemAt(this.firstStretch, k + 1); s++) {
        const to = int32At(this.bounds, 2 * s + 1);
        if (to > docs.length) throw new RangeError(`a stretch ends past its list (${to} > ${docs.length})`);
        for (let i = int32At(this.bounds, 2 * s); i < to; ) {
          const stop = Math.min(to, i + FLOOR_CHECK_ENTRIES);
          // Unchecked reads: i < to, checked above; a slot past the scores reads undefined, skipped
          // as a refused offer, and one within them has its bit within `seen` (as long, in bits).
          for (; i < stop; i++) {
            const slot = docs[i] as number;
            const score = scores[slot] as number;
            if (!(score > floor) || score === 0) continue;
            const word = slot >>> 5;
            const bit = 1 << (slot & 31);
            const bits = seen[word] as number;
            if ((bits & bit) !== 0) continue;
            seen[word] = bits | bit;
            heap.offer(slot, score);
            floor = heap.floor();
          }
          if (floor >= cut) {
            for (const slot of above)
              if ((int32At(seen, slot >>> 5) & (1 << (slot & 31))) === 0)
                heap.offer(slot, float64At(scores, slot));
            return;
          }
        }
      }
    }
  }
}

/** The lists of a `QueryLists` as plain data (see `parts`). */
export interface QueryListParts {
  body: BodyScoring;
  docs: Int32Array[];
  tfs: Uint16Array[];
  weights: number[];
  flat: boolean[];
  bounds: Int32Array;
  firstStretch: number[];
}

/** A bounded heap of the best slots (TopSlots in top-slots.ts). */
export interface SlotHeap {
  offer(slot: number, score: number): void;
  /** Once full, the lowest score it holds (an offer must score above it to get in); else −∞. */
  floor(): number;
}
