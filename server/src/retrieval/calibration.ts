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
] as const;

export function keywordFeatures(f: LexicalFeatures): number[] {
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
  return [...keywordFeatures(f), cosine, cosineRel];
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
export const keywordModel: LogisticModel = {
  bias: -5.2972,
  weights: [0.7242, 1.1827, 0.8862, 0.735, 0.4386, 0.2125, 0.7556, -0.032, 0.0298, 0.9145, 0.197, 0.5246],
};
export const semanticModel: LogisticModel = { bias: -8.8911, weights: [3.1061, 5.7039] };
export const hybridModel: LogisticModel = {
  bias: -4.9669,
  weights: [
    0.5748, 1.2465, 0.9479, 0.7976, 0.5483, 0.056, 0.8483, 0.0921, -0.0032, 0.9296, 0, 0, 0.2085, 0.3695,
  ],
};
