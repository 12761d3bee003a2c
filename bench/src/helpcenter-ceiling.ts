/**
 * What the embedded default (BM25 ranker + extractive answerer, no model) can and cannot reach on the
 * help-center set (issue #14), in-process:
 *
 * 1. Variants: every parameter the tuning explored, each run on both halves (chosen on the tuning
 *    half only; the test-half column is the report, never the choice).
 * 2. Ceilings that no parameter of this pipeline can pass:
 *    - retrieval: the gold article among the ranker's 100 candidates (a perfect reranker's hit@1),
 *      and questions sharing no distinctive word with their gold article (a paraphrase gap only a
 *      model of meaning bridges);
 *    - answers: the answerer given only the gold article's chunks (perfect retrieval), at the 60-word
 *      budget and with no budget;
 *    - refusals: the best unanswerable-fallback rate any threshold on the top retrieval score reaches
 *      while answering ≥ 90% of answerable questions.
 *
 *   node_modules/.bin/tsx bench/src/helpcenter-ceiling.ts [--no-variants]
 */

import { fileURLToPath } from "node:url";
import {
  createExtractiveModel,
  defaultExtractiveOptions,
  type ExtractiveOptions,
} from "../../server/src/generation/extractive-model.ts";
import type { LexicalParams } from "../../server/src/retrieval/lexical-index.ts";
import { analyze } from "../../server/src/retrieval/text-analysis.ts";
import { segmentSentences } from "../../server/src/text/segment.ts";
import { type HelpCenterData, type HelpQuestion, loadHelpCenter } from "./datasets.ts";
import {
  evaluate,
  type HalfMetrics,
  type Retrieve,
  retrievedChunk,
  searchRetrieve,
} from "./lib/helpcenter-eval.ts";
import { type HelpCenterIndex, indexHelpCenter } from "./lib/helpcenter-index.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";

type Half = "tuning" | "test";
const HALVES: readonly Half[] = ["tuning", "test"];

interface Variant {
  name: string;
  lexical?: Partial<LexicalParams>;
  answer?: Partial<ExtractiveOptions>;
  topK?: number;
  minScore?: number;
}

const VARIANTS: readonly Variant[] = [
  { name: "default" },
  { name: "no title field (titleWeight 0)", lexical: { titleWeight: 0 } },
  { name: "title field ×4", lexical: { titleWeight: 4 } },
  { name: "no typo tolerance", lexical: { typos: false } },
  { name: "no WordNet expansion in retrieval", lexical: { synonyms: null } },
  { name: "BM25 k1 0.9, b 0.4", lexical: { k1: 0.9, b: 0.4 } },
  { name: "50 rerank candidates", lexical: { candidates: 50 } },
  { name: "200 rerank candidates", lexical: { candidates: 200 } },
  { name: "answer from top 3 chunks", topK: 3 },
  { name: "answer from top 8 chunks", topK: 8 },
  { name: "minScore 0.1", minScore: 0.1 },
  { name: "minScore 0.2", minScore: 0.2 },
  { name: "evidence floor 0.15", answer: { relevanceFloor: 0.15 } },
  { name: "evidence floor 0.30", answer: { relevanceFloor: 0.3 } },
  { name: "evidence floor 0.40", answer: { relevanceFloor: 0.4 } },
  { name: "evidence floor 0.50", answer: { relevanceFloor: 0.5 } },
  { name: "no WordNet in the answerer", answer: { expansion: null } },
  { name: "answers ≤ 40 words", answer: { maxWords: 40 } },
  { name: "answers ≤ 100 words, 5 sentences", answer: { maxWords: 100, maxSentences: 5 } },
  { name: "cite a second chunk at 0.9 of the best", answer: { otherChunkRatio: 0.9 } },
];

/** The default answerer with one weight changed. */
function withWeights(weights: Partial<ExtractiveOptions["weights"]>): Partial<ExtractiveOptions> {
  return { weights: { ...defaultExtractiveOptions.weights, ...weights } };
}

const WEIGHT_VARIANTS: readonly Variant[] = [
  { name: "no shape bonus (steps, yes/no, number)", answer: withWeights({ shape: 0 }) },
  { name: "no section-lead bonus", answer: withWeights({ lead: 0 }) },
  { name: "no retrieval-rank weight in the answerer", answer: withWeights({ rank: 0 }) },
  { name: "retrieval-rank weight 0.3", answer: withWeights({ rank: 0.3 }) },
  { name: "answer-type weight ×2", answer: withWeights({ answerType: 0.16 }) },
];

