import type { LexicalFeatures } from "./lexical-index.ts";

/**
 * Every mode reports the same thing as its score: the estimated probability (0..1) that the chunk holds
 * the answer to the query. Each mode is a logistic model over its evidence, fitted on tuning data only
 * (see the models below) and reported on held-out questions, the help-center test half and PubMedQA.
 * Hybrid fuses lexical and vector evidence inside one model, so its weights are measured, not guessed.
 */
export interface LogisticModel {
  bias: number;
  weights: readonly number[];
}

export const keywordFeatureNames = [
  "bm25Norm",
  "bm25Rel",
  "coverage",
  "proximity",
  "bigram",
  "title",
  "sentence",
  "numberMatch",
  "numberMissing",
  "prefixCoverage",
  "docCoverage",
  "docRel",
  "meaning",
] as const;

/** The keyword model's evidence: the lexical features and the candidate's meaning evidence (word-vectors.ts). */
export function keywordFeatures(f: LexicalFeatures, meaning: number): number[] {
  return [...lexicalFeatures(f), meaning];
}

function lexicalFeatures(f: LexicalFeatures): number[] {
  return [
    f.bm25Norm,
    f.bm25Rel,
    f.coverage,
    f.proximity,
    f.bigram,
    f.title,
    f.sentence,
    f.numberMatch,
    f.numberMissing,
    f.prefixCoverage,
    f.docCoverage,
    f.docRel,
  ];
}

/** Cosine similarity and cosine relative to the query's best vector hit. */
export function semanticFeatures(cosine: number, cosineRel: number): number[] {
  return [cosine, cosineRel];
}

export function hybridFeatures(f: LexicalFeatures, cosine: number, cosineRel: number): number[] {
  return [...lexicalFeatures(f), cosine, cosineRel];
}

export function applyModel(model: LogisticModel, features: readonly number[]): number {
  let z = model.bias;
  for (let i = 0; i < features.length; i++) z += (model.weights[i] ?? 0) * (features[i] ?? 0);
  return 1 / (1 + Math.exp(-z));
}

// Listwise conditional logit for the ranking, then a Platt step for calibration. The keyword model is
// fitted by `bench/src/fit-ranking.ts` on SQuAD's tuning slice (dev half, every 5th question; label = the
// chunk contains a gold answer) and the help-center tuning half (label = a chunk of a gold article),
// each with an equal say. The semantic and hybrid models were fitted by `bench/src/retrieval-quality.ts
// --fit` with the hashed n-gram embedder (`hashed:256`) before the document features existed: the
// hybrid model gives docCoverage and docRel no weight until it is refitted. Another embedding model has
// its own cosine scale, so refit when changing the default model.
// The last keyword weight, `meaning` (word-vectors.ts), was chosen on the help-center tuning half over
// the fitted lexical weights (0.15–1.0 tried; 0.6 ranked a gold article in the top 3 for 0.838 of
// questions against 0.788 without it). Refitting every weight at once let SQuAD's tuning slice, with
// twelve times the questions, trade the help center's top-1 (0.65 → 0.638) for SQuAD's (0.853 → 0.856).
export const keywordModel: LogisticModel = {
  bias: -5.2972,
  weights: [
    0.7242, 1.1827, 0.8862, 0.735, 0.4386, 0.2125, 0.7556, -0.032, 0.0298, 0.9145, 0.197, 0.5246, 0.6,
  ],
};
/** The keyword model without its meaning evidence: what the words alone support. */
export const keywordLexicalModel: LogisticModel = {
  bias: keywordModel.bias,
  weights: keywordModel.weights.map((w, i) => (keywordFeatureNames[i] === "meaning" ? 0 : w)),
};
export const semanticModel: LogisticModel = { bias: -8.8911, weights: [3.1061, 5.7039] };
export const hybridModel: LogisticModel = {
  bias: -4.9669,
  weights: [
    0.5748, 1.2465, 0.9479, 0.7976, 0.5483, 0.056, 0.8483, 0.0921, -0.0032, 0.9296, 0, 0, 0.2085, 0.3695,
  ],
};
