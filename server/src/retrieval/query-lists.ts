import { float64At, int32At, itemAt, uint16At } from "./checked-access.ts";
import type { PostingLists } from "./posting-lists.ts";

/** One term's BM25 contribution; `lengthNorm` is k1 · (1 − b + b · length / average length). */
export const bm25Part = (weight: number, tf: number, k1: number, lengthNorm: number): number =>
  (weight * tf * (k1 + 1)) / (tf + lengthNorm);

/** BM25's parameters for a search of the body field. */
export interface BodyScoring {
  k1: number;
  b: number;
  avgLength: number;
}

/**
 * Per slot during a search: its score and a bit set as it is first touched (both zero between
 * searches); and the slots it touched, in the order the postings first reached them.
 */
export interface SearchScratch {
  scores: Float64Array;
  /** A bit per slot, set as it is first touched (bit slot % 32 of word slot / 32). */
  marks: Int32Array;
  /** Per slot its body length, negative for a removed chunk (which scores nothing). */
  lengths: Int32Array;
  touched: Int32Array;
  touchedCount: number;
}

/**
 * The posting lists one question scores, in order (each term's body list, then its title list where
 * titles count), each as the stretches of its entries whose source the question may read, with a
 * cursor. `addUpTo(end)` adds every list's entries for slots below `end`, from where each stopped.
 *
 * Called once with the index's end, that is the classic term-at-a-time loop. Called a block of slots
 * at a time (`LexicalIndex.topInSlotOrder`), every list goes over the block before the next block:
 * the scores being added to stay in the cache, where a list at a time sweeps the whole score array
 * once per list, and at a million slots each posting then pays a miss. Either way every slot gets the
 * same additions in the same order (a list's entries ascend by slot), so the same scores; only the
 * order in which slots are first touched differs. The slots each list touches in each call form a
 * run of the touched list, so `offerInListOrder` can go over them in the order a list at a time
 * gives.
 */
export class QueryLists {
  private readonly docs: Int32Array[] = [];
  private readonly tfs: Uint16Array[] = [];
  /** Per list: the term's weight (body) or its flat title share, and whether it is the latter. */
  private readonly weights: number[] = [];
  private readonly flat: boolean[] = [];
  /** Every list's stretches' bounds, concatenated; list k's stretches are firstStretch[k] .. [k + 1]. */
  private bounds = new Int32Array(64);
  private readonly firstStretch: number[] = [0];
  /** Per list: the stretch and the entry its cursor is at. */
  private stretch = new Int32Array(0);
  private position = new Int32Array(0);
  /** Where each call of `addUpTo` had each list start adding to the touched list (call by call). */
  private runStarts = new Int32Array(64);
  private runCount = 0;
  /** Entries in the allowed stretches of every list (an upper bound on the slots touched). */
  entries = 0;

  constructor(private readonly body: BodyScoring) {}

  get count(): number {
    return this.weights.length;
  }

  /** Adds a term's list: its BM25 with `weight`, or `flat` for each entry (a title list). */
  add(
    lists: PostingLists,
    term: number,
    allowed: ReadonlySet<number>,
    sourceOf: Int32Array,
    weight: number,
    flat: boolean,
  ): void {
    const found = lists.allowedStretches(term, allowed, sourceOf);
    if (found === null) return;
    const used = itemAt(this.firstStretch, this.count) * 2;
    if (this.bounds.length < used + found.count * 2) {
      const grown = new Int32Array(Math.max(this.bounds.length * 2, used + found.count * 2));
      grown.set(this.bounds);
      this.bounds = grown;
    }
    // Stretches that meet (runs of allowed sources one after the other) become one.
    let end = used;
    for (let s = 0; s < found.count; s++) {
      const from = int32At(found.bounds, 2 * s);
      const to = int32At(found.bounds, 2 * s + 1);
      this.entries += to - from;
      if (end > used && int32At(this.bounds, end - 1) === from) this.bounds[end - 1] = to;
      else {
        this.bounds[end++] = from;
        this.bounds[end++] = to;
      }
    }
    this.docs.push(found.docs);
    this.tfs.push(found.tfs);
    this.weights.push(weight);
    this.flat.push(flat);
    this.firstStretch.push(end / 2);
  }

