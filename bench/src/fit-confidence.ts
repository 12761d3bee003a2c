/**
 * Fits the answer-confidence model (server/src/generation/confidence.ts) on the TUNING half of the
 * help-center set only, and chooses each answer policy's two thresholds there; writes the result into
 * server/src/generation/confidence-weights.generated.ts. Re-run after any change to retrieval, the
 * answerer or the features (one command; the test half is never read):
 *
 *   node_modules/.bin/tsx bench/src/fit-confidence.ts
 *
 * Label: every fact of the item is in the passage offered (unanswerable items: never). Model: logistic
 * regression with a small L2 penalty on the features of confidence-features.ts (all in 0..1).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AnswerPolicy } from "@lore/shared";
import type { ConfidenceModel, PolicyThresholds } from "../../server/src/generation/confidence.ts";
import { FEATURE_NAMES } from "../../server/src/generation/confidence-features.ts";
import { loadHelpCenter } from "./datasets.ts";
import {
  calibrationBins,
  collectEvidence,
  confidencesOf,
  type EvidenceRow,
  simulate,
} from "./lib/confidence-eval.ts";
import { markdownTable } from "./lib/report.ts";

const OUT = fileURLToPath(
  new URL("../../server/src/generation/confidence-weights.generated.ts", import.meta.url),
);
const L2 = 0.01;
const ITERATIONS = 20000;
const STEP = 0.5;
/**
 * Features whose direction is known whatever the corpus (issue #50: features that hold outside the
 * tuning set): a fallback, a passage of the wrong kind and words the knowledge base never mentions can
 * only lower confidence. The fit keeps their weights at or below 0 (projected gradient descent).
 */
const NEVER_POSITIVE: ReadonlySet<string> = new Set(["fellBack", "kindMismatch", "unknown"]);

/** Logistic regression by gradient descent (features in 0..1, a few hundred rows: plenty). */
export function fitLogistic(
  rows: readonly EvidenceRow[],
): Pick<ConfidenceModel, "bias" | "weights" | "calibration"> {
  const data = rows.flatMap((r) =>
    r.features ? [{ x: FEATURE_NAMES.map((f) => r.features?.[f] ?? 0), y: r.right ? 1 : 0 }] : [],
  );
  const w = new Array<number>(FEATURE_NAMES.length).fill(0);
  let b = 0;
  const n = data.length;
  for (let it = 0; it < ITERATIONS; it++) {
    const gw = new Array<number>(w.length).fill(0);
    let gb = 0;
    for (const { x, y } of data) {
      let z = b;
      x.forEach((v, j) => {
        z += (w[j] ?? 0) * v;
      });
      const err = 1 / (1 + Math.exp(-z)) - y;
      gb += err;
      x.forEach((v, j) => {
        gw[j] = (gw[j] ?? 0) + err * v;
      });
    }
    b -= (STEP * gb) / n;
    w.forEach((v, j) => {
      const next = v - STEP * ((gw[j] ?? 0) / n + L2 * v);
      w[j] = NEVER_POSITIVE.has(FEATURE_NAMES[j] ?? "") ? Math.min(0, next) : next;
    });
  }
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  const calibration = isotonicKnots(
    data.map(({ x, y }) => ({ p: 1 / (1 + Math.exp(-x.reduce((z, v, j) => z + (w[j] ?? 0) * v, b))), y })),
  );
  return {
    calibration,
    bias: r4(b),
    weights: Object.fromEntries(
      FEATURE_NAMES.map((f, j) => [f, r4(w[j] ?? 0)]),
    ) as ConfidenceModel["weights"],
  };
}

/**
 * Isotonic regression (pool adjacent violators) of the label on the logistic's output, as knots at
 * each pooled block's mean output: the map `calibrate` in confidence.ts interpolates. Blocks under
 * MIN_BLOCK items are pooled with their closer neighbour and every block's share is shrunk towards the
 * overall share by PRIOR_ITEMS pseudo-items: a hundred items would otherwise fit their own noise.
 */
const MIN_BLOCK = 12;
const PRIOR_ITEMS = 2;
export function isotonicKnots(points: readonly { p: number; y: number }[]): [number, number][] {
  const sorted = [...points].sort((a, b) => a.p - b.p);
  interface Block {
    sumP: number;
    sumY: number;
    n: number;
  }
  const merge = (a: Block, b: Block): Block => ({
    sumP: a.sumP + b.sumP,
    sumY: a.sumY + b.sumY,
    n: a.n + b.n,
  });
  const mean = (b: Block) => b.sumY / b.n;
  const blocks: Block[] = [];
  for (const { p, y } of sorted) {
    blocks.push({ sumP: p, sumY: y, n: 1 });
    while (blocks.length >= 2) {
      const b = blocks[blocks.length - 1];
      const a = blocks[blocks.length - 2];
      if (!a || !b || mean(a) < mean(b)) break;
      blocks.splice(-2, 2, merge(a, b));
    }
  }
  for (let small = blocks.findIndex((b) => b.n < MIN_BLOCK); small >= 0 && blocks.length > 1; ) {
    const b = blocks[small] as Block;
    const before = blocks[small - 1];
    const after = blocks[small + 1];
    const withBefore =
      before !== undefined &&
      (after === undefined || Math.abs(mean(before) - mean(b)) <= Math.abs(mean(after) - mean(b)));
    if (withBefore) blocks.splice(small - 1, 2, merge(before, b));
    else if (after) blocks.splice(small, 2, merge(b, after));
    small = blocks.findIndex((x) => x.n < MIN_BLOCK);
  }
  const overall = points.length > 0 ? points.reduce((s, p) => s + p.y, 0) / points.length : 0;
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  return blocks.map((b) => [r4(b.sumP / b.n), r4((b.sumY + PRIOR_ITEMS * overall) / (b.n + PRIOR_ITEMS))]);
}