// Loaded on first use: run-all imports this module whether or not the dataset is there.
let loaded: HelpCenterData | undefined;
const helpCenter = (): HelpCenterData => (loaded ??= loadHelpCenter());
const itemsOf = (half: Half) => helpCenter().questions.filter((q) => q.half === half);
const indexes = new Map<string, HelpCenterIndex>();

async function indexFor(lexical: Partial<LexicalParams> = {}): Promise<HelpCenterIndex> {
  const key = JSON.stringify(lexical);
  let hc = indexes.get(key);
  if (!hc) {
    hc = await indexHelpCenter(helpCenter(), { lexical });
    indexes.set(key, hc);
  }
  return hc;
}

const pct = (x: number) => x.toFixed(3);

async function runVariants(): Promise<{ variant: string; half: Half; metrics: HalfMetrics }[]> {
  const rows: { variant: string; half: Half; metrics: HalfMetrics }[] = [];
  for (const v of [...VARIANTS, ...WEIGHT_VARIANTS]) {
    const hc = await indexFor(v.lexical);
    const model = createExtractiveModel(v.answer ?? {});
    const retrieve = searchRetrieve(hc, { topK: v.topK ?? 5, minScore: v.minScore ?? 0 });
    for (const half of HALVES) {
      const { metrics } = await evaluate(hc, model, retrieve, itemsOf(half));
      rows.push({ variant: v.name, half, metrics });
    }
    log(`ceiling: variant "${v.name}" done`);
  }
  return rows;
}

/** Retrieval with perfect article choice: the ranker's order inside the gold articles only. */
function oracleRetrieve(hc: HelpCenterIndex, topK: number): Retrieve {
  return async (query, item) => {
    if (item.gold.length === 0) return searchRetrieve(hc, { topK, minScore: 0 })(query, item);
    const ranked = await searchRetrieve(hc, { topK: 100, minScore: 0 })(query, item);
    const gold = ranked.filter((c) => item.gold.includes(hc.pathOf.get(c.documentId) ?? ""));
    if (gold.length > 0) return gold.slice(0, topK);
    // Not even a candidate: the article's chunks in document order, as middling evidence.
    return hc.chunks
      .filter((c) => item.gold.includes(hc.pathOf.get(c.documentId) ?? ""))
      .slice(0, topK)
      .map((chunk) => retrievedChunk(chunk, 0.5));
  };
}

interface RetrievalCeiling {
  answerable: number;
  /** Gold article among the ranker's 100 candidates: no reranking of them can do better at hit@1. */
  candidateRecall100: number;
  /** Questions whose gold article shares no distinctive word (in ≤ 10% of articles) with them. */
  noDistinctiveSharedWord: number;
  /** … and no content word at all. */
  noSharedWord: number;
  /** hit@1 of the questions that share a distinctive word with their gold article, and of the rest. */
  hit1WithDistinctive: number;
  hit1WithoutDistinctive: number;
  /** Some fact of the question sits in sentences sharing no content word with the question or their heading. */
  factSentenceUnmatched: number;
}

