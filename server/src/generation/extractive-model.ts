import { STOP_WORDS, stemWord, tokenizeTerms, tokenizeWords } from "../text/normalize.ts";
import { splitSentences } from "../text/sentences.ts";
import { countTokens } from "../text/tokens.ts";
import { condenseHeuristically } from "./condense.ts";
import type { ChatModel, GenerateInput, GenerationEvent, RetrievedChunk } from "./types.ts";

/** Tunables of the extractive answerer; the defaults are what the SQuAD check measured best. */
export interface ExtractiveOptions {
  /** Share of the question's weighted terms the best sentence must match; below it the fallback message is sent. */
  relevanceFloor: number;
  /** Most sentences in an answer. */
  maxSentences: number;
  /** Soft word budget: further sentences are added only while the answer stays under it. */
  maxWords: number;
  /** A further sentence of the same chunk must score at least this share of the best. */
  sameChunkRatio: number;
  /** A sentence of another chunk must score at least this share of the best (cited separately). */
  otherChunkRatio: number;
  /** Weights of the sentence score: own coverage, coverage with neighbours, chunk coverage, bigrams, answer type, retrieval rank. */
  weights: {
    sentence: number;
    window: number;
    chunk: number;
    bigram: number;
    answerType: number;
    rank: number;
  };
}

const DEFAULTS: ExtractiveOptions = {
  relevanceFloor: 0.2,
  maxSentences: 3,
  maxWords: 60,
  sameChunkRatio: 0.75,
  // Citing a second chunk cost citation precision on SQuAD without adding recall: only on a tie.
  otherChunkRatio: 1,
  weights: { sentence: 0.6, window: 0.2, chunk: 0.3, bigram: 0.15, answerType: 0.08, rank: 0.1 },
};

type AnswerType = "number" | "date" | "person" | "place" | "other";

interface ScoredSentence {
  chunkIndex: number;
  position: number;
  text: string;
  words: number;
  score: number;
  coverage: number;
}

const NUMBER_WORDS =
  /\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|hundreds|thousand|thousands|million|millions|billion|billions|dozen|dozens|half|percent)\b/i;
const MONTHS =
  /\b(?:January|February|March|April|May|June|July|August|September|October|November|December|spring|summer|autumn|fall|winter)\b/;

// Words that frame a request ("tell me about …") rather than name what it is about.
const REQUEST_WORDS: ReadonlySet<string> = new Set(tokenizeTerms("tell explain describe know please"));

/** The embedded default answerer: the best sentences of the retrieved chunks, each cited [n]. Deterministic, no model. */
export function createExtractiveModel(options: Partial<ExtractiveOptions> = {}): ChatModel {
  const settings = { ...DEFAULTS, ...options };
  return {
    name: "extractive",
    async *generate(input: GenerateInput): AsyncIterable<GenerationEvent> {
      const { answer, usedChunks } = composeExtractiveAnswer(
        input.question,
        input.chunks,
        input.fallbackMessage,
        settings,
      );
      for (const token of splitIntoTokens(answer)) {
        if (input.signal?.aborted) return;
        yield { type: "token", token };
      }
      const prompt = [input.question, ...usedChunks.map((c) => c.text)].join("\n");
      yield { type: "usage", promptTokens: countTokens(prompt), completionTokens: countTokens(answer) };
    },
    async condense(question, history) {
      return condenseHeuristically(question, history);
    },
  };
}

