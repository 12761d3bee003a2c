import { countTokens as countBpeTokens } from "gpt-tokenizer";

// User text may contain "<|endoftext|>"; count it as plain text instead of throwing.
const plainText = { disallowedSpecial: new Set<string>() };

/** Texts longer than this are counted in slices: BPE merges are local, so the sum is within a few tokens. */
const SLICE_CHARS = 200_000;

/** Counts tokens with the o200k tokenizer (gpt-4o family); the reported number when a model reports none. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= SLICE_CHARS) return countBpeTokens(text, plainText);
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    // Cut at whitespace so no word is split across slices.
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      if (space > start) end = space;
    }
    total += countBpeTokens(text.slice(start, end), plainText);
    start = end;
  }
  return total;
}
