import stem from "wink-porter2-stemmer";
import { analyzeScriptWord, MAX_STEM_LENGTH } from "../text/analyzers.ts";
import { unspacedScript } from "../text/scripts.ts";
import { foldText, splitUnspaced } from "../text/segment.ts";

// Common English function words plus question words: they carry no topic, so neither the index nor
// a query keeps them (a question's "what/which/how" would otherwise match every passage).
const stopWordList =
  "a about above after again against all am an and any are as at be because been before being below between both " +
  "but by can could did do does doing down during each few for from further had has have having he her here hers " +
  "herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on " +
  "once only or other our ours ourselves out over own same she should so some such than that the their theirs them " +
  "themselves then there these they this those through to too under until up very was we were what when where which " +
  "while who whom whose why will with would you your yours yourself yourselves also may might must shall us upon " +
  "whether within without via per etc s t d ll m o re ve y";

export const stopWords: ReadonlySet<string> = new Set(stopWordList.split(" "));

const stemCache = new Map<string, string>();

function stemWord(word: string): string {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  const stemmed = stemUncached(word);
  if (stemCache.size < 500_000) stemCache.set(word, stemmed);
  return stemmed;
}

// Numbers and mixed alphanumerics ("covid19", "1990s") are kept verbatim; O(MAX_STEM_LENGTH²) at most.
const stemUncached = (word: string): string =>
  word.length <= MAX_STEM_LENGTH && /^[a-z]+$/.test(word) ? stem(word) : word;

/**
 * The index term of a lowercase Latin word as `analyzeTokens` makes it (undefined for a stop word),
 * without caching: for words made up on the fly (spelling candidates) that would only fill the cache.
 */
export function analyzeLatinWord(word: string): string | undefined {
  return stopWords.has(word) ? undefined : stemUncached(word);
}

const tokenPattern = /[\p{L}\p{N}]+/gu;
// Outside ASCII a token keeps the marks `foldText` kept (Hindi vowel signs, Thai vowels).
const foldedTokenPattern = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * Lowercased, accent-folded word tokens (letters and digits), in order. Text in scripts without
 * spaces (Chinese, Japanese, Thai, …) is cut into dictionary words, long Han words also into
 * character bigrams.
 */
export function tokenize(text: string): string[] {
  // ASCII has nothing to decompose or strip: skip the costly normalisation.
  if (asciiOnly.test(text)) return text.toLowerCase().match(tokenPattern) ?? [];
  const tokens = foldText(text).match(foldedTokenPattern) ?? [];
  if (!tokens.some((t) => unspacedScript.test(t))) return tokens;
  return tokens.flatMap(splitUnspaced);
}

const asciiOnly = /^\p{ASCII}*$/u;

/** Index terms of a text: tokens without stop words, stemmed; order kept for proximity features. */
export function analyze(text: string): string[] {
  return analyzeTokens(tokenize(text));
}

/**
 * Index terms of tokens `tokenize` produced: stop words dropped, the rest stemmed — Latin script
 * by Porter2 (English), other scripts by their own rules (see text/analyzers.ts).
 */
export function analyzeTokens(tokens: readonly string[]): string[] {
  const terms: string[] = [];
  for (const token of tokens) {
    if (stopWords.has(token)) continue;
    const code = token.charCodeAt(0);
    // Non-Latin scripts start above U+024F (Latin Extended-B); their words follow their own rules.
    if (code > 0x24f) {
      const term = analyzeScriptWord(token);
      if (term === null) continue;
      if (term !== undefined) {
        terms.push(term);
        continue;
      }
    }
    terms.push(stemWord(token));
  }
  return terms;
}

/** Jaccard overlap of two shingle sets (0..1). */
export function jaccard(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const h of small) if (large.has(h)) shared++;
  return shared / (a.size + b.size - shared);
}
