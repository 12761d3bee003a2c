import type { LexicalIndex } from "./lexical-index.ts";

/** Words of help articles, and one no article uses elsewhere (no WordNet relatives). */
const WORDS = ["payment", "refund", "invoice", "account", "password", "shipping", "order", "card", "zorbex"];

/** `count` texts of 2–9 of those words, the same for the same `seed` (for the search tests). */
export function helpTexts(seed: number, count: number): string[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return Array.from({ length: count }, () =>
    Array.from(
      { length: 2 + Math.floor(random() * 8) },
      () => WORDS[Math.floor(random() * WORDS.length)],
    ).join(" "),
  );
}

/**
 * Adds `helpTexts(11, 3_000)`: sources in runs (the first half, four interleaved) and one after,
 * documents of three chunks, a title on every fifth chunk, and every tenth chunk removed again.
 */
export function addMixedCorpus(index: Pick<LexicalIndex, "add" | "remove">): void {
  helpTexts(11, 3_000).forEach((text, i) => {
    const slot = index.add(
      text,
      i % 5 === 0 ? "Refund policy" : "",
      i < 1_500 ? i % 4 : 4,
      Math.floor(i / 3),
    );
    if (i % 10 === 9) index.remove(slot);
  });
}
