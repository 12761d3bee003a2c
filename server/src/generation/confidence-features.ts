/**
 * The evidence an answer's confidence is read from (confidence.ts weighs it): more than the top
 * retrieval score. Each feature is general (no word lists of one knowledge base) and lies in 0..1.
 */
import { canHaveVariants, isEdgeVariant } from "../retrieval/term-variants.ts";
import { expandWords, sharedWordNet } from "../retrieval/wordnet.ts";
import { STOP_WORDS, stemWord, tokenizeTerms, tokenizeWords } from "../text/normalize.ts";
import { splitSentences } from "../text/sentences.ts";
import { detectAnswerType, detectQuestionShape, matchesAnswerType } from "./question-type.ts";
import type { RetrievedChunk } from "./types.ts";

/** The features in the order of the fitted weights (confidence-weights.generated.ts). */
export const FEATURE_NAMES = [
  "top",
  "margin",
  "focus",
  "leadFocus",
  "titleFocus",
  "fellBack",
  "kindMismatch",
  "agreement",
  "unknown",
  "length",
  "citedTop",
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
export type ConfidenceFeatures = Record<FeatureName, number>;

export interface FeatureInput {
  /** The question retrieval ran with (standalone). */
  question: string;
  /** The retrieved chunks, best first, numbered [1].. in the passage. */
  chunks: readonly RetrievedChunk[];
  /** The passage offered: the answerer's text with its [n] markers (prompt numbers). */
  passage: string;
  /** The answerer found no sentence above its evidence floor (or the model declined). */
  fellBack: boolean;
  /** Of the question's terms, how many the whole knowledge base never mentions. */
  vocabulary: { terms: number; unknown: number };
}

// Partial credit for a word that is not the question's own: a variant the stemmer keeps apart, a WordNet relative.
const VARIANT_CREDIT = 0.5;
const RELATIVE_WEIGHTS = { synonym: 0.7, derived: 0.5, broader: 0.3, defined: 0.5 } as const;
const MAX_TERMS = 64;
const MARKER = /\[\s*\d+(?:\s*[,\-–]\s*\d+)*\s*\]/g;

export function confidenceFeatures(input: FeatureInput): ConfidenceFeatures {
  const { question, chunks, passage } = input;
  const top = clamp01(chunks[0]?.score ?? 0);
  const second = clamp01(chunks[1]?.score ?? 0);
  const cited = citedChunks(passage, chunks);
  const text = passage.replace(MARKER, " ");

  // The question's focus: its distinct terms, weighed by rarity among the retrieved chunks.
  const questionTerms = [...new Set(tokenizeTerms(question))].slice(0, MAX_TERMS);
  const chunkTerms = chunks.map(termsOfChunk);
  const n = Math.max(1, chunkTerms.length);
  const weights = new Map(
    questionTerms.map((t) => {
      const df = chunkTerms.filter((s) => s.has(t)).length;
      return [t, Math.log(1 + (n - df + 0.5) / (df + 0.5))] as const;
    }),
  );
  const related = relatives(question);
  const focus = coverage(new Set(tokenizeTerms(text)), weights, related);
  // The best single sentence's share: a section answer's lead, however long the rest of it is.
  const leadFocus = Math.max(
    0,
    ...splitSentences(text).map((s) => coverage(new Set(tokenizeTerms(s.text)), weights, related)),
  );
  const titles = cited.length > 0 ? cited : chunks.slice(0, 1);
  const titleFocus = coverage(
    new Set(titles.flatMap((c) => tokenizeTerms(`${c.title} ${c.headingPath.join(" ")}`))),
    weights,
    related,
  );

  // Agreement: the share of the retrieved evidence (by score) that comes from the passage's article.
  const article = (cited[0] ?? chunks[0])?.documentId;
  const total = chunks.reduce((sum, c) => sum + Math.max(0, c.score), 0);
  const agreement =
    total > 0
      ? chunks.filter((c) => c.documentId === article).reduce((sum, c) => sum + Math.max(0, c.score), 0) /
        total
      : 0;

  return {
    top,
    margin: Math.max(0, top - second),
    focus,
    leadFocus,
    titleFocus,
    fellBack: input.fellBack ? 1 : 0,
    kindMismatch: kindMismatch(question, text) ? 1 : 0,
    agreement,
    unknown: input.vocabulary.terms > 0 ? input.vocabulary.unknown / input.vocabulary.terms : 0,
    length: Math.min(1, tokenizeWords(text).length / 80),
    citedTop: cited[0] === chunks[0] ? 1 : 0,
  };
}

/**
 * A chunk's terms (title, headings, text), remembered: the same chunks come back question after
 * question. Bounded like the other caches of text (cleared when full).
 */
const MEMO_LIMIT = 2048;
const chunkTermsMemo = new Map<string, ReadonlySet<string>>();
function termsOfChunk(chunk: RetrievedChunk): ReadonlySet<string> {
  const text = `${chunk.title} ${chunk.headingPath.join(" ")} ${chunk.text}`;
  let terms = chunkTermsMemo.get(text);
  if (terms === undefined) {
    terms = new Set(tokenizeTerms(text));
    if (chunkTermsMemo.size >= MEMO_LIMIT) chunkTermsMemo.clear();
    chunkTermsMemo.set(text, terms);
  }
  return terms;
}

/** The chunks a passage cites, in order of first citation. */
function citedChunks(passage: string, chunks: readonly RetrievedChunk[]): RetrievedChunk[] {
  const out: RetrievedChunk[] = [];
  for (const m of passage.matchAll(/\[\s*(\d+)/g)) {
    const chunk = chunks[Number(m[1]) - 1];
    if (chunk && !out.includes(chunk)) out.push(chunk);
  }
  return out;
}

const POLARITY =
  /\b(?:yes|no|not|never|cannot|can't|won't|doesn't|don't|isn't|aren't|only|always|automatically|free|required|must|can|will|does|supports?|allows?)\b|n't\b/i;

/** The question asks for a kind of answer (a number, a date, a yes or no) that the passage does not carry. */
function kindMismatch(question: string, passage: string): boolean {
  const type = detectAnswerType(question);
  if (type === "number" || type === "date") return !matchesAnswerType(passage, type, () => 0);
  if (detectQuestionShape(question) === "yesno") return !POLARITY.test(passage);
  return false;
}

/** Weighted share of the question's terms the text holds; variants and WordNet relatives count in part. */
function coverage(
  terms: ReadonlySet<string>,
  weights: ReadonlyMap<string, number>,
  related: ReadonlyMap<string, { term: string; factor: number }[]>,
): number {
  let total = 0;
  let matched = 0;
  for (const [term, weight] of weights) {
    total += weight;
    if (terms.has(term)) {
      matched += weight;
      continue;
    }
    let share = 0;
    for (const t of terms) {
      if (
        (term.length >= 5 && t.length >= 5 && t.slice(0, 5) === term.slice(0, 5)) ||
        (canHaveVariants(term) && canHaveVariants(t) && isEdgeVariant(term, t))
      ) {
        share = VARIANT_CREDIT;
        break;
      }
    }
    for (const r of related.get(term) ?? []) if (terms.has(r.term)) share = Math.max(share, r.factor);
    matched += share * weight;
  }
  return total > 0 ? matched / total : 0;
}

/** Question term → its WordNet relatives' terms ("refund" for "money back"), each with its credit. */
function relatives(question: string): Map<string, { term: string; factor: number }[]> {
  const out = new Map<string, { term: string; factor: number }[]>();
  const wordnet = sharedWordNet();
  if (!wordnet) return out;
  const words = [...new Set(tokenizeWords(question).filter((w) => !STOP_WORDS.has(w)))].slice(0, MAX_TERMS);
  for (const { word, position, factor } of expandWords(wordnet, words, RELATIVE_WEIGHTS)) {
    const source = stemWord(words[position] ?? "");
    const term = stemWord(word);
    if (term === source) continue;
    const list = out.get(source) ?? [];
    list.push({ term, factor });
    out.set(source, list);
  }
  return out;
}

function clamp01(x: number): number {
  return Math.max(0, Math.min(1, x));
}
