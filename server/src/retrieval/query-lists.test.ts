import { describe, expect, it } from "vitest";
import { PostingLists } from "./posting-lists.ts";
import { bm25Part, QueryLists, type SearchScratch, type SlotHeap } from "./query-lists.ts";
import { TopSlots } from "./top-slots.ts";

/** A search's scratch over slots of these lengths, its norms not computed yet. */
function searchScratch(lengths: Int32Array): SearchScratch {
  return {
    scores: new Float64Array(lengths.length),
    marks: new Int32Array(Math.ceil(lengths.length / 32)),
    lengths,
    norms: new Float64Array(lengths.length),
    normed: new Int32Array(1),
    generation: 1,
  };
}

describe("adding a question's postings", () => {
  it("adds each entry's BM25 part (body) or flat weight (title), skipping removed chunks", () => {
    const lengths = Int32Array.from([3, 17, -1, 250, 1_023, 1_024, 5_000, 60]);
    const body = new PostingLists(1);
    const title = new PostingLists(1);
    lengths.forEach((_, slot) => {
      body.push(0, slot, 1 + (slot % 3), 0);
      if (slot % 2 === 0) title.push(0, slot, 1, 0);
    });
    const scoring = { k1: 1.2, b: 0.75, avgLength: 131.7 };
    const lists = new QueryLists(scoring);
    lists.add(body, 0, new Set([0]), 2.5, false);
    lists.add(title, 0, new Set([0]), 0.8, true);
    const scratch = searchScratch(lengths);
    lists.startAt(0);
    lists.normBlock(0, lengths.length, 0, scratch);
    lists.addUpTo(lengths.length, scratch);
    const { scores } = scratch;
    lengths.forEach((length, slot) => {
      const { k1, b, avgLength } = scoring;
      const expected =
        length < 0
          ? 0
          : bm25Part(2.5, 1 + (slot % 3), k1, k1 * (1 - b + (b * length) / avgLength)) +
            (slot % 2 === 0 ? 0.8 : 0);
      expect(scores[slot]).toBe(expected);
    });
  });
});

describe("offering the slots reached in the order a list at a time reaches them", () => {
  const SLOTS = 20_000;
  const allowed = new Set([0, 2]);
  // A slot's source by thousands (0, 1, 2, 0, …); every 97th slot removed.
  const sourceOf = (slot: number) => Math.floor(slot / 1_000) % 3;
  const usable = (slot: number) => slot % 97 !== 0 && allowed.has(sourceOf(slot));
  const lengths = Int32Array.from({ length: SLOTS }, (_, slot) => (slot % 97 === 0 ? -1 : 10));

  /**
   * Terms' lists of the given densities and weights (small whole numbers, so many slots tie), each
   * slot's score, and the slots reached, ascending.
   */
  function lists(densities: number[], weights: number[], seed: number) {
    let state = seed;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    const postings = new PostingLists(densities.length);
    const members = densities.map(() => [] as number[]);
    const scores = new Float64Array(SLOTS);
    for (let slot = 0; slot < SLOTS; slot++)
      densities.forEach((density, term) => {
        if (random() >= density) return;
        postings.push(term, slot, 1, sourceOf(slot));
        members[term]?.push(slot);
        if (usable(slot)) scores[slot] = (scores[slot] ?? 0) + (weights[term] ?? 0);
      });
    const reached = Array.from({ length: SLOTS }, (_, slot) => slot).filter(
      (slot) => (scores[slot] ?? 0) > 0,
    );
    const query = new QueryLists({ k1: 1.2, b: 0.75, avgLength: 10 });
    weights.forEach((weight, term) => {
      query.add(postings, term, allowed, weight, false);
    });
    return { members, scores, reached, query };
  }

  it("keeps the same slots, ties at the cut-off included, offering only what can still get in", () => {
    // How many heaps kept other tied slots in slot order than in list order.
    let orderDecided = 0;
    const cases = [
      { densities: [0.05, 0.4, 0.2, 0.6, 0.02, 0.3], weights: [3, 1, 2, 1, 3, 2] },
      // The best slots lie mostly in the last lists: many are first reached after the heap is full.
      { densities: [0.3, 0.2, 0.4, 0.05, 0.03, 0.1], weights: [1, 2, 1, 3, 3, 2] },
    ];
    cases.forEach(({ densities, weights }, c) => {
      const { members, scores, reached, query } = lists(densities, weights, 7 + c);
      for (const limit of [1, 10, 100, 1_000]) {
        // As the search finds them, in slot order: the cut-off and the slots above it.
        const bySlot = new TopSlots(limit);
        for (const slot of reached) bySlot.offer(slot, scores[slot] ?? 0);
        expect(bySlot.tieAtCut()).toBe(true);
        const cut = bySlot.floor();
        const kept = bySlot.sorted();
        const above = Int32Array.from(kept.top.filter((_, i) => (kept.scores[i] ?? 0) > cut)).sort();
        const heap = new TopSlots(limit);
        let offers = 0;
        const counted: SlotHeap = {
          offer: (slot, score) => {
            offers++;
            heap.offer(slot, score);
          },
          floor: () => heap.floor(),
        };
        const seen = new Int32Array(Math.ceil(SLOTS / 32));
        query.offerInListOrder({ ...searchScratch(lengths), scores, marks: seen }, seen, cut, above, counted);

        // A list at a time: list by list, each list's slots not offered yet by slot.
        const expected = new TopSlots(limit);
        const offered = new Set<number>();
        for (const slots of members)
          for (const slot of slots) {
            if (offered.has(slot) || !usable(slot)) continue;
            offered.add(slot);
            expected.offer(slot, scores[slot] ?? 0);
          }
        expect(heap.sorted()).toEqual(expected.sorted());
        if (JSON.stringify(kept) !== JSON.stringify(expected.sorted())) orderDecided++;
        // Where the best slots are among the first lists, a small heap's floor reaches the cut-off
        // long before the lists' end: most slots are never offered.
        if (c === 0 && limit <= 100) expect(offers).toBeLessThan(reached.length / 10);
      }
    });
    expect(orderDecided).toBeGreaterThan(2);
  });
});