async function retrievalCeiling(hc: HelpCenterIndex, half: Half): Promise<RetrievalCeiling> {
  const articleTerms = new Map(
    helpCenter().articles.map((a) => [a.path, new Set(analyze(`${a.title}\n${a.content}`))]),
  );
  const df = new Map<string, number>();
  for (const terms of articleTerms.values()) for (const t of terms) df.set(t, (df.get(t) ?? 0) + 1);
  const distinctive = (t: string) => (df.get(t) ?? 0) <= helpCenter().articles.length * 0.1;
  const items = itemsOf(half).filter((q) => q.kind === "answerable");
  let inCandidates = 0;
  let noDistinctive = 0;
  let none = 0;
  const hit = { with: 0, without: 0 };
  let unmatchedFact = 0;
  for (const q of items) {
    const question = q.question ?? "";
    const hits = await hc.index.search({
      query: question,
      dataSourceIds: [hc.sourceId],
      topK: 100,
      minScore: 0,
      mode: "keyword",
    });
    if (hits.some((h) => q.gold.includes(hc.pathOf.get(h.chunk.documentId) ?? ""))) inCandidates++;
    const terms = new Set(analyze(question));
    const gold = new Set(q.gold.flatMap((p) => [...(articleTerms.get(p) ?? [])]));
    const shared = [...terms].filter((t) => gold.has(t));
    if (shared.length === 0) none++;
    const top = hits[0] && q.gold.includes(hc.pathOf.get(hits[0].chunk.documentId) ?? "");
    if (!shared.some(distinctive)) {
      noDistinctive++;
      if (top) hit.without++;
    } else if (top) hit.with++;
    if (q.facts.some((fact) => !factSentenceMatches(q, fact, terms))) unmatchedFact++;
  }
  const r = (x: number) => Math.round((x / items.length) * 1000) / 1000;
  return {
    answerable: items.length,
    candidateRecall100: r(inCandidates),
    noDistinctiveSharedWord: r(noDistinctive),
    noSharedWord: r(none),
    hit1WithDistinctive: Math.round((hit.with / (items.length - noDistinctive)) * 1000) / 1000,
    hit1WithoutDistinctive: Math.round((hit.without / noDistinctive) * 1000) / 1000,
    factSentenceUnmatched: r(unmatchedFact),
  };
}

/**
 * Whether a sentence holding the fact (or the heading above it) shares a content word with the
 * question: if none does, no lexical sentence choice prefers it over the article's other sentences.
 */
function factSentenceMatches(q: HelpQuestion, fact: string, questionTerms: ReadonlySet<string>): boolean {
  const squash = (s: string) => s.toLowerCase().replace(/\s+/g, " ");
  for (const path of q.gold) {
    const article = helpCenter().articles.find((a) => a.path === path);
    if (!article) continue;
    let heading = article.title;
    for (const block of article.content.split(/\n\s*\n/)) {
      const h = /^#+\s+(.*)/.exec(block.trim());
      if (h?.[1]) heading = h[1];
      for (const { text } of segmentSentences(block)) {
        if (!squash(text).includes(squash(fact))) continue;
        if (analyze(`${heading} ${text}`).some((t) => questionTerms.has(t))) return true;
      }
    }
  }
  return false;
}

interface RefusalCeiling {
  /** Best unanswerable→fallback rate of any threshold on the top score that still answers ≥ 90%. */
  bestFallbackAtAnswered90: number;
  threshold: number;
  /** Share of unanswerable questions whose top score beats the median answerable question's. */
  unanswerableAboveMedianAnswerable: number;
}

async function refusalCeiling(hc: HelpCenterIndex, half: Half): Promise<RefusalCeiling> {
  const top = async (q: HelpQuestion) => {
    const hits = await hc.index.search({
      query: q.question ?? "",
      dataSourceIds: [hc.sourceId],
      topK: 1,
      minScore: 0,
      mode: "keyword",
    });
    return hits[0]?.score ?? 0;
  };
  const answerable: number[] = [];
  const unanswerable: number[] = [];
  for (const q of itemsOf(half)) {
    if (q.kind === "answerable") answerable.push(await top(q));
    if (q.kind === "unanswerable") unanswerable.push(await top(q));
  }
  answerable.sort((a, b) => a - b);
  // Answering ≥ 90% means the threshold is at most the answerable scores' 10th percentile.
  const threshold = answerable[Math.floor(answerable.length * 0.1)] ?? 0;
  const below = unanswerable.filter((s) => s < threshold).length;
  const median = answerable[Math.floor(answerable.length / 2)] ?? 0;
  return {
    bestFallbackAtAnswered90: Math.round((below / unanswerable.length) * 1000) / 1000,
    threshold: Math.round(threshold * 1000) / 1000,
    unanswerableAboveMedianAnswerable:
      Math.round((unanswerable.filter((s) => s > median).length / unanswerable.length) * 1000) / 1000,
  };
}

export interface CeilingResult {
  ceilings: Record<Half, HalfCeiling>;
  variants: { variant: string; half: Half; metrics: HalfMetrics }[];
  path?: string;
}

