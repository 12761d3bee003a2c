import { canHaveVariants, isEdgeVariant } from "../retrieval/term-variants.ts";
import { type ExpansionWeights, expandWords, sharedWordNet } from "../retrieval/wordnet.ts";
import { foreignLatinLanguage } from "../text/analyzers.ts";
import { detectLanguage, type Language } from "../text/language.ts";
import { STOP_WORDS, stemWord, tokenizeTerms, tokenizeTermsIn, tokenizeWords } from "../text/normalize.ts";
import { countTokens } from "../text/tokens.ts";
import { type AnswerUnit, answerUnits, chunkBody } from "./answer-units.ts";
import { condenseHeuristically } from "./condense.ts";
import {
  detectAnswerType,
  detectQuestionShape,
  matchesAnswerType,
  type QuestionShape,
} from "./question-type.ts";
import type { ChatModel, GenerateInput, GenerationEvent, RetrievedChunk } from "./types.ts";

/** Tunables of the extractive answerer; the defaults are what the SQuAD check measured best. */
export interface ExtractiveOptions {
  /** Share of the question's weighted terms the best sentence (alone or with its neighbours) must match; below it the fallback message is sent. */
  relevanceFloor: number;
  /** Most sentences in an answer. */
  maxSentences: number;
  /** Soft word budget: further sentences are added only while the answer stays under it. */
  maxWords: number;
  /** Word budget of a section answer: the rest of the lead's section is added while the answer stays under it (0: none). */
  sectionWords: number;
  /**
   * Words of a section's opening: when the unit that best answers lies within them, the answer is
   * the section read from its start (0: never).
   */
  openingWords: number;
  /** Weights of a retrieved section's claim to hold the answer (see chooseSection). */
  sectionChoice: SectionChoiceWeights;
  /**
   * Another section of the answer's article joins the answer when its claim is within this much of
   * the chosen section's (see withSiblingSection; negative: never).
   */
  siblingMargin: number;
  /** A further sentence of the same chunk must score at least this share of the best. */
  sameChunkRatio: number;
  /** A sentence of another chunk must score at least this share of the best (cited separately). */
  otherChunkRatio: number;
  /** WordNet relatives of the question's words that count as partial matches, or null for none. */
  expansion: ExpansionWeights | null;
  /** Weights of the sentence score: own coverage, coverage with neighbours, chunk coverage, bigrams, answer type, retrieval rank. */
  weights: {
    sentence: number;
    window: number;
    chunk: number;
    bigram: number;
    answerType: number;
    /** Bonus for the shape the question asks for: steps for "how do I", a yes or no, a contact. */
    shape: number;
    /** Weight of the chunk's retrieval score relative to the best retrieved chunk. */
    rank: number;
    /** Bonus for a chunk's first unit, times how well its title and headings match the question. */
    lead: number;
  };
}

export const defaultExtractiveOptions: ExtractiveOptions = {
  relevanceFloor: 0.22,
  maxSentences: 4,
  maxWords: 80,
  // A section answer (issue #50): the widget shows about 120 words and folds the rest of the section.
  sectionWords: 160,
  openingWords: 120,
  // Fitted on the tuning half of the help-center set by bench/src/fit-sections.ts.
  sectionChoice: { retrieval: 3.28, evidence: 1.41, title: 1.36, articleLead: 1.1 },
  // Chosen on the help-center tuning half (0.5–5 and no limit tried): from 2.5 on, fact containment
  // stays at 0.563 (0.538 without a sibling) and the answers only grow longer.
  siblingMargin: 2.5,
  sameChunkRatio: 0.75,
  // Citing a second chunk cost citation precision on SQuAD (0.86 -> 0.77 at 0.7) for two help-center
  // facts in 80: only on a tie.
  otherChunkRatio: 1,
  expansion: { synonym: 0.5, derived: 0.3, broader: 0.2, defined: 0.5 },
  weights: {
    sentence: 0.6,
    window: 0.2,
    chunk: 0.3,
    bigram: 0.15,
    answerType: 0.08,
    shape: 0.16,
    rank: 0.6,
    lead: 0.1,
  },
};

// A question that compares or joins two things may be answered from two articles.
const SEVERAL_FOCUSES = /\b(?:and|versus|vs\.?|compared?|comparison|difference|differ|between|both)\b/i;

/** Question terms read, and distinct ones weighed: far beyond a real question (issue #34). */
const MAX_QUESTION_TERMS_READ = 256;
const MAX_QUESTION_TERMS = 64;

// Words that frame a request ("tell me about …") rather than name what it is about.
const REQUEST_WORDS: ReadonlySet<string> = new Set(tokenizeTerms("tell explain describe know please"));

