/**
 * How sure an answer is, and what the agent does with it. Confidence is a logistic model over the
 * evidence of confidence-features.ts, fitted on the tuning half of the help-center set
 * (bench/src/fit-confidence.ts writes confidence-weights.generated.ts): of the answers given
 * confidence ≈ c, a share ≈ c hold every fact the visitor needed. Each answer policy is a pair of
 * thresholds on it: at or above `answer` the answer is stated, at or above `doubt` it is offered with
 * a doubt (`uncertain`), below it the fallback message is sent.
 */
import type { AnswerOutcome, AnswerPolicy } from "@lore/shared";
import {
  type ConfidenceFeatures,
  confidenceFeatures,
  FEATURE_NAMES,
  type FeatureInput,
} from "./confidence-features.ts";
import { fittedConfidence } from "./confidence-weights.generated.ts";

export interface PolicyThresholds {
  /** Confidence at or above which the answer is stated. */
  answer: number;
  /** Confidence at or above which the answer is offered with a doubt; 0 never falls back while a source matches. */
  doubt: number;
}

export interface ConfidenceModel {
  bias: number;
  weights: ConfidenceFeatures;
  /**
   * The logistic's output mapped to the share right it had on the tuning half (isotonic, as
   * [probability, confidence] knots, increasing; linear between them): a logistic alone fits the
   * average, not every tenth.
   */
  calibration: [number, number][];
  policies: Record<AnswerPolicy, PolicyThresholds>;
}

/** The calibrated probability that the passage holds what was asked. */
export function confidenceOf(
  features: ConfidenceFeatures,
  model: ConfidenceModel = fittedConfidence,
): number {
  let z = model.bias;
  for (const name of FEATURE_NAMES) z += model.weights[name] * features[name];
  return round3(calibrate(1 / (1 + Math.exp(-z)), model.calibration));
}

/** Piecewise-linear through the knots, flat beyond the ends; the identity with no knots. */
export function calibrate(p: number, knots: readonly [number, number][]): number {
  const first = knots[0];
  const last = knots[knots.length - 1];
  if (!first || !last) return p;
  if (p <= first[0]) return first[1];
  if (p >= last[0]) return last[1];
  for (let i = 1; i < knots.length; i++) {
    const [x1, y1] = knots[i] ?? last;
    const [x0, y0] = knots[i - 1] ?? first;
    if (p <= x1) return x1 === x0 ? y1 : y0 + ((y1 - y0) * (p - x0)) / (x1 - x0);
  }
  return last[1];
}

/** The outcome a confidence leads to under a policy (there is something to offer: at least one source). */
export function outcomeFor(
  confidence: number,
  policy: AnswerPolicy,
  model: Pick<ConfidenceModel, "policies"> = fittedConfidence,
): AnswerOutcome {
  const t = model.policies[policy];
  if (confidence >= t.answer) return "answered";
  if (policy === "always" || confidence >= t.doubt) return "uncertain";
  return "fallback";
}

export interface Judgement {
  confidence: number;
  features: ConfidenceFeatures;
}

export function judge(input: FeatureInput, model: ConfidenceModel = fittedConfidence): Judgement {
  const features = confidenceFeatures(input);
  return { confidence: confidenceOf(features, model), features };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
