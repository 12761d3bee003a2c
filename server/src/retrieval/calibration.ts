import type { LexicalFeatures } from "./lexical-index.ts";

/**
 * Every mode reports the same thing as its score: the estimated probability (0..1) that the chunk holds
 * the answer to the query. Each mode is a logistic model over its evidence, fitted by
 * `bench/src/retrieval-quality.ts --fit` on a tuning slice (questions of SQuAD's dev-v1.1.json half,
 * every 5th; label = the chunk contains a gold answer) and reported on held-out questions and PubMedQA.
 * Hybrid fuses lexical and vector evidence inside one model, so its weights are measured, not guessed.
 */
export interface LogisticModel {
  bias: number;
  weights: readonly number[];
}

export const keywordFeatureNames = ["bm25Norm", "bm25Rel", "coverage", "proximity", "bigram", "title"] as const;

export function keywordFeatures(f: LexicalFeatures): number[] {
  return [f.bm25Norm, f.bm25Rel, f.coverage, f.proximity, f.bigram, f.title];
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

// Fitted weights (see the comment at the top); refit when features change.
export const keywordModel: LogisticModel = { bias: -6, weights: [2, 3, 1, 2, 1, 0.5] };
export const semanticModel: LogisticModel = { bias: -6, weights: [4, 3] };
export const hybridModel: LogisticModel = { bias: -7, weights: [2, 3, 1, 2, 1, 0.5, 2, 2] };