/** What each policy must keep to on the tuning half; among the thresholds that do, the most useful wins. */
interface Limit {
  wrong: number;
  unanswerableAnswered: number;
  /** How much a right answer counts over a helpful doubt. */
  rightWeight: number;
  /** What a doubt that helps nobody costs (the visitor reads a passage for nothing). */
  uselessDoubtCost: number;
}
const LIMITS: Record<Exclude<AnswerPolicy, "always">, Limit> = {
  strict: { wrong: 0.075, unanswerableAnswered: 0.1, rightWeight: 1.5, uselessDoubtCost: 2 },
  balanced: { wrong: 0.1, unanswerableAnswered: 0.2, rightWeight: 2.5, uselessDoubtCost: 0.3 },
  lenient: { wrong: 0.3, unanswerableAnswered: 0.4, rightWeight: 3, uselessDoubtCost: 0.1 },
};

export function chooseThresholds(rows: readonly EvidenceRow[], confidences: readonly number[]) {
  const grid: number[] = [];
  for (let t = 0; t <= 1.0001; t += 0.025) grid.push(Math.round(t * 1000) / 1000);
  const choose = (limit: Limit): PolicyThresholds => {
    let best: { t: PolicyThresholds; score: number } | null = null;
    // Doubts from the highest down: among equally useful thresholds the fallback covers the most,
    // since it says plainly what a doubt that helps nobody says with a passage to read.
    for (const answer of grid)
      for (const doubt of [...grid].reverse()) {
        if (doubt > answer) continue;
        const m = simulate(rows, confidences, { answer, doubt });
        if (m.wrong > limit.wrong || m.unanswerableAnswered > limit.unanswerableAnswered) continue;
        // A doubt that helps nobody costs the visitor a read: the fallback is better then.
        const score = limit.rightWeight * m.right + m.helped - limit.uselessDoubtCost * m.uselessDoubt;
        if (!best || score > best.score + 1e-9) best = { t: { answer, doubt }, score };
      }
    return best?.t ?? { answer: 1, doubt: 0 };
  };
  const strict = choose(LIMITS.strict);
  const balanced = choose(LIMITS.balanced);
  const lenient = choose(LIMITS.lenient);
  return { strict, balanced, lenient, always: { answer: lenient.answer, doubt: 0 } };
}

function generatedFile(model: ConfidenceModel): string {
  return `// Generated by bench/src/fit-confidence.ts from the tuning half of helpcenter-duckduckgo: do not edit.
// Re-run: node_modules/.bin/tsx bench/src/fit-confidence.ts
import type { ConfidenceModel } from "./confidence.ts";

export const fittedConfidence: ConfidenceModel = ${JSON.stringify(model, null, 2).replace(/"(\w+)":/g, "$1:")};
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const data = loadHelpCenter();
  const all = await collectEvidence(data);
  const tuning = all.filter((r) => r.half === "tuning");
  const fitted = fitLogistic(tuning);
  const confidences = confidencesOf(tuning, { ...fitted, policies: {} as ConfidenceModel["policies"] });
  const policies = chooseThresholds(tuning, confidences);
  const model: ConfidenceModel = { ...fitted, policies };
  writeFileSync(OUT, generatedFile(model));
  // In the repository's own format, so `biome check` stays clean after a re-run.
  execFileSync(
    fileURLToPath(new URL("../../node_modules/.bin/biome", import.meta.url)),
    ["format", "--write", OUT],
    {
      stdio: "ignore",
    },
  );
  console.log(JSON.stringify(model, null, 2));
  console.log(
    markdownTable(
      ["policy", "answer ≥", "doubt ≥", "right", "helped", "wrong", "unanswerable honest"],
      (Object.keys(policies) as AnswerPolicy[]).map((p) => {
        const m = simulate(tuning, confidences, policies[p], p);
        return [p, policies[p].answer, policies[p].doubt, m.right, m.helped, m.wrong, m.honest];
      }),
    ),
  );
  console.log(
    markdownTable(
      ["confidence", "items", "mean confidence", "share right"],
      calibrationBins(tuning, confidences).map((b) => [
        `${b.from.toFixed(1)}–${(b.from + 0.1).toFixed(1)}`,
        b.count,
        b.meanConfidence,
        b.shareRight,
      ]),
    ),
  );
  console.log(`wrote ${OUT} (tuning half: ${tuning.length} items)`);
}
