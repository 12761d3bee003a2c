import type { Embedder } from "../retrieval/embedder.ts";
import { analyzeLatinWord } from "../retrieval/text-analysis.ts";
import { sharedWordNet } from "../retrieval/wordnet.ts";
import { foreignStopWords } from "../text/analyzers.ts";
import { detectLanguage } from "../text/language.ts";
import { STOP_WORDS, stemWord, tokenizeWords } from "../text/normalize.ts";

/**
 * When a question counts as asking a correction's question. Both are conservative: a wrong
 * correction is worse than an ordinary answer, so a question on the same topic that asks something
 * else ("how much does it cost?" beside "how do I cancel?") must stay below them.
 * - Lexical: Dice overlap of content words (stemmed, stop words out, WordNet synonyms and derived
 *   forms counted at 0.9), and the same kind of question (see `CUES`). 0.85 takes reworded,
 *   reordered and inflected questions and synonyms, and one extra word on three or more; not one
 *   extra word on two ("what happens if I cancel my subscription?" scores 0.8) nor one different
 *   word in three ("monthly" for "annual": 0.67).
 * - Semantic (a real embedding model configured): cosine ≥ 0.9 alone, or ≥ 0.8 with lexical ≥ 0.5.
 */
export const LEXICAL_THRESHOLD = 0.85;
export const SEMANTIC_THRESHOLD = 0.9;
export const SEMANTIC_WITH_WORDS_THRESHOLD = 0.8;
const WORDS_WITH_SEMANTIC_THRESHOLD = 0.5;
const SYNONYM_WEIGHT = 0.9;

// Politeness and question framing: paraphrases add or drop them freely.
const FILLER = new Set(
  "please tell know possible way hi hello hey thanks thank question wondering wonder anyone someone explain".split(
    " ",
  ),
);
// Apostrophes are dropped before matching: analytics lists questions without them ("whats lore"),
// and the console adds corrections from there.
const NEGATION = new Set(
  "not no never cannot cant dont doesnt didnt isnt arent wasnt wont wouldnt shouldnt couldnt havent hasnt".split(
    " ",
  ),
);
const STOPS: ReadonlySet<string> = new Set([...STOP_WORDS].map((w) => w.replace(/'/g, "")));

// What a question asks for, from words the stop list drops: "how much is shipping?" is not "do you ship?".
const CUES: Record<string, string> = {
  "how much": "quantity",
  "how many": "quantity",
  "how long": "duration",
  "how often": "frequency",
  why: "reason",
  where: "place",
  when: "time",
  who: "person",
  whom: "person",
  whose: "person",
};

/** A question reduced to what matching compares. */
export interface AnalyzedQuestion {
  /** Content-word stems, in order (repeats kept once). */
  stems: string[];
  /** Per stem: the stems of its WordNet synonyms and derived forms. */
  related: Map<string, ReadonlySet<string>>;
  negated: boolean;
  /** The kinds of question it asks (`CUES`), sorted and joined. */
  asks: string;
}

export function analyzeQuestion(text: string): AnalyzedQuestion {
  const words = tokenizeWords(text.replace(/['’]/g, ""));
  const foreign = foreignStopWords(words, STOPS, () => detectLanguage(text));
  const wordnet = sharedWordNet();
  const related = new Map<string, ReadonlySet<string>>();
  let negations = 0;
  const asks = new Set<string>();
  words.forEach((word, i) => {
    const cue = CUES[word] ?? CUES[`${words[i - 1]} ${word}`];
    if (cue) asks.add(cue);
  });
  for (const word of words) {
    if (NEGATION.has(word)) negations++;
    if (STOPS.has(word) || FILLER.has(word) || foreign?.has(word)) continue;
    const stem = stemOf(word);
    const near = new Set<string>(related.get(stem));
    if (wordnet && /^[a-z]{3,}$/.test(word)) {
      for (const r of wordnet.relatedWords(word)) if (r.relation !== "broader") near.add(stemOf(r.word));
    }
    near.delete(stem);
    related.set(stem, near);
  }
  return { stems: [...related.keys()], related, negated: negations % 2 === 1, asks: [...asks].sort().join() };
}

// Porter2 for English words (it folds "cancelling" and "cancel"), the script's own rules otherwise.
const stemOf = (word: string): string =>
  /^[a-z]+$/.test(word) ? (analyzeLatinWord(word) ?? word) : stemWord(word);

/** Dice overlap (0..1) of two questions' content words, synonyms counting a little less than the same word. */
export function lexicalSimilarity(a: AnalyzedQuestion, b: AnalyzedQuestion): number {
  if (a.stems.length === 0 || b.stems.length === 0 || a.negated !== b.negated || a.asks !== b.asks) return 0;
  const unused = new Set(b.stems);
  let matched = 0;
  const synonymous: string[] = [];
  for (const stem of a.stems) {
    if (unused.delete(stem)) matched += 1;
    else synonymous.push(stem);
  }
  for (const stem of synonymous) {
    for (const other of unused) {
      if (a.related.get(stem)?.has(other) || b.related.get(other)?.has(stem)) {
        unused.delete(other);
        matched += SYNONYM_WEIGHT;
        break;
      }
    }
  }
  return (2 * matched) / (a.stems.length + b.stems.length);
}

/** Whether two questions have a content word (or a synonym or derived form of one) in common. */
export function sharesTerms(a: AnalyzedQuestion, b: AnalyzedQuestion): boolean {
  const theirs = new Set(b.stems);
  return a.stems.some(
    (stem) =>
      theirs.has(stem) ||
      b.stems.some((other) => a.related.get(stem)?.has(other) || b.related.get(other)?.has(stem)),
  );
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export interface Candidate {
  id: string;
  analyzed: AnalyzedQuestion;
  /** The question's embedding, when a semantic embedder is configured. */
  vector?: Float32Array;
}

/** Whether a lexical score (and a cosine, when there is one) says the two questions are the same. */
export function sameQuestion(lexical: number, semantic: number | null): boolean {
  if (lexical >= LEXICAL_THRESHOLD) return true;
  if (semantic === null) return false;
  return (
    semantic >= SEMANTIC_THRESHOLD ||
    (semantic >= SEMANTIC_WITH_WORDS_THRESHOLD && lexical >= WORDS_WITH_SEMANTIC_THRESHOLD)
  );
}

/**
 * Embedders that capture meaning. The hashed embedder only hashes words and letter trigrams: it
 * adds nothing the lexical match lacks and scores unrelated questions sharing words highly.
 */
export function isSemantic(embedder: Embedder | null): embedder is Embedder {
  return embedder !== null && !embedder.name.startsWith("hashed:");
}