export interface HalfCeiling {
  retrieval: RetrievalCeiling;
  refusal: RefusalCeiling;
  /** The answerer given only the gold article's chunks (in the ranker's order). */
  perfectRetrieval: { facts: number; firstCitation: number; answered: number; medianWords: number };
  perfectRetrievalUnboundedLength: { facts: number; medianWords: number };
}

export async function runHelpCenterCeiling(options: { variants?: boolean } = {}): Promise<CeilingResult> {
  const hc = await indexFor();
  const ceilings = {} as Record<Half, HalfCeiling>;
  for (const half of HALVES) {
    const oracle60 = await evaluate(hc, createExtractiveModel(), oracleRetrieve(hc, 5), itemsOf(half));
    const oracleLong = await evaluate(
      hc,
      createExtractiveModel({ maxWords: 1000, maxSentences: 50 }),
      oracleRetrieve(hc, 5),
      itemsOf(half),
    );
    ceilings[half] = {
      retrieval: await retrievalCeiling(hc, half),
      refusal: await refusalCeiling(hc, half),
      perfectRetrieval: {
        facts: oracle60.metrics.facts,
        firstCitation: oracle60.metrics.firstCitation,
        answered: oracle60.metrics.answered,
        medianWords: oracle60.metrics.medianWords,
      },
      perfectRetrievalUnboundedLength: {
        facts: oracleLong.metrics.facts,
        medianWords: oracleLong.metrics.medianWords,
      },
    };
    log(`ceiling: ${half} ${JSON.stringify(ceilings[half])}`);
  }
  const variants = options.variants === false ? [] : await runVariants();
  const result: CeilingResult = { ceilings, variants };
  return { ...result, path: writeResult("helpcenter-ceiling", { ...result }) };
}

export function ceilingTable(result: CeilingResult): string {
  const c = (half: Half) => result.ceilings[half];
  const ceilingRows: [string, (h: HalfCeiling) => number | string][] = [
    ["gold article among the ranker's 100 candidates", (h) => pct(h.retrieval.candidateRecall100)],
    [
      "questions sharing no distinctive word with the gold article",
      (h) => pct(h.retrieval.noDistinctiveSharedWord),
    ],
    ["hit@1 of questions sharing a distinctive word", (h) => pct(h.retrieval.hit1WithDistinctive)],
    ["hit@1 of questions sharing none", (h) => pct(h.retrieval.hit1WithoutDistinctive)],
    ["a fact in sentences sharing no word with the question", (h) => pct(h.retrieval.factSentenceUnmatched)],
    ["perfect retrieval: fact containment (≤ 60 words)", (h) => pct(h.perfectRetrieval.facts)],
    ["perfect retrieval: first citation correct", (h) => pct(h.perfectRetrieval.firstCitation)],
    ["perfect retrieval: answered", (h) => pct(h.perfectRetrieval.answered)],
    [
      "perfect retrieval, no length budget: fact containment",
      (h) => pct(h.perfectRetrievalUnboundedLength.facts),
    ],
    ["… its median words", (h) => h.perfectRetrievalUnboundedLength.medianWords],
    [
      "best fallback of a top-score threshold answering ≥ 90%",
      (h) => pct(h.refusal.bestFallbackAtAnswered90),
    ],
    [
      "unanswerables scoring above the median answerable",
      (h) => pct(h.refusal.unanswerableAboveMedianAnswerable),
    ],
  ];
  const ceilings = markdownTable(
    ["measure", "tuning", "test"],
    ceilingRows.map(([name, value]) => [name, value(c("tuning")), value(c("test"))]),
  );
  const variants = markdownTable(
    [
      "variant",
      "half",
      "hit@1",
      "hit@5",
      "facts",
      "first citation",
      "answered",
      "fallback",
      "follow-ups",
      "words",
    ],
    result.variants.map(({ variant, half, metrics: m }) => [
      variant,
      half,
      pct(m.hit1),
      pct(m.hit5),
      pct(m.facts),
      pct(m.firstCitation),
      pct(m.answered),
      pct(m.unanswerableFallback),
      pct(m.followupFacts),
      m.medianWords,
    ]),
  );
  return result.variants.length > 0
    ? `${ceilings}

${variants}`
    : ceilings;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runHelpCenterCeiling({ variants: !process.argv.includes("--no-variants") });
  console.log(ceilingTable(result));
  console.log(`wrote ${result.path}`);
}
