import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultLexicalParams, type LexicalCandidate, LexicalIndex } from "./lexical-index.ts";
import { ScanHelper } from "./scan-helper.ts";
import { addMixedCorpus, helpTexts } from "./test-texts.ts";

/**
 * A search whose postings are shared between the event loop and the worker thread must find what a
 * search on one thread finds: the same candidates, features and order, ties at the cut-off included.
 * Every index takes 64 slots at a time; `two` and `alternate` hand any search with a posting to the
 * worker: in `two` each thread takes the next chunk left, in `alternate` the worker the odd ones.
 */
type Indexes = { one: LexicalIndex; two: LexicalIndex; alternate: LexicalIndex };

function indexes(add: (index: LexicalIndex) => void): Indexes {
  const one = new LexicalIndex(defaultLexicalParams, 64, Number.POSITIVE_INFINITY);
  const two = new LexicalIndex(defaultLexicalParams, 64, 1);
  const alternate = new LexicalIndex(defaultLexicalParams, 64, 1, "alternate");
  for (const index of [one, two, alternate]) add(index);
  return { one, two, alternate };
}

/** `search` on each, checking the others' searches went to the worker and found what `one` found. */
function expectSame(indexes: Indexes, question: string, allowed: Set<number>): LexicalCandidate[] {
  const expected = indexes.one.search(question, allowed);
  for (const index of [indexes.two, indexes.alternate]) {
    const answered = ScanHelper.answered;
    expect(index.search(question, allowed)).toEqual(expected);
    expect(ScanHelper.answered).toBe(answered + 1);
  }
  return expected;
}

describe("a search on two threads", () => {
  beforeAll(async () => {
    ScanHelper.configure(2);
    const until = Date.now() + 60_000;
    while (ScanHelper.ready() === null && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(ScanHelper.ready()).not.toBeNull();
  }, 70_000);
  afterAll(() => ScanHelper.stop());

  it("finds the same candidates, features and order as a search on one", () => {
    // Documents of a few chunks, some across the threads' chunks.
    const all = indexes(addMixedCorpus);
    for (const question of [
      "refund my payment",
      "reset the account password",
      "zorbex",
      "order card invoice",
    ]) {
      for (const allowed of [new Set([0, 1, 2, 3, 4]), new Set([1, 4]), new Set([2])])
        expect(expectSame(all, question, allowed).length).toBeGreaterThan(0);
    }
  });

  it("keeps the chunks tied at the cut-off that one thread keeps, whichever thread holds them", () => {
    // 400 chunks in two kinds, all of one kind tied: the heap of either thread alone would keep its own.
    const all = indexes((index) => {
      for (let i = 0; i < 400; i++) index.add(i < 200 ? "beta gamma" : "alpha gamma", "", 0);
    });
    for (const question of ["alpha beta", "gamma", "beta"])
      expect(expectSame(all, question, new Set([0]))).toHaveLength(100);
  });

  it("tells a tie at the cut-off that lies in the worker's chunks alone", () => {
    // Blocks of 64 chunks, each a chunk of a search on two threads: the even blocks (the event loop's
    // in `alternate`) hold one of the two words among filler (they score lower), the odd ones (the
    // worker's) 400 tied chunks. The worker's heap keeps the first 100 by slot, the "beta" ones; a
    // list at a time keeps the "alpha" ones.
    let firstAlpha = -1;
    const all = indexes((index) => {
      let tied = 0;
      for (let slot = 0; slot < 14 * 64; slot++) {
        const filler = "omega omega omega omega omega omega";
        if (Math.floor(slot / 64) % 2 === 0) index.add(`${slot % 2 ? "alpha" : "beta"} ${filler}`, "", 0);
        else if (tied < 400) {
          if (tied === 200) firstAlpha = slot;
          index.add(tied++ < 200 ? "beta gamma" : "alpha gamma", "", 0);
        } else index.add(filler, "", 0);
      }
    });
    const expected = expectSame(all, "alpha beta", new Set([0]));
    expect(expected.map((c) => c.slot).sort((a, b) => a - b)[0]).toBe(firstAlpha);
  });

  it("weighs a document's chunks on both threads, and goes on matching as the index grows", () => {
    const all = indexes((index) => {
      // Documents of 40 chunks each: most of them straddle two chunks of a search.
      helpTexts(23, 2_000).forEach((text, i) => {
        index.add(text, "", 0, Math.floor(i / 40));
      });
    });
    const ask = () => {
      for (const question of ["refund card", "shipping order invoice", "password"]) {
        const found = expectSame(all, question, new Set([0]));
        expect(found.some((c) => c.features.docRel > 0 && c.features.docRel < 1)).toBe(true);
      }
    };
    ask();
    // Pages, columns and scores grow into new shared arrays; the worker is handed the new ones.
    for (const index of [all.one, all.two, all.alternate])
      helpTexts(29, 3_000).forEach((text, i) => {
        index.add(text, "Order help", 0, 50 + Math.floor(i / 40));
      });
    ask();
  });
});
