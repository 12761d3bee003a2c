import stem from "wink-porter2-stemmer";

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
  // Numbers and mixed alphanumerics ("covid19", "1990s") are kept verbatim.
  const stemmed = /^[a-z]+$/.test(word) ? stem(word) : word;
  if (stemCache.size < 500_000) stemCache.set(word, stemmed);
  return stemmed;
}

const tokenPattern = /[\p{L}\p{N}]+/gu;

/** Lowercased, accent-folded word tokens (letters and digits), in order. */
export function tokenize(text: string): string[] {
  // ASCII has nothing to decompose or strip: skip the costly normalisation.
  const folded = asciiOnly.test(text)
    ? text.toLowerCase()
    : text
        .normalize("NFKD")
        .replace(/\p{M}+/gu, "")
        .toLowerCase();
  return folded.match(tokenPattern) ?? [];
}

const asciiOnly = /^\p{ASCII}*$/u;

/** Index terms of a text: tokens without stop words, Porter2-stemmed; order kept for proximity features. */
export function analyze(text: string): string[] {
  return analyzeTokens(tokenize(text));
}

/** Index terms of tokens `tokenize` produced: stop words dropped, the rest Porter2-stemmed. */
export function analyzeTokens(tokens: readonly string[]): string[] {
  const terms: string[] = [];
  for (const token of tokens) {
    if (stopWords.has(token)) continue;
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