/** The embedded default answerer: the best sentences of the retrieved chunks, each cited [n]. Deterministic, no model. */
export function createExtractiveModel(options: Partial<ExtractiveOptions> = {}): ChatModel {
  const settings = { ...defaultExtractiveOptions, ...options };
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

/** Share of the question's weight a unit must hold alone to lead its section answer (see sectionOpening). */
const LEAD_ALONE = 0.75;

// A sentence that opens by pointing back at the one before it goes on from it (English).
const CONTINUATION = /^(?:this|these|that|those|it|they|such)\b/i;

/**
 * The sentence right after a picked one in its paragraph goes on from it when it points back ("This
 * parameter…") or when the question asks how to do something: the sentence after one that names the
 * question's focus is the next step ("Click 'Forgot password'. We e-mail you a link."), in any
 * language, whatever words it uses.
 */
function continuesPicked(candidate: ScoredUnit, picked: readonly ScoredUnit[], procedure: boolean): boolean {
  return (
    candidate.kind === "sentence" &&
    picked.some(
      (u) =>
        // A step follows a sentence that names the question's focus; pointing back may chain.
        (CONTINUATION.test(candidate.text) || (procedure && u.focus > 0)) &&
        u.chunkIndex === candidate.chunkIndex &&
        u.block === candidate.block &&
        u.position === candidate.position - 1,
    )
  );
}

/**
 * A procedure stays whole: a step of one line (its own block) between two picked units of the same chunk
 * is put back even when it names nothing of the question ("Open the menu > Settings." between "Open the
 * browser." and "Select Search engine."). Gaps of at most two steps, within the word budget.
 */
function fillProcedureGaps(picked: ScoredUnit[], scored: readonly ScoredUnit[], budget: number): void {
  let left = budget;
  const positions = (chunk: number) =>
    picked
      .filter((u) => u.chunkIndex === chunk)
      .map((u) => u.position)
      .sort((a, b) => a - b);
  for (const chunk of new Set(picked.map((u) => u.chunkIndex))) {
    const at = positions(chunk);
    for (let i = 1; i < at.length; i++) {
      const from = at[i - 1] ?? 0;
      const to = at[i] ?? 0;
      if (to - from < 2 || to - from > 3) continue;
      const gap = scored.filter((u) => u.chunkIndex === chunk && u.position > from && u.position < to);
      const blocks = new Set(
        [from, to].map((p) => scored.find((u) => u.chunkIndex === chunk && u.position === p)?.block),
      );
      const steps = gap.every(
        (u) =>
          u.kind === "sentence" &&
          !blocks.has(u.block) &&
          gap.filter((g) => g.block === u.block).length === 1 &&
          scored.filter((s) => s.chunkIndex === chunk && s.block === u.block).length === 1,
      );
      const words = gap.reduce((sum, u) => sum + u.words, 0);
      if (!steps || words > left) continue;
      picked.push(...gap);
      left -= words;
    }
  }
}

/**
 * A section answer (issue #50): after the picked units comes the rest of the lead's section that
 * belongs to them — the units of its chunk under the same inline heading that follow the last picked
 * one, in order, for as long as each goes on from what is said (a list, table or code block, a
 * sentence pointing back, or one sharing a content word with the picked units or the question) and
 * the answer stays within the section budget. So a rule keeps its exception ("You can cancel until it
 * ships. Once shipped, use the returns process.") and a procedure its steps, while a sentence on
 * another subject ends the section answer. A lead that points back ("This parameter…") brings the
 * sentence before it.
 */
function extendWithSection(
  picked: ScoredUnit[],
  scored: readonly ScoredUnit[],
  lead: ScoredUnit,
  questionTerms: ReadonlySet<string>,
  budget: number,
): void {
  if (budget <= 0) return;
  const section = scored.filter((u) => u.chunkIndex === lead.chunkIndex && u.heading === lead.heading);
  const inSection = picked.filter((u) => section.includes(u)).map((u) => u.position);
  if (inSection.length === 0) return;
  const said = new Set([...questionTerms, ...picked.flatMap((u) => u.terms)]);
  const first = Math.min(...inSection);
  const before = section.find((u) => u.position === first - 1);
  if (before && CONTINUATION.test(lead.text)) readOn(picked, [before], said, budget, () => true);
  const last = Math.max(...inSection);
  readOn(
    picked,
    section.filter((s) => s.position > last),
    said,
    budget,
  );
}

/**
 * Adds the units that follow, in order, while each belongs to what is said (a list, table or code
 * block, a sentence pointing back, one sharing a content word with `said`, or what `alsoBelongs`
 * admits) and the answer stays within the budget; `said` grows with each. Units already picked are
 * passed over.
 */
function readOn(
  picked: ScoredUnit[],
  following: readonly ScoredUnit[],
  said: Set<string>,
  budget: number,
  alsoBelongs: (unit: ScoredUnit) => boolean = () => false,
): void {
  let words = picked.reduce((sum, u) => sum + u.words, 0);
  for (const u of following) {
    if (picked.includes(u)) continue;
    const belongs =
      alsoBelongs(u) ||
      u.kind !== "sentence" ||
      CONTINUATION.test(u.text) ||
      u.terms.some((t) => said.has(t));
    if (!belongs || words + u.words > budget) return;
    picked.push(u);
    words += u.words;
    for (const t of u.terms) said.add(t);
  }
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
  const settings = {
    ...defaultExtractiveOptions,
    ...options,
    weights: { ...defaultExtractiveOptions.weights, ...options.weights },
  };
  const fallback = { answer: fallbackMessage, usedChunks: [] };
  const ranking = rankAnswerUnits(question, chunks, settings);
  const { scored, ranked, questionTerms } = ranking;
  const strongest = ranked[0];
  // Evidence is the best unit's share of the question, alone or with its neighbours (a short sentence
  // often leaves its subject to the one before it).
  if (
    strongest === undefined ||
    Math.max(strongest.coverage, strongest.windowCoverage) < settings.relevanceFloor
  )
    return fallback;
  // The answer comes from one section; its best unit leads, and where that unit lies in the section's
  // opening the section is read from its start (a heading that asks the question is answered there).
  const claims = sectionClaims(chunks, ranking, settings.sectionChoice);
  const section = bestClaim(claims);
  const best = ranked.find((u) => u.chunkIndex === section) ?? strongest;
  const procedure = detectQuestionShape(question) === "procedure";
  const spansSeveral = SEVERAL_FOCUSES.test(question);
  const sectionChunk = chunks[section];
  const context = {
    question: new Set(questionTerms),
    title: ranking.titleTerms[section] ?? [],
    asks: sectionChunk !== undefined && /[?？]\s*$/.test(ownHeading(sectionChunk)),
    procedure,
  };
  // A comparison may need two articles: it is composed unit by unit.
  const opening = spansSeveral ? null : sectionOpening(scored, best, context, settings.openingWords);
  if (opening) {
    withSiblingSection(opening, chunks, ranking, claims, section, settings);
    return renderAnswer(opening, chunks);
  }

  // A list, table or code block comes with the sentence that introduces it, and an introduction with its block.
  const withCompanion = (unit: ScoredUnit): ScoredUnit[] => {
    const previous = scored.find((u) => u.chunkIndex === unit.chunkIndex && u.position === unit.position - 1);
    const next = scored.find((u) => u.chunkIndex === unit.chunkIndex && u.position === unit.position + 1);
    if (unit.kind !== "sentence" && previous?.introduces) return [previous, unit];
    if (unit.introduces && next) return [unit, next];
    return [unit];
  };
  const picked: ScoredUnit[] = withCompanion(best);
  const bestTitle = chunks[best.chunkIndex]?.title;
  const seenTexts = new Set(picked.map((u) => normalizeForDedupe(u.text)));
  let words = picked.reduce((sum, u) => sum + u.words, 0);
  for (const candidate of ranked) {
    if (candidate === best) continue;
    if (picked.length >= settings.maxSentences) break;
    // Within the best chunk, sentences compete on their own evidence (they share the chunk's rank).
    const sameChunk = candidate.chunkIndex === best.chunkIndex;
    const ratio = sameChunk ? settings.sameChunkRatio : settings.otherChunkRatio;
    if (candidate.score < best.score * ratio) continue;
    // A further sentence must itself say something of the question's focus, not just sit nearby, unless
    // it goes on from a picked one ("… an &atb= parameter. This parameter allows us to …").
    if (candidate.focus <= 0 && !continuesPicked(candidate, picked, procedure)) continue;
    // One article answers, unless the question asks about several things (a comparison, "A and B").
    if (!sameChunk && !spansSeveral && chunks[candidate.chunkIndex]?.title !== bestTitle) continue;
    const group = withCompanion(candidate).filter((u) => !picked.includes(u));
    const groupWords = group.reduce((sum, u) => sum + u.words, 0);
    if (group.length === 0 || words + groupWords > settings.maxWords) continue;
    const keys = group.map((u) => normalizeForDedupe(u.text));
    if (keys.some((k) => seenTexts.has(k))) continue;
    for (const k of keys) seenTexts.add(k);
    picked.push(...group);
    words += groupWords;
  }

  fillProcedureGaps(picked, scored, settings.maxWords - words);
  extendWithSection(picked, scored, best, new Set(questionTerms), settings.sectionWords);
  withSiblingSection(picked, chunks, ranking, claims, section, settings);

  return renderAnswer(picked, chunks);
}

export interface RankedUnits {
  scored: ScoredUnit[];
  ranked: ScoredUnit[];
  questionTerms: string[];
  /** Per chunk: the terms of its title and heading path. */
  titleTerms: string[][];
  /** Per chunk: the question's weighted share its title and heading path hold. */
  titleCoverage: number[];
  /** Per chunk: the question's weighted share its own heading holds (its title where it has none). */
  headingCoverage: number[];
}

/** A chunk's own heading: the last of its heading path, its title where it has none. */
function ownHeading(chunk: Pick<RetrievedChunk, "headingPath" | "title">): string {
  return chunk.headingPath.at(-1) ?? chunk.title;
}

/** The picked units as the answer: each chunk's in document order, the best chunk first, cited [n]. */
function renderAnswer(
  picked: ScoredUnit[],
  chunks: RetrievedChunk[],
): { answer: string; usedChunks: RetrievedChunk[] } {
  // Readable order: the best chunk first, then each chunk's units in document order.
  const chunkOrder = [...new Set(picked.map((u) => u.chunkIndex))];
  picked.sort(
    (a, b) => chunkOrder.indexOf(a.chunkIndex) - chunkOrder.indexOf(b.chunkIndex) || a.position - b.position,
  );

  // Units of one chunk share one marker after the last of them: "S1 S2 [1]". Sentences of one paragraph
  // run on; a list, table or code block keeps its own lines.
  let answer = "";
  picked.forEach((u, i) => {
    const previous = picked[i - 1];
    if (previous) {
      const runOn =
        previous.chunkIndex === u.chunkIndex &&
        previous.block === u.block &&
        previous.kind === "sentence" &&
        u.kind === "sentence";
      answer += runOn ? " " : "\n\n";
    }
    answer += u.text;
    const next = picked[i + 1];
    if (next?.chunkIndex !== u.chunkIndex)
      answer += u.kind === "code" ? `\n[${u.chunkIndex + 1}]` : ` [${u.chunkIndex + 1}]`;
  });
  const usedChunks = chunkOrder.flatMap((i) => chunks[i] ?? []);
  return { answer, usedChunks };
}

export interface SectionChoiceWeights {
  /** The section's retrieval score relative to the best retrieved. */
  retrieval: number;
  /** The evidence of its best unit for the question. */
  evidence: number;
  /** The share its title and headings hold. */
  title: number;
  /** It opens its article (no heading above it). */
  articleLead: number;
}

/**
 * The retrieved section (chunk) that most likely holds the answer: its retrieval score, the evidence
 * of its best unit, a title or heading that names the question, and opening its article count for it.
 */
export function chooseSection(
  chunks: readonly RetrievedChunk[],
  ranking: Pick<RankedUnits, "scored" | "titleCoverage" | "headingCoverage">,
  weights: SectionChoiceWeights,
): number {
  return bestClaim(sectionClaims(chunks, ranking, weights));
}

/**
 * Each retrieved section's claim to hold the answer (chooseSection's score). A section that says
 * nothing of the question (only its article's title or a parent heading does) has none while another
 * says something: it answers nothing.
 */
function sectionClaims(
  chunks: readonly RetrievedChunk[],
  ranking: Pick<RankedUnits, "scored" | "titleCoverage" | "headingCoverage">,
  weights: SectionChoiceWeights,
): number[] {
  const candidates = sectionFeatures(chunks, ranking);
  const anySays = candidates.some((c) => c.says);
  return candidates.map(({ features, says }) =>
    anySays && !says
      ? Number.NEGATIVE_INFINITY
      : weights.retrieval * features.retrieval +
        weights.evidence * features.evidence +
        weights.title * features.title +
        weights.articleLead * features.articleLead,
  );
}

/** The first section with the highest claim (0 when none has one). */
function bestClaim(claims: readonly number[]): number {
  let best = 0;
  let highest = Number.NEGATIVE_INFINITY;
  claims.forEach((claim, i) => {
    if (claim > highest) {
      best = i;
      highest = claim;
    }
  });
  return best;
}

/**
 * Another section of the answer's article that may hold what the chosen one leaves out (issue #50):
 * the same steps told for another platform ("iOS" above "Desktop" for "opera on my pc"), the entry
 * after "How are favorites different than bookmarks?" that says how to keep them the same. The
 * retrieved section of the same article under another heading whose claim is within
 * `siblingMargin` of the chosen one's joins the answer, read from its best unit on while the whole
 * answer stays within the section budget, and cited on its own.
 */
function withSiblingSection(
  picked: ScoredUnit[],
  chunks: readonly RetrievedChunk[],
  ranking: Pick<RankedUnits, "scored" | "ranked">,
  claims: readonly number[],
  section: number,
  settings: Pick<ExtractiveOptions, "siblingMargin" | "sectionWords">,
): void {
  const chosen = chunks[section];
  if (!chosen || settings.siblingMargin < 0) return;
  const heading = chosen.headingPath.join("\n");
  let sibling = -1;
  claims.forEach((claim, i) => {
    const chunk = chunks[i];
    if (
      chunk?.documentId === chosen.documentId &&
      chunk.headingPath.join("\n") !== heading &&
      claim >= (claims[section] ?? 0) - settings.siblingMargin &&
      claim > (claims[sibling] ?? Number.NEGATIVE_INFINITY) &&
      !picked.some((u) => u.chunkIndex === i)
    )
      sibling = i;
  });
  const lead = ranking.ranked.find((u) => u.chunkIndex === sibling);
  if (!lead) return;
  const following = ranking.scored.filter(
    (u) => u.chunkIndex === sibling && u.heading === lead.heading && u.position >= lead.position,
  );
  readOn(picked, following, new Set(), settings.sectionWords, () => true);
}

/**
 * What chooseSection weighs of each retrieved chunk (exported for bench/src/fit-sections.ts), and
 * whether it says something of the question in its own words or its own heading ("Can I pay to
 * raise the limit?" above "Not at this time.").
 */
export function sectionFeatures(
  chunks: readonly RetrievedChunk[],
  ranking: Pick<RankedUnits, "scored" | "titleCoverage" | "headingCoverage">,
): { features: SectionChoiceWeights; says: boolean }[] {
  const top = Math.max(1e-9, ...chunks.map((c) => c.score));
  const out = chunks.map((chunk, i) => ({
    features: {
      retrieval: chunk.score / top,
      evidence: 0,
      title: ranking.titleCoverage[i] ?? 0,
      articleLead: chunk.headingPath.length === 0 ? 1 : 0,
    },
    says: (ranking.headingCoverage[i] ?? 0) > 0,
  }));
  for (const u of ranking.scored) {
    const candidate = out[u.chunkIndex];
    if (!candidate) continue;
    candidate.features.evidence = Math.max(candidate.features.evidence, u.own);
    if (u.focus > 0) candidate.says = true;
  }
  return out;
}

/**
 * A section answer read in order (issue #50): when the unit that answers lies within the section's
 * opening budget and what comes before it is on the section's subject (it shares a word with the
 * question, the section's title and headings or the lead, or is a list, table or code block), the
 * answer is the section from its start, going on after the lead while each unit still belongs (see
 * extendWithSection) and the budget lasts. So a FAQ entry whose heading asks the question is answered
 * by its first lines, the sentence that links two steps ("Instead, enter the code.") stays, and a
 * procedure's steps (each a paragraph of its own) follow one another whatever words they use. Null
 * when the lead lies further on or follows another subject: the answer then leads with it.
 */
function sectionOpening(
  scored: readonly ScoredUnit[],
  lead: ScoredUnit,
  context: { question: ReadonlySet<string>; title: readonly string[]; asks: boolean; procedure: boolean },
  budget: number,
): ScoredUnit[] | null {
  if (budget <= 0) return null;
  const section = scored.filter((u) => u.chunkIndex === lead.chunkIndex && u.heading === lead.heading);
  // A lead that holds the question alone comes first (a list, table or code block after the sentence
  // that introduces it); otherwise the section is read from its start.
  const introduction = section.find((u) => u.position === lead.position - 1 && u.introduces);
  // A lead that points back ("This parameter…") comes with the sentence before it.
  const pointsBack = lead.kind === "sentence" && CONTINUATION.test(lead.text) && lead.position > 0;
  const first =
    lead.kind !== "sentence" && introduction
      ? introduction.position
      : pointsBack
        ? lead.position - 1
        : lead.position;
  const start = lead.focus >= LEAD_ALONE ? first : Math.min(first, ...section.map((u) => u.position));
  const before = section.filter((u) => u.position >= start && u.position < lead.position);
  if ([...before, lead].reduce((sum, u) => sum + u.words, 0) > budget) return null;
  const subject = new Set([...context.question, ...context.title, ...lead.terms]);
  // Under a heading that asks a question, the first lines answer it whatever words they use ("Not at
  // this time."); elsewhere a sentence on another subject before the lead makes the lead come first.
  const offSubject = (u: ScoredUnit) =>
    u.kind === "sentence" && !u.introduces && !u.terms.some((t) => subject.has(t));
  if (!context.asks && before.some(offSubject)) return null;
  const opening = [...before, lead];
  const said = new Set([...context.question, ...opening.flatMap((u) => u.terms)]);
  // A sentence that introduces a list goes on to it; the steps of a procedure follow one another
  // whatever words they use: each a paragraph of its own, or the sentence after one that names the
  // question's focus (see continuesPicked).
  const goesOn = (u: ScoredUnit) =>
    u.introduces ||
    (context.procedure &&
      (section.filter((s) => s.block === u.block).length === 1 || continuesPicked(u, opening, true)));
  readOn(
    opening,
    section.filter((s) => s.position > lead.position),
    said,
    budget,
    goesOn,
  );
  return opening;
}

/**
 * Every quotable unit of the chunks with its evidence for the question, best first (`scored` keeps
 * chunk order), and the question's terms as weighed. Exported for the benches that study the fallback threshold.
 */
export function rankAnswerUnits(
  question: string,
  chunks: RetrievedChunk[],
  settings: ExtractiveOptions,
): RankedUnits {
  const none = {
    scored: [],
    ranked: [],
    questionTerms: [],
    titleTerms: [],
    titleCoverage: [],
    headingCoverage: [],
  };
  // Question and passages are compared under the passages' language (its stop words and stemmer).
  const passages = chunks
    .slice(0, 2)
    .map((c) => c.text)
    .join("\n");
  const language = passageLanguage(passages);
  const termsOf = (text: string) => tokenizeTermsIn(text, language);
  // Bounded (issue #34): the first MAX_QUESTION_TERMS_READ terms, MAX_QUESTION_TERMS distinct ones;
  // scoring is O(units · terms · unit terms), so 10,000 one-letter words used to take seconds.
  const questionSequence = termsOf(question).slice(0, MAX_QUESTION_TERMS_READ);
  const questionTerms = [...new Set(questionSequence)]
    .filter((t) => !REQUEST_WORDS.has(t))
    .slice(0, MAX_QUESTION_TERMS);
  if (chunks.length === 0 || questionTerms.length === 0) return none;

  const units: Unit[] = chunks.flatMap((chunk, chunkIndex) =>
    unitsOfChunk(chunk, language).map(({ unit, terms }, position) => ({
      ...unit,
      chunkIndex,
      position,
      terms,
    })),
  );
  if (units.length === 0) return none;

  // IDF over the retrieved units: a question term that occurs everywhere tells units apart poorly.
  const documentFrequency = new Map<string, number>();
  for (const u of units)
    for (const t of new Set(u.terms)) documentFrequency.set(t, (documentFrequency.get(t) ?? 0) + 1);
  const n = units.length;
  const idf = (term: string) => {
    const df = documentFrequency.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  const weights = new Map(questionTerms.map((t) => [t, idf(t)]));
  const totalWeight = [...weights.values()].reduce((a, b) => a + b, 0);
  const related = relatedTerms(question, language === null ? settings.expansion : null);
  const questionCoverage = new QuestionCoverage(weights, totalWeight, related);
  const weightedCoverage = (terms: Set<string>) => questionCoverage.of(terms);
  const questionBigrams = bigrams(questionSequence);
  const answerType = detectAnswerType(question);
  const shape = detectQuestionShape(question);
  const questionWords = new Set(tokenizeWords(question));
  const topScore = Math.max(1e-9, ...chunks.map((c) => c.score));

  // A chunk's title and headings name its topic ("Payment methods"), which its sentences often leave out.
  const titleTerms = chunks.map((c) => termsOf([c.title, ...c.headingPath].join(" ")));
  const titleCoverage = titleTerms.map((terms) => weightedCoverage(new Set(terms)));
  const headingCoverage = chunks.map((c) => weightedCoverage(new Set(termsOf(ownHeading(c)))));
  // Terms of each chunk, so a sentence whose subject was named a sentence earlier still gets context credit.
  const chunkTerms = chunks.map(
    (_, i) =>
      new Set([...(titleTerms[i] ?? []), ...units.filter((u) => u.chunkIndex === i).flatMap((u) => u.terms)]),
  );
  // Once a chunk, not once for each of its units.
  const chunkCoverages = chunkTerms.map((terms) => weightedCoverage(terms));

  const scored: ScoredUnit[] = units.map((u, index) => {
    const own = new Set(u.terms);
    const headingTerms = u.heading ? termsOf(u.heading) : [];
    const coverage = weightedCoverage(
      new Set([...own, ...(titleTerms[u.chunkIndex] ?? []), ...headingTerms]),
    );
    // What the unit itself says of the question, without the title and headings above it.
    const focus = weightedCoverage(own);
    const neighbours = new Set(own);
    for (const other of [units[index - 1], units[index + 1]]) {
      if (other?.chunkIndex === u.chunkIndex) for (const t of other.terms) neighbours.add(t);
    }
    const windowCoverage = weightedCoverage(neighbours);
    const chunkCoverage = chunkCoverages[u.chunkIndex] ?? weightedCoverage(own);
    // A chunk's lead reads on from its title and headings ("Opening hours" above "We are open…").
    const unitBigrams = bigrams(
      u.position === 0 ? [...(titleTerms[u.chunkIndex] ?? []), ...headingTerms, ...u.terms] : u.terms,
    );
    const bigramShare =
      questionBigrams.size === 0
        ? 0
        : [...questionBigrams].filter((b) => unitBigrams.has(b)).length / questionBigrams.size;
    const novel = u.terms.filter((t) => !weights.has(t)).length;
    const words = wordCount(u.text);
    const w = settings.weights;
    let score =
      w.sentence * coverage + w.window * windowCoverage + w.chunk * chunkCoverage + w.bigram * bigramShare;
    if (matchesAnswerType(u.text, answerType, (text) => newProperNames(text, questionWords)))
      score += w.answerType;
    if (fitsShape(u, shape, units[index + 1])) score += w.shape;
    // A sentence that only repeats the question cannot hold its answer.
    if (novel === 0) score *= 0.3;
    if (words < 4 && u.kind === "sentence") score *= 0.5;
    if (u.position === 0) score += w.lead * (titleCoverage[u.chunkIndex] ?? 0);
    const chunk = chunks[u.chunkIndex];
    const evidence = score;
    score += 0.02 / (1 + u.position) + w.rank * ((chunk?.score ?? 0) / topScore);
    return { ...u, words, score, own: evidence, coverage, windowCoverage, focus };
  });

  const ranked = [...scored].sort(
    (a, b) => b.score - a.score || a.chunkIndex - b.chunkIndex || a.position - b.position,
  );
  return { scored, ranked, questionTerms, titleTerms, titleCoverage, headingCoverage };
}

/**
 * A chunk's answer units and their terms, and the language of a pair of passages, remembered: the same
 * chunks come back question after question, and splitting and stemming them was a third of a
 * question's answering time. Bounded like the other caches of text (cleared when full).
 */
const MEMO_LIMIT = 2048;
const chunkUnitMemo = new Map<string, readonly { unit: AnswerUnit; terms: string[] }[]>();
const passageLanguageMemo = new Map<string, Language | null>();

function unitsOfChunk(chunk: RetrievedChunk, language: Language | null) {
  const key = `${language ?? ""}\u0000${chunk.headingPath.join("\u0001")}\u0000${chunk.text}`;
  let units = chunkUnitMemo.get(key);
  if (units === undefined) {
    units = answerUnits(chunkBody(chunk.text, chunk.headingPath)).map((unit) => ({
      unit,
      terms: tokenizeTermsIn(unit.text, language),
    }));
    if (chunkUnitMemo.size >= MEMO_LIMIT) chunkUnitMemo.clear();
    chunkUnitMemo.set(key, units);
  }
  return units;
}

function passageLanguage(passages: string): Language | null {
  let language = passageLanguageMemo.get(passages);
  if (language === undefined) {
    language = foreignLatinLanguage(tokenizeWords(passages), STOP_WORDS, () => detectLanguage(passages));
    if (passageLanguageMemo.size >= MEMO_LIMIT) passageLanguageMemo.clear();
    passageLanguageMemo.set(passages, language);
  }
  return language;
}

interface Unit extends AnswerUnit {
  chunkIndex: number;
  position: number;
  terms: string[];
}

export interface ScoredUnit extends Unit {
  words: number;
  score: number;
  /** The score before the chunk's retrieval rank is added. */
  own: number;
  coverage: number;
  /** Coverage of the unit with its neighbours in the chunk. */
  windowCoverage: number;
  /** Coverage of the unit's own words (no title, heading or neighbours): 0 when it shares nothing with the question. */
  focus: number;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

const POLARITY =
  /\b(?:yes|no|not|never|cannot|can't|won't|doesn't|don't|isn't|aren't|only|unfortunately|always|automatically|free|required|must)\b|n't\b/i;
const CONTACT =
  /[\w.+-]+@[\w-]+\.[\w.]+|https?:\/\/\S+|\bcontact (?:us|form|support)\b|\b(?:form|support team)\b/i;

/** Does the unit have the shape the question asks for (the steps, a yes or no, where to write)? */
function fitsShape(unit: AnswerUnit, shape: QuestionShape, next: AnswerUnit | undefined): boolean {
  switch (shape) {
    case "procedure":
    case "enumeration":
      return unit.kind === "list" || (unit.introduces && next?.kind === "list");
    case "yesno":
      return unit.kind === "sentence" && POLARITY.test(unit.text);
    case "contact":
      return CONTACT.test(unit.text);
    case "other":
      return false;
    default:
      return shape satisfies never;
  }
}

/**
 * How much of a question a set of terms covers, as a share of the question terms' weight: a term
 * the set holds counts in full; else 0.4 for a variant the stemmer keeps apart (the same first five
 * letters, or one word inside the other at an edge: German "Jahr"/"Jahren", "Zeit"/"Spielzeit"; see
 * retrieval/term-variants.ts), or failing that 0.7 for a near match in Arabic, Chinese or Japanese
 * (`isNearMatch`); a WordNet relative counts its share where that is more. What a term of the
 * passages says of each question term is worked out once a question, not once for every set
 * holding it: the sets are a unit's, its window's, its chunk's.
 */
class QuestionCoverage {
  private readonly terms: string[];
  private readonly weights: number[];
  private readonly profiles = new Map<string, TermProfile>();

  constructor(
    weights: Map<string, number>,
    private readonly total: number,
    private readonly related: Map<string, { term: string; factor: number }[]>,
  ) {
    this.terms = [...weights.keys()];
    this.weights = [...weights.values()];
  }

  of(set: Set<string>): number {
    if (this.total <= 0) return 0;
    const n = this.terms.length;
    const held = new Uint8Array(n);
    const variant = new Uint8Array(n);
    const near = new Uint8Array(n);
    const relative = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    for (const term of set) {
      const profile = this.profile(term);
      if (profile.held >= 0) held[profile.held] = 1;
      for (const at of profile.variantOf) variant[at] = 1;
      for (const at of profile.nearTo) near[at] = 1;
      for (const { at, factor } of profile.relativeOf)
        relative[at] = Math.max(relative[at] ?? factor, factor);
    }
    let matched = 0;
    this.weights.forEach((weight, at) => {
      if (held[at]) {
        matched += weight;
        return;
      }
      let share = variant[at] ? 0.4 : 0;
      if (share === 0 && near[at]) share = 0.7;
      share = Math.max(share, relative[at] ?? share);
      matched += share * weight;
    });
    return matched / this.total;
  }

  /** Which question term a term is, and of which it is a variant, a near match or a relative. */
  private profile(term: string): TermProfile {
    const known = this.profiles.get(term);
    if (known) return known;
    const profile: TermProfile = { held: -1, variantOf: [], nearTo: [], relativeOf: [] };
    this.terms.forEach((question, at) => {
      if (term === question) {
        profile.held = at;
        return;
      }
      const samePrefix = question.length >= 5 && term.length >= 5 && term.startsWith(question.slice(0, 5));
      if (samePrefix || (canHaveVariants(question) && canHaveVariants(term) && isEdgeVariant(question, term)))
        profile.variantOf.push(at);
      if (isNearMatch(question, term)) profile.nearTo.push(at);
      for (const r of this.related.get(question) ?? [])
        if (r.term === term) profile.relativeOf.push({ at, factor: r.factor });
    });
    this.profiles.set(term, profile);
    return profile;
  }
}

interface TermProfile {
  /** The question term it is (its position), −1 when none. */
  held: number;
  variantOf: number[];
  nearTo: number[];
  relativeOf: { at: number; factor: number }[];
}

/** Question term → the terms of its WordNet relatives ("money back" → "refund"), each with the share it counts for. */
function relatedTerms(
  question: string,
  expansion: ExpansionWeights | null,
): Map<string, { term: string; factor: number }[]> {
  const out = new Map<string, { term: string; factor: number }[]>();
  const wordnet = expansion ? sharedWordNet() : null;
  if (!wordnet || !expansion) return out;
  // Distinct words, at most MAX_QUESTION_TERMS: a repeated word used to add its relatives once per repeat.
  const words = [...new Set(tokenizeWords(question).filter((w) => !STOP_WORDS.has(w)))].slice(
    0,
    MAX_QUESTION_TERMS,
  );
  for (const { word, position, factor } of expandWords(wordnet, words, expansion)) {
    const source = stemWord(words[position] ?? "");
    const term = stemWord(word);
    if (term === source) continue;
    const list = out.get(source);
    if (list) list.push({ term, factor });
    else out.set(source, [{ term, factor }]);
  }
  return out;
}

const ARABIC = /^[\u0600-\u06ff]/;
const HAN_OR_KANA = /^[\u3040-\u30ff\u3400-\u9fff]/;

/**
 * A near match in scripts where one word can hold another: Arabic writes prepositions and
 * conjunctions onto the word ("لسلسلة" is "ل" + "سلسلة"), and Chinese or Japanese segmentation may
 * cut "表达式" in one sentence and "表达" + "式" in another.
 */
function isNearMatch(term: string, t: string): boolean {
  const arabic = ARABIC.test(term);
  if (!arabic && !HAN_OR_KANA.test(term)) return false;
  const [short, long] = t.length < term.length ? [t, term] : [term, t];
  if (short === long) return false;
  if (arabic)
    return short.length >= 3 && long.length - short.length <= 2 && long.endsWith(short) && ARABIC.test(t);
  return short.length >= 2 && long.includes(short);
}

function bigrams(terms: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < terms.length; i++) out.add(`${terms[i - 1]} ${terms[i]}`);
  return out;
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
