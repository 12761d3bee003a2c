/**
 * The evidence of every help-center answer, in-process (the default answerer over the sync's own
 * chunks, as `/query/` runs it), for fitting the confidence model (fit-confidence.ts) and checking its
 * calibration (test/answers/calibration.test.ts). Outcomes under any thresholds are simulated from it.
 */
import type { AnswerPolicy } from "@lore/shared";
import { createDefaultAnswerer } from "../../../server/src/answers/chat-models.ts";
import { decideAnswer, withArticlesThatMayHelp } from "../../../server/src/generation/answer-outcome.ts";
import { buildSources } from "../../../server/src/generation/citations.ts";
import {
  type ConfidenceModel,
  confidenceOf,
  type PolicyThresholds,
} from "../../../server/src/generation/confidence.ts";
import type { ConfidenceFeatures } from "../../../server/src/generation/confidence-features.ts";
import { containsFact, type HelpCenterData, type HelpQuestion } from "../datasets.ts";
import { FALLBACK, searchRetrieve } from "./helpcenter-eval.ts";
import { type HelpCenterIndex, indexHelpCenter } from "./helpcenter-index.ts";

/** Top chunks an answer draws on: the agents' default `retrieval.topK`. */
const TOP_K = 5;

export interface EvidenceRow {
  id: string;
  half: HelpQuestion["half"];
  kind: "answerable" | "unanswerable";
  /** null: nothing retrieved, always the fallback. */
  features: ConfidenceFeatures | null;
  /** Every fact of the item is in the passage offered (never, for unanswerable items). */
  right: boolean;
  /** A gold article is among the first three distinct source titles an uncertain answer lists. */
  goldListed: boolean;
}

/** Answers every answerable and unanswerable item once and keeps its evidence. */
export async function collectEvidence(data: HelpCenterData, hc?: HelpCenterIndex): Promise<EvidenceRow[]> {
  const index = hc ?? (await indexHelpCenter(data));
  const titleOf = new Map(data.articles.map((a) => [a.path, a.title]));
  const retrieve = searchRetrieve(index, { topK: TOP_K, minScore: 0 });
  const model = createDefaultAnswerer();
  const rows: EvidenceRow[] = [];
  for (const q of data.questions) {
    if (q.kind === "followup") continue;
    const question = q.question ?? "";
    const chunks = await retrieve(question, q);
    let raw = "";
    for await (const e of model.generate({
      question,
      history: [],
      chunks,
      instructions: "",
      fallbackMessage: FALLBACK,
      temperature: 0,
      maxTokens: 500,
    }))
      if (e.type === "token") raw += e.token;
    // `always` keeps the passage whatever the confidence, so every item has its evidence.
    const decision = decideAnswer({
      question,
      chunks,
      raw,
      fallbackMessage: FALLBACK,
      policy: "always",
      vocabulary: index.index.unknownTerms(question),
      closestPassage: model.closestPassage,
    });
    const built = buildSources(decision.passage, chunks, {
      isFallback: decision.outcome === "fallback",
      question,
    });
    const sources = decision.features ? withArticlesThatMayHelp(built.sources, chunks) : [];
    const goldTitles = new Set(q.gold.flatMap((p) => titleOf.get(p) ?? []));
    const distinct = [...new Set(sources.map((s) => s.title))].slice(0, 3);
    rows.push({
      id: q.id,
      half: q.half,
      kind: q.kind,
      features: decision.features,
      right:
        q.kind === "answerable" &&
        decision.features !== null &&
        q.facts.length > 0 &&
        q.facts.every((f) => containsFact(decision.passage, f)),
      goldListed: distinct.some((t) => goldTitles.has(t)),
    });
  }
  return rows;
}

export interface PolicyMetrics {
  answerable: number;
  unanswerable: number;
  /** Shares of answerable items: answered and every fact in the response. */
  right: number;
  /** Uncertain, and the fact is in the response or a gold article is listed. */
  helped: number;
  /** Answered with a fact missing. */
  wrong: number;
  /** Shares of unanswerable items: uncertain or fallback. */
  honest: number;
  unanswerableAnswered: number;
  /** Share of all items offered with a doubt that helps nobody (not helped, or unanswerable). */
  uselessDoubt: number;
}

/** The outcomes of the rows under one pair of thresholds, counted as helpcenter.ts counts them. */
export function simulate(
  rows: readonly EvidenceRow[],
  confidences: readonly number[],
  t: PolicyThresholds,
  policy: AnswerPolicy = "balanced",
): PolicyMetrics {
  let answerable = 0;
  let unanswerable = 0;
  let right = 0;
  let helped = 0;
  let wrong = 0;
  let honest = 0;
  let useless = 0;
  rows.forEach((row, i) => {
    const c = confidences[i] ?? 0;
    const outcome =
      row.features === null
        ? "fallback"
        : c >= t.answer
          ? "answered"
          : policy === "always" || (c > 0 && c >= t.doubt)
            ? "uncertain"
            : "fallback";
    if (row.kind === "unanswerable") {
      unanswerable++;
      if (outcome !== "answered") honest++;
      if (outcome === "uncertain") useless++;
      return;
    }
    answerable++;
    if (outcome === "answered") {
      if (row.right) right++;
      else wrong++;
    } else if (outcome === "uncertain") {
      if (row.right || row.goldListed) helped++;
      else useless++;
    }
  });
  const share = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 1000) / 1000);
  return {
    answerable,
    unanswerable,
    right: share(right, answerable),
    helped: share(helped, answerable),
    wrong: share(wrong, answerable),
    honest: share(honest, unanswerable),
    unanswerableAnswered: share(unanswerable - honest, unanswerable),
    uselessDoubt: share(useless, answerable + unanswerable),
  };
}

export interface CalibrationBin {
  /** Lower edge of the tenth: 0, 0.1, … 0.9. */
  from: number;
  count: number;
  meanConfidence: number;
  shareRight: number;
}

/** Confidence in tenths vs the share of those answers holding every fact (unanswerable items never do). */
export function calibrationBins(
  rows: readonly EvidenceRow[],
  confidences: readonly number[],
): CalibrationBin[] {
  const bins = Array.from({ length: 10 }, (_, i) => ({ from: i / 10, count: 0, sum: 0, right: 0 }));
  rows.forEach((row, i) => {
    const c = confidences[i] ?? 0;
    const bin = bins[Math.min(9, Math.floor(c * 10))];
    if (!bin) return;
    bin.count++;
    bin.sum += c;
    if (row.right) bin.right++;
  });
  return bins.map((b) => ({
    from: b.from,
    count: b.count,
    meanConfidence: b.count ? Math.round((b.sum / b.count) * 1000) / 1000 : 0,
    shareRight: b.count ? Math.round((b.right / b.count) * 1000) / 1000 : 0,
  }));
}

/** The rows' confidences under a model (0 for rows with nothing retrieved). */
export function confidencesOf(rows: readonly EvidenceRow[], model: ConfidenceModel): number[] {
  return rows.map((r) => (r.features ? confidenceOf(r.features, model) : 0));
}
