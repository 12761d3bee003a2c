import { createRequire } from "node:module";

type Tokenizer = typeof import("gpt-tokenizer");
let tokenizer: Tokenizer | undefined;

/**
 * The o200k tokenizer, loaded on first use: building its 200,000 ranks takes ~0.7 s, which every
 * start of the server, the CLI and each test process paid before serving anything. `lore serve`
 * loads it right after it starts listening (`warmTokenizer`).
 */
function bpe(): Tokenizer {
  tokenizer ??= createRequire(import.meta.url)("gpt-tokenizer") as Tokenizer;
  return tokenizer;
}

export function warmTokenizer(): void {
  bpe();
}

const countBpeTokens: Tokenizer["countTokens"] = (text, options) => bpe().countTokens(text, options);
const isWithinTokenLimit: Tokenizer["isWithinTokenLimit"] = (text, limit, options) =>
  bpe().isWithinTokenLimit(text, limit, options);

// User text may contain "<|endoftext|>"; count it as plain text instead of throwing.
const plainText = { disallowedSpecial: new Set<string>() };

/** Texts longer than this are counted in slices: BPE merges are local, so the sum is within a few tokens. */
const SLICE_CHARS = 200_000;

/**
 * Runs without whitespace longer than this (base64 blobs, minified code, a million "x") are counted
 * in slices of this size. BPE merging is quadratic in the length of one pre-token: a 1 MB run
 * held the event loop for minutes. Real words and URLs are shorter, so their counts stay exact.
 */
const RUN_CHARS = 100;
const LONG_RUN = new RegExp(`\\S{${RUN_CHARS + 1},}`, "g");
/**
 * Slices of a long run outside ASCII: a character there is 2–4 bytes and often 2 tokens, and merging
 * costs the square of a slice's bytes, so these slices are shorter (9,000 Han characters: 230 ms in
 * slices of 100, 65 ms in slices of 16; the count is the same).
 */
const WIDE_RUN_CHARS = 16;
const asciiRun = /^\p{ASCII}*$/u;

/** End of a slice of at most `size` code units from `start` that does not split a surrogate pair. */
function sliceEnd(text: string, start: number, size: number): number {
  let end = Math.min(text.length, start + size);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && end - start > 1 && last >= 0xd800 && last <= 0xdbff) end--;
  return end;
}

/** A text without long runs, counted until the total passes `cap` (then some number above it). */
function countPlain(text: string, cap: number): number {
  if (text.length === 0) return 0;
  if (text.length <= SLICE_CHARS) {
    // Short texts (and no cap): the plain count is faster than the incremental one.
    if (text.length <= cap * 4) return countBpeTokens(text, plainText);
    return isWithinTokenLimit(text, cap, plainText) || cap + 1;
  }
  let total = 0;
  let start = 0;
  while (start < text.length && total <= cap) {
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

/** One long run, counted in slices of RUN_CHARS. */
function countRun(run: string, cap: number): number {
  let total = 0;
  const size = asciiRun.test(run) ? RUN_CHARS : WIDE_RUN_CHARS;
  for (let start = 0; start < run.length && total <= cap; ) {
    const end = sliceEnd(run, start, size);
    total += countBpeTokens(run.slice(start, end), plainText);
    start = end;
  }
  return total;
}

/**
 * Tokens of `text` when at most `cap`, else some number above `cap`: counting stops early, so a long
 * text costs what its first `cap` tokens cost. Time is linear in the text whatever its content.
 */
export function tokensUpTo(text: string, cap: number): number {
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    total += countPlain(text.slice(last, match.index), cap - total);
    if (total > cap) return total;
    total += countRun(match[0], cap - total);
    if (total > cap) return total;
    last = match.index + match[0].length;
  }
  return total + countPlain(last === 0 ? text : text.slice(last), cap - total);
}

/** Counts tokens with the o200k tokenizer (gpt-4o family); the reported number when a model reports none. */
export function countTokens(text: string): number {
  return tokensUpTo(text, Number.POSITIVE_INFINITY);
}

/** Cuts a word longer than `size` code units into pieces of at most that size (pairs kept whole). */
export function splitLongWord(word: string, size: number): string[] {
  if (word.length <= size) return [word];
  const pieces: string[] = [];
  for (let start = 0; start < word.length; ) {
    const end = sliceEnd(word, start, size);
    pieces.push(word.slice(start, end));
    start = end;
  }
  return pieces;
}
