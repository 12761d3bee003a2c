import type { Embedder } from "../retrieval/embedder.ts";
import { canHaveVariants, isEdgeVariant } from "../retrieval/term-variants.ts";
import { analyzeTokens, stopWords, tokenize } from "../retrieval/text-analysis.ts";
import { type ExpansionWeights, expandWords, sharedWordNet } from "../retrieval/wordnet.ts";
import { foreignStopWords } from "../text/analyzers.ts";
import { detectLanguage } from "../text/language.ts";

/**
 * A correction read as an FAQ entry: its question and the owner's "also answers" wordings are the
 * title, its answer the body. A visitor's question is analysed as the knowledge base analyses a
 * query (the index's tokens, so "Zephyr-9", "zephyr 9" and "zephyr9" meet; Porter2 stems; WordNet
 * synonyms, derived forms and words defined by two of the question's words; term variants) and
 * scored against each wording, BM25-like: each term weighted by its rarity among the agent's
 * corrections, a match in the body counting `BODY_CREDIT` of one in the title.
 *
 * The score (0..1) weighs two covers: how much of the visitor's question the entry holds (the
 * question's own words must be there — an extra word asks something else) and how much of the
 * wording the question holds (less strictly: visitors write less). Conservative on top, since a
 * wrong correction is worse than an ordinary answer: a question of another kind ("how much does it
 * cost?" beside "how do I cancel?", `CUES`) or of the opposite sense ("don't you …") scores 0.
 * - Lexical: a score ≥ `LEXICAL_THRESHOLD`. (Scores just below it hold true paraphrases and near
 *   misses alike — "annual" for "monthly" scores 0.67 — so a weak best passage is no reason to take one.)
 * - Semantic (a real embedding model configured): cosine ≥ 0.9 alone, or ≥ 0.8 with lexical ≥ 0.5.
 */
export const LEXICAL_THRESHOLD = 0.7;
export const SEMANTIC_THRESHOLD = 0.9;
export const SEMANTIC_WITH_WORDS_THRESHOLD = 0.8;
const WORDS_WITH_SEMANTIC_THRESHOLD = 0.5;

/** What a related word counts for beside the word itself. */
const RELATED: ExpansionWeights = { synonym: 0.8, derived: 0.7, broader: 0, defined: 0.6 };
const VARIANT_CREDIT = 0.7;
/**
 * A question word found in the answer rather than in the wording: what BM25F gives a body match
 * beside a title match with the title weighted twice and k1 = 1.2 ((1/2.2) / (2/3.2) ≈ 0.73).
 */
const BODY_CREDIT = 0.7;
/** A wording's word the question's kind stands for ("when" for "hours"). */
const KIND_CREDIT = 0.8;
/** Verbs that frame a question more than they say what it is about ("what does it come with"). */
const LIGHT_WEIGHT = 0.3;
/** The query cover counts this many times the wording's cover (an F-measure's β²). */
const QUERY_COVER_FACTOR = 3;
/** Below this share of a wording, a question names its topic but not what it asks ("zephyr 9?"). */
const MIN_WORDING_COVER = 0.6;
const MIN_WORDING_COVER_SAME_KIND = 0.5;
/** Corrections every term is imagined absent from: a handful of corrections gives no rarity yet. */
const PRIOR_DOCUMENTS = 10;

// Politeness and question framing: paraphrases add or drop them freely.
const FILLER = new Set(
  "please tell know possible possibly way hi hello hey thanks thank question wondering wonder anyone someone explain find".split(
    " ",
  ),
);
const LIGHT = new Set("come comes came get gets got let lets need want like go goes have has".split(" "));
// "What's" without its apostrophe.
const CONTRACTED: Record<string, string> = {
  whats: "what",
  hows: "how",
  wheres: "where",
  whens: "when",
  whos: "who",
};
const NEGATION = new Set(
  "not no never cannot cant dont doesnt didnt isnt arent wasnt wont wouldnt shouldnt couldnt havent hasnt".split(
    " ",
  ),
);

/** What a question asks for, told by its question words (which the analysis drops). */
type Kind =
  | "quantity"
  | "duration"
  | "frequency"
  | "reason"
  | "place"
  | "time"
  | "person"
  | "manner"
  | "consequence"
  | "yes-no";

const CUES: Record<string, Kind> = {
  "how much": "quantity",
  "how many": "quantity",
  "how long": "duration",
  "how often": "frequency",
  "what time": "time",
  "what happens": "consequence",
  "what if": "consequence",
  why: "reason",
  where: "place",
  when: "time",
  who: "person",
  whom: "person",
  whose: "person",
};
// "how do I …", "how can I …": the way to do something.
const MANNER_AFTER_HOW = new Set("do does did can could should would to is are".split(" "));
const YES_NO_OPENERS = new Set(
  "can could do does did is are was were will would should may have has am".split(" "),
);
// Kinds that one answer serves: "can I pay with Klarna?" and "how do I pay with Klarna?"; "where do
// I cancel?" asks the way to cancel.
const COMPATIBLE = new Set(["manner yes-no", "manner place"]);