  /** Puts every cursor at its list's first entry. */
  start(): void {
    this.stretch = new Int32Array(this.count);
    this.position = new Int32Array(this.count);
    for (let k = 0; k < this.count; k++) {
      const s = itemAt(this.firstStretch, k);
      this.stretch[k] = s;
      this.position[k] = int32At(this.bounds, 2 * s);
    }
  }

  /** Adds each list's entries for slots below `end` that its cursor has not reached yet. */
  addUpTo(end: number, scratch: SearchScratch): void {
    if (this.runStarts.length < this.runCount + this.count) {
      const grown = new Int32Array(Math.max(this.runStarts.length * 2, this.runCount + this.count));
      grown.set(this.runStarts);
      this.runStarts = grown;
    }
    for (let k = 0; k < this.count; k++) {
      this.runStarts[this.runCount++] = scratch.touchedCount;
      const last = itemAt(this.firstStretch, k + 1);
      let s = int32At(this.stretch, k);
      let i = int32At(this.position, k);
      while (s < last) {
        const to = int32At(this.bounds, 2 * s + 1);
        i = this.addStretch(k, i, to, end, scratch);
        if (i < to) break;
        s++;
        if (s < last) i = int32At(this.bounds, 2 * s);
      }
      this.stretch[k] = s;
      this.position[k] = i;
    }
  }

  /**
   * Adds list k's entries from `i` up to `to` or the first slot at or past `end`; returns where it
   * stopped. One loop per kind of list, with everything in locals: this runs once per posting.
   */
  private addStretch(k: number, from: number, to: number, end: number, scratch: SearchScratch): number {
    const docs = itemAt(this.docs, k);
    const { scores, marks, lengths, touched } = scratch;
    let count = scratch.touchedCount;
    let i = from;
    if (itemAt(this.flat, k)) {
      const flat = itemAt(this.weights, k);
      for (; i < to; i++) {
        const slot = int32At(docs, i);
        if (slot >= end) break;
        if (int32At(lengths, slot) < 0) continue;
        const current = float64At(scores, slot);
        if (current === 0) {
          touched[count++] = slot;
          marks[slot >>> 5] = int32At(marks, slot >>> 5) | (1 << (slot & 31));
        }
        scores[slot] = current + flat;
      }
    } else {
      const tfs = itemAt(this.tfs, k);
      const weight = itemAt(this.weights, k);
      const { k1, b, avgLength } = this.body;
      for (; i < to; i++) {
        const slot = int32At(docs, i);
        if (slot >= end) break;
        const length = int32At(lengths, slot);
        if (length < 0) continue;
        const current = float64At(scores, slot);
        if (current === 0) {
          touched[count++] = slot;
          marks[slot >>> 5] = int32At(marks, slot >>> 5) | (1 << (slot & 31));
        }
        scores[slot] =
          current + bm25Part(weight, uint16At(tfs, i), k1, k1 * (1 - b + (b * length) / avgLength));
      }
    }
    scratch.touchedCount = count;
    return i;
  }

  /**
   * Offers the touched slots to `heap` in the order a list at a time would have touched them: list
   * by list, each list's runs in the order added (slot order). Each slot's score is first copied to
   * its place in the touched list (`into`, with room for them), reading the scores in the order
   * touched, block by block, so the heap then reads nothing at random.
   */
  offerInListOrder(scratch: SearchScratch, into: Float64Array, heap: SlotHeap): void {
    const { scores, touched, touchedCount } = scratch;
    for (let i = 0; i < touchedCount; i++) into[i] = float64At(scores, int32At(touched, i));
    for (let k = 0; k < this.count; k++) {
      for (let run = k; run < this.runCount; run += this.count) {
        const to = run + 1 < this.runCount ? int32At(this.runStarts, run + 1) : touchedCount;
        for (let i = int32At(this.runStarts, run); i < to; i++)
          heap.offer(int32At(touched, i), float64At(into, i));
      }
    }
  }
}

/** A bounded heap of the best slots (TopSlots in lexical-index.ts). */
export interface SlotHeap {
  offer(slot: number, score: number): void;
}