/** Splits text into streaming tokens: words with their leading whitespace, so the tokens concatenate to the text. */
export function splitIntoTokens(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

/** Picks and cites the sentences that answer the question; exported for benches that skip streaming. */
export function composeExtractiveAnswer(
  question: string,
  chunks: RetrievedChunk[],
  fallbackMessage: string,
  options: Partial<ExtractiveOptions> = {},
): { answer: string; usedChunks: RetrievedChunk[] } {
  const settings = { ...DEFAULTS, ...options };
  const fallback = { answer: fallbackMessage, usedChunks: [] };
  const questionTerms = [...new Set(tokenizeTerms(question))].filter((t) => !REQUEST_WORDS.has(t));
  if (chunks.length === 0 || questionTerms.length === 0) return fallback;

  const sentences = chunks.flatMap((chunk, chunkIndex) =>
    splitSentences(chunk.text).map((s, position) => ({
      chunkIndex,
      position,
      text: s.text,
      terms: tokenizeTerms(s.text),
    })),
  );
  if (sentences.length === 0) return fallback;

  // IDF over the retrieved sentences: a question term that occurs everywhere tells sentences apart poorly.
  const documentFrequency = new Map<string, number>();
  for (const s of sentences)
    for (const t of new Set(s.terms)) documentFrequency.set(t, (documentFrequency.get(t) ?? 0) + 1);
  const n = sentences.length;
  const idf = (term: string) => {
    const df = documentFrequency.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  const weights = new Map(questionTerms.map((t) => [t, idf(t)]));
  const totalWeight = [...weights.values()].reduce((a, b) => a + b, 0);
  const questionBigrams = bigrams(tokenizeTerms(question));
  const answerType = detectAnswerType(question);
  const questionWords = new Set(tokenizeWords(question));

  // A chunk's title and headings name its topic ("Payment methods"), which its sentences often leave out.
  const titleTerms = chunks.map((c) => tokenizeTerms([c.title, ...c.headingPath].join(" ")));
  // Terms of each chunk, so a sentence whose subject was named a sentence earlier still gets context credit.
  const chunkTerms = chunks.map(
    (_, i) =>
      new Set([
        ...(titleTerms[i] ?? []),
        ...sentences.filter((s) => s.chunkIndex === i).flatMap((s) => s.terms),
      ]),
  );

  const scored: ScoredSentence[] = sentences.map((s, index) => {
    const own = new Set(s.terms);
    const coverage = weightedCoverage(
      new Set([...own, ...(titleTerms[s.chunkIndex] ?? [])]),
      weights,
      totalWeight,
    );
    const neighbours = new Set(own);
    for (const other of [sentences[index - 1], sentences[index + 1]]) {
      if (other?.chunkIndex === s.chunkIndex) for (const t of other.terms) neighbours.add(t);
    }
    const windowCoverage = weightedCoverage(neighbours, weights, totalWeight);
    const chunkCoverage = weightedCoverage(chunkTerms[s.chunkIndex] ?? own, weights, totalWeight);
    const sentenceBigrams = bigrams(s.terms);
    const bigramShare =
      questionBigrams.size === 0
        ? 0
        : [...questionBigrams].filter((b) => sentenceBigrams.has(b)).length / questionBigrams.size;
    const novel = s.terms.filter((t) => !weights.has(t)).length;
    const words = s.text.split(/\s+/).length;
    const w = settings.weights;
    let score =
      w.sentence * coverage + w.window * windowCoverage + w.chunk * chunkCoverage + w.bigram * bigramShare;
    if (matchesAnswerType(s.text, answerType, questionWords)) score += w.answerType;
    // A sentence that only repeats the question cannot hold its answer.
    if (novel === 0) score *= 0.3;
    if (words < 4) score *= 0.5;
    score += 0.02 / (1 + s.position) + w.rank / (1 + s.chunkIndex);
    return { chunkIndex: s.chunkIndex, position: s.position, text: s.text, words, score, coverage };
  });

  const ranked = [...scored].sort(
    (a, b) => b.score - a.score || a.chunkIndex - b.chunkIndex || a.position - b.position,
  );
  const best = ranked[0];
  if (best === undefined || best.coverage < settings.relevanceFloor) return fallback;

  const picked: ScoredSentence[] = [best];
  const seenTexts = new Set([normalizeForDedupe(best.text)]);
  let words = best.words;
  for (const candidate of ranked.slice(1)) {
    if (picked.length >= settings.maxSentences) break;
    const sameChunk = candidate.chunkIndex === best.chunkIndex;
    const ratio = sameChunk ? settings.sameChunkRatio : settings.otherChunkRatio;
    if (candidate.score < best.score * ratio) continue;
    if (words + candidate.words > settings.maxWords) continue;
    const key = normalizeForDedupe(candidate.text);
    if (seenTexts.has(key)) continue;
    seenTexts.add(key);
    picked.push(candidate);
    words += candidate.words;
  }

  // Readable order: the best chunk first, then each chunk's sentences in document order.
  const chunkOrder = [...new Set(picked.map((s) => s.chunkIndex))];
  picked.sort(
    (a, b) => chunkOrder.indexOf(a.chunkIndex) - chunkOrder.indexOf(b.chunkIndex) || a.position - b.position,
  );

  // Adjacent sentences of one chunk share one marker: "S1 S2 [1]".
  const parts: string[] = [];
  picked.forEach((s, i) => {
    const next = picked[i + 1];
    parts.push(next?.chunkIndex === s.chunkIndex ? s.text : `${s.text} [${s.chunkIndex + 1}]`);
  });
  const usedChunks = chunkOrder.flatMap((i) => chunks[i] ?? []);
  return { answer: parts.join(" "), usedChunks };
}

function weightedCoverage(terms: Set<string>, weights: Map<string, number>, total: number): number {
  if (total <= 0) return 0;
  let matched = 0;
  for (const [term, weight] of weights) {
    if (terms.has(term)) matched += weight;
    else if (term.length >= 5 && hasPrefixMatch(term, terms)) matched += 0.4 * weight;
  }
  return matched / total;
}

// "Norman" and "Normandy", "Arab" and "Arabic": a shared 5-letter prefix is a partial match.
function hasPrefixMatch(term: string, terms: Set<string>): boolean {
  const prefix = term.slice(0, 5);
  for (const t of terms) if (t.length >= 5 && t.startsWith(prefix)) return true;
  return false;
}

function bigrams(terms: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < terms.length; i++) out.add(`${terms[i - 1]} ${terms[i]}`);
  return out;
}

function detectAnswerType(question: string): AnswerType {
  const q = question.toLowerCase();
  if (
    /\bhow (?:many|much|long|old|far|large|big|tall|high|deep|often)\b|\bwhat (?:percentage|percent|number|amount)\b/.test(
      q,
    )
  )
    return "number";
  if (/\bwhen\b|\b(?:what|which) (?:year|date|day|month|century|decade|time|period|era)\b/.test(q))
    return "date";
  if (/\bwho(?:m|se)?\b/.test(q)) return "person";
  if (/\bwhere\b|\b(?:what|which) (?:city|country|state|place|region|town|continent|location)\b/.test(q))
    return "place";
  return "other";
}

function matchesAnswerType(sentence: string, type: AnswerType, questionWords: Set<string>): boolean {
  switch (type) {
    case "number":
      return /\d/.test(sentence) || NUMBER_WORDS.test(sentence);
    case "date":
      return /\b\d{3,4}s?\b|\b\d{1,2}(?:st|nd|rd|th) century\b/i.test(sentence) || MONTHS.test(sentence);
    case "person":
    case "place":
      return newProperNames(sentence, questionWords) > 0;
    case "other":
      return false;
    default:
      return type satisfies never;
  }
}

function newProperNames(sentence: string, questionWords: Set<string>): number {
  const words = sentence.match(/[\p{L}][\p{L}'’-]*/gu) ?? [];
  let count = 0;
  words.forEach((w, i) => {
    if (i === 0 || !/^\p{Lu}/u.test(w)) return;
    const lower = w.toLowerCase();
    if (STOP_WORDS.has(lower) || questionWords.has(lower) || questionWords.has(stemWord(lower))) return;
    count++;
  });
  return count;
}

function normalizeForDedupe(text: string): string {
  return tokenizeWords(text).join(" ");
}
