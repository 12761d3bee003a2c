import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultLexicalParams, LexicalIndex } from "./lexical-index.ts";
import { ScanHelper } from "./scan-helper.ts";
import { addMixedCorpus, helpTexts } from "./test-texts.ts";

/**
 * A search whose postings are split between the event loop and the worker thread must find what a
 * search on one thread finds: the same candidates, features and order, ties at the cut-off included.
 * Both indexes take 64 slots at a time; one hands any search with a posting to the worker.
 */
function pair(add: (index: LexicalIndex) => void): { one: LexicalIndex; two: LexicalIndex } {
  const one = new LexicalIndex(defaultLexicalParams, 64, Number.POSITIVE_INFINITY);
  const two = new LexicalIndex(defaultLexicalParams, 64, 1);
  add(one);
  add(two);
  return { one, two };
}

/** `search` on both, checking the second one's search went to the worker. */
function both(indexes: { one: LexicalIndex; two: LexicalIndex }, question: string, allowed: Set<number>) {
  const expected = indexes.one.search(question, allowed);
  const answered = ScanHelper.answered;
  const found = indexes.two.search(question, allowed);
  expect(ScanHelper.answered).toBe(answered + 1);
  return { expected, found };
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
    // Documents of a few chunks, some across the halves' split.
    const indexes = pair(addMixedCorpus);
    for (const question of [
      "refund my payment",
      "reset the account password",
      "zorbex",
      "order card invoice",
    ]) {
      for (const allowed of [new Set([0, 1, 2, 3, 4]), new Set([1, 4]), new Set([2])]) {
        const { expected, found } = both(indexes, question, allowed);
        expect(expected.length).toBeGreaterThan(0);
        expect(found).toEqual(expected);
      }
    }
  });

  it("keeps the chunks tied at the cut-off that one thread keeps, whichever half holds them", () => {
    // 400 chunks in two kinds, all of one kind tied: the heap of either half alone would keep its own.
    const indexes = pair((index) => {
      for (let i = 0; i < 400; i++) index.add(i < 200 ? "beta gamma" : "alpha gamma", "", 0);
    });
    for (const question of ["alpha beta", "gamma", "beta"]) {
      const { expected, found } = both(indexes, question, new Set([0]));
      expect(expected).toHaveLength(100);
      expect(found).toEqual(expected);
    }
  });

  it("tells a tie at the cut-off that lies in the worker's half alone", () => {
    // The first 1,000 chunks hold one of the two words among filler (they score lower), so the
    // postings' middle falls among them: the 400 tied chunks after them are all the worker's. Its
    // heap keeps the first 100 by slot, a list at a time keeps the "alpha" ones (1,200 on).
    const indexes = pair((index) => {
      const filler = "omega omega omega omega omega omega";
      for (let i = 0; i < 1_000; i++) index.add(`${i < 500 ? "alpha" : "beta"} ${filler}`, "", 0);
      for (let i = 0; i < 400; i++) index.add(i < 200 ? "beta gamma" : "alpha gamma", "", 0);
    });
    const { expected, found } = both(indexes, "alpha beta", new Set([0]));
    expect(expected.map((c) => c.slot).sort((a, b) => a - b)[0]).toBe(1_200);
    expect(found).toEqual(expected);
  });

  it("weighs a document's chunks in both halves, and goes on matching as the index grows", () => {
    const indexes = pair((index) => {
      // Documents of 40 chunks each: most of them straddle the split of some question.
      helpTexts(23, 2_000).forEach((text, i) => {
        index.add(text, "", 0, Math.floor(i / 40));
      });
    });
    const ask = () => {
      for (const question of ["refund card", "shipping order invoice", "password"]) {
        const { expected, found } = both(indexes, question, new Set([0]));
        expect(found).toEqual(expected);
        expect(found.some((c) => c.features.docRel > 0 && c.features.docRel < 1)).toBe(true);
      }
    };
    ask();
    // Pages, columns and scores grow into new shared arrays; the worker is handed the new ones.
    for (const index of [indexes.one, indexes.two])
      helpTexts(29, 3_000).forEach((text, i) => {
        index.add(text, "Order help", 0, 50 + Math.floor(i / 40));
      });
    ask();
  });
});
