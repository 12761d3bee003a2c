import { float64At, int32At } from "./checked-access.ts";

/** A heap's slots and scores (in heap order) and the best score it left out. */
export interface HeapEntries {
  slots: Int32Array;
  scores: Float64Array;
  bestOutside: number;
}

/**
 * The `limit` best of the slots offered one by one: a bounded min-heap that admits a slot only above
 * its lowest score, so of slots tied at the cut-off the first offered stay (in the heap's order).
 * The scores are kept beside the slots.
 */
export class TopSlots {
  private readonly slots: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;
  /** The best score of a slot refused or pushed out. */
  private bestOutside = 0;

  constructor(limit: number) {
    const capacity = Math.max(0, Math.ceil(limit));
    this.slots = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }

  offer(slot: number, score: number): void {
    if (this.size === this.slots.length && this.size > 0 && !(float64At(this.scores, 0) < score)) {
      if (score > this.bestOutside) this.bestOutside = score;
    } else this.admit(slot, score);
  }

  /** `offer` of a slot the heap takes in. */
  private admit(slot: number, score: number): void {
    const slots = this.slots;
    const scores = this.scores;
    if (this.size < slots.length) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!(score < float64At(scores, parent))) break;
        slots[i] = int32At(slots, parent);
        scores[i] = float64At(scores, parent);
        i = parent;
      }
      slots[i] = slot;
      scores[i] = score;
      return;
    }
    if (this.size === 0) return;
    const lowest = float64At(scores, 0);
    if (lowest > this.bestOutside) this.bestOutside = lowest;
    const size = this.size;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let mScore = score;
      if (l < size && float64At(scores, l) < mScore) {
        m = l;
        mScore = float64At(scores, l);
      }
      if (r < size && float64At(scores, r) < mScore) {
        m = r;
        mScore = float64At(scores, r);
      }
      if (m === i) break;
      slots[i] = int32At(slots, m);
      scores[i] = mScore;
      i = m;
    }
    slots[i] = slot;
    scores[i] = score;
  }

  /**
   * What the heap holds and the best score it left out, for `absorb` (a heap of another range of
   * slots, filled on another thread).
   */
  entries(): HeapEntries {
    return {
      slots: this.slots.slice(0, this.size),
      scores: this.scores.slice(0, this.size),
      bestOutside: this.bestOutside,
    };
  }

  /**
   * Offers another heap's slots, and takes its best left out: then it holds the same slots as one
   * heap offered both heaps' offers would, unless several tie at the cut (which `tieAtCut` tells,
   * as it would for that heap: a slot left out by either heap counts).
   */
  absorb(other: HeapEntries): void {
    for (let i = 0; i < other.slots.length; i++)
      this.offer(int32At(other.slots, i), float64At(other.scores, i));
    if (other.bestOutside > this.bestOutside) this.bestOutside = other.bestOutside;
  }

  /** Once full, the lowest score kept (an offer must score above it to get in); else −∞. */
  floor(): number {
    return this.size === this.slots.length && this.size > 0
      ? float64At(this.scores, 0)
      : Number.NEGATIVE_INFINITY;
  }

  /** Whether a slot left out scores as high as the lowest kept (so the order of offers decided). */
  tieAtCut(): boolean {
    return this.size === this.slots.length && this.size > 0 && this.bestOutside >= float64At(this.scores, 0);
  }

  /** The kept slots best first (ties by slot), with their scores. */
  sorted(): { top: number[]; scores: Float64Array } {
    const order = Array.from({ length: this.size }, (_, i) => i).sort(
      (a, b) =>
        float64At(this.scores, b) - float64At(this.scores, a) ||
        int32At(this.slots, a) - int32At(this.slots, b),
    );
    return {
      top: order.map((i) => int32At(this.slots, i)),
      scores: Float64Array.from(order, (i) => float64At(this.scores, i)),
    };
  }
}