/** Words a question's kind stands for in a wording ("when are you open?" for "opening hours"). */
const KIND_WORDS: Partial<Record<Kind, ReadonlySet<string>>> = {
  time: new Set(analyzeTokens("hours time times date day days schedule".split(" "))),
  quantity: new Set(analyzeTokens("cost price fee charge amount number".split(" "))),
  place: new Set(analyzeTokens("address location".split(" "))),
  duration: new Set(analyzeTokens("time period days weeks".split(" "))),
};

/** A text reduced to what matching compares. */
export interface AnalyzedQuestion {
  /** Index terms, repeats kept once, with their weight (light verbs count less). */
  terms: Map<string, number>;
  /** Per term: the terms its WordNet relatives and variants stand for, with their credit. */
  related: Map<string, Map<string, number>>;
  negated: boolean;
  kind: Kind | null;
}

/** A correction as matching sees it: its wordings (title) and its answer's terms (body). */
export interface CorrectionEntry {
  wordings: AnalyzedQuestion[];
  body: ReadonlySet<string>;
  /** Every term of the entry, for rarity across the agent's corrections. */
  vocabulary: ReadonlySet<string>;
}

export function analyzeQuestion(text: string): AnalyzedQuestion {
  // Apostrophes dropped: analytics lists questions without them ("whats the refund policy").
  const words = wordsOf(text.replace(/['’]/g, "")).map((w) => CONTRACTED[w] ?? w);
  const foreign = foreignStopWords(words, stopWords, () => detectLanguage(text));
  // The words of a two-word cue ("how long") say what kind of question it is, not what it is about.
  const cueWords = new Set<number>();
  words.forEach((w, i) => {
    if (CUES[`${w} ${words[i + 1]}`]) cueWords.add(i + 1);
  });
  const content = words.filter(
    (w, i) => !cueWords.has(i) && !FILLER.has(w) && !NEGATION.has(w) && !foreign?.has(w),
  );
  const terms = new Map<string, number>();
  const related = new Map<string, Map<string, number>>();
  const termOf: (string | undefined)[] = content.map((w) => analyzeTokens([w])[0]);
  content.forEach((word, i) => {
    const term = termOf[i];
    if (term === undefined) return;
    terms.set(term, Math.max(terms.get(term) ?? 0, LIGHT.has(word) ? LIGHT_WEIGHT : 1));
    if (!related.has(term)) related.set(term, new Map());
  });
  const wordnet = sharedWordNet();
  if (wordnet) {
    const kept = content.filter((_, i) => termOf[i] !== undefined && !LIGHT.has(content[i] ?? ""));
    const keptTerms = kept.map((w) => analyzeTokens([w])[0] ?? w);
    for (const { word, position, factor } of expandWords(wordnet, kept, RELATED)) {
      const from = related.get(keptTerms[position] ?? "");
      for (const term of analyzeTokens(tokenize(word))) {
        if (from && !terms.has(term) && (from.get(term) ?? 0) < factor) from.set(term, factor);
      }
    }
  }
  const negations = words.filter((w) => NEGATION.has(w)).length;
  return { terms, related, negated: negations % 2 === 1, kind: kindOf(words) };
}

function kindOf(words: readonly string[]): Kind | null {
  for (const [i, word] of words.entries()) {
    const cue = CUES[`${word} ${words[i + 1]}`] ?? CUES[word];
    if (cue) return cue;
    if (word === "how" && MANNER_AFTER_HOW.has(words[i + 1] ?? "")) return "manner";
  }
  return YES_NO_OPENERS.has(words[0] ?? "") ? "yes-no" : null;
}

/** Tokens as the index makes them, letters and digits apart as visitors write them ("zephyr9", "Zephyr-9"). */
const wordsOf = (text: string): string[] => tokenize(text).flatMap((w) => w.match(/\p{L}+|\p{N}+/gu) ?? []);

/** The entry a correction is matched as. */
export function prepareEntry(
  question: string,
  alsoAnswers: readonly string[],
  answer: string,
): CorrectionEntry {
  const wordings = [question, ...alsoAnswers].map(analyzeQuestion);
  const body = new Set(analyzeTokens(wordsOf(answer)));
  const vocabulary = new Set(body);
  for (const w of wordings) for (const t of w.terms.keys()) vocabulary.add(t);
  return { wordings, body, vocabulary };
}

/** How rare each term is among `entries` (a BM25 idf, smoothed by `PRIOR_DOCUMENTS`). */
export function rarityAmong(entries: readonly CorrectionEntry[]): (term: string) => number {
  const df = new Map<string, number>();
  for (const e of entries) for (const t of e.vocabulary) df.set(t, (df.get(t) ?? 0) + 1);
  const n = entries.length + PRIOR_DOCUMENTS;
  // A word no correction holds weighs as one that a single correction holds: that it is rare among
  // corrections says nothing of how much it matters to the question.
  return (term) => {
    const d = Math.max(1, df.get(term) ?? 0);
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
}

/** How well (0..1) a visitor's question matches a correction: its best wording, with the body's help. */
export function scoreEntry(
  asked: AnalyzedQuestion,
  entry: CorrectionEntry,
  rarity: (term: string) => number,
): number {
  let best = 0;
  for (const wording of entry.wordings)
    best = Math.max(best, scoreWording(asked, wording, entry.body, rarity));
  return best;
}

function scoreWording(
  asked: AnalyzedQuestion,
  wording: AnalyzedQuestion,
  body: ReadonlySet<string>,
  rarity: (term: string) => number,
): number {
  if (asked.terms.size === 0 || wording.terms.size === 0) return 0;
  if (asked.negated !== wording.negated || !compatible(asked.kind, wording.kind)) return 0;
  let held = 0;
  let asks = 0;
  // What the question asks that only the answer holds ("deliver" beside "we ship …; delivery takes …").
  let fromBody = 0;
  for (const [term, weight] of asked.terms) {
    const w = weight * rarity(term);
    asks += w;
    let credit = 0;
    for (const other of wording.terms.keys()) credit = Math.max(credit, kinship(term, other, asked, wording));
    const inBody = BODY_CREDIT * bodyKinship(term, asked, body);
    if (inBody > credit) fromBody += w * inBody;
    held += w * Math.max(credit, inBody);
  }
  let covered = 0;
  let holds = 0;
  const standsFor = asked.kind ? KIND_WORDS[asked.kind] : undefined;
  for (const [term, weight] of wording.terms) {
    const w = weight * rarity(term);
    holds += w;
    let credit = standsFor?.has(term) ? KIND_CREDIT : 0;
    for (const other of asked.terms.keys()) credit = Math.max(credit, kinship(other, term, asked, wording));
    covered += w * credit;
  }
  // The answer's words stand in for the wording's words the question lacks: the entry is one text.
  covered += Math.min(holds - covered, fromBody);
  const query = held / asks;
  const title = covered / holds;
  // Asking the same kind of question ("where …?") says more than a bare topic does.
  const enough =
    asked.kind !== null && asked.kind === wording.kind ? MIN_WORDING_COVER_SAME_KIND : MIN_WORDING_COVER;
  if (query === 0 || title < enough) return 0;
  return ((1 + QUERY_COVER_FACTOR) * query * title) / (QUERY_COVER_FACTOR * title + query);
}

function compatible(a: Kind | null, b: Kind | null): boolean {
  if (a === null || b === null || a === b) return true;
  return COMPATIBLE.has([a, b].sort().join(" "));
}

/** What `other` counts for as `term`: the same term, a WordNet relative either way, or a variant. */
function kinship(
  term: string,
  other: string,
  asked: AnalyzedQuestion,
  wording: AnalyzedQuestion | null,
): number {
  if (term === other) return 1;
  let credit = Math.max(
    asked.related.get(term)?.get(other) ?? 0,
    wording?.related.get(other)?.get(term) ?? 0,
  );
  if (
    credit < VARIANT_CREDIT &&
    canHaveVariants(term) &&
    canHaveVariants(other) &&
    isEdgeVariant(term, other)
  ) {
    credit = VARIANT_CREDIT;
  }
  return credit;
}

/** What the body holds of `term`: the term itself or a WordNet relative (looked up, not scanned: an answer is long). */
function bodyKinship(term: string, asked: AnalyzedQuestion, body: ReadonlySet<string>): number {
  if (body.has(term)) return 1;
  let credit = 0;
  for (const [other, factor] of asked.related.get(term) ?? [])
    if (factor > credit && body.has(other)) credit = factor;
  return credit;
}

/** Whether a question has a term (or a relative of one) in common with any of the entry's wordings. */
export function sharesTerms(asked: AnalyzedQuestion, entry: CorrectionEntry): boolean {
  return entry.wordings.some((wording) =>
    [...asked.terms.keys()].some((term) =>
      [...wording.terms.keys()].some((other) => kinship(term, other, asked, wording) > 0),
    ),
  );
}

/** Whether a lexical score (and a cosine, when there is one) makes the correction the answer. */
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
