/** Model fitting for the rankers' calibration (see server/src/retrieval/calibration.ts). */
import type { LogisticModel } from "../../../server/src/retrieval/calibration.ts";

/** One query's candidates: features and whether each is relevant. `weight` scales the query's say in the fit. */
export type Group = { features: number[]; label: number }[] & { weight?: number };

function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function fitLogistic(x: number[][], y: number[], l2 = 1e-3): LogisticModel {
  const d = (x[0]?.length ?? 0) + 1;
  const w = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 30; iter++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (let n = 0; n < x.length; n++) {
      const row = [1, ...(x[n] as number[])];
      let z = 0;
      for (let i = 0; i < d; i++) z += (w[i] as number) * (row[i] as number);
      const p = 1 / (1 + Math.exp(-z));
      const err = p - (y[n] as number);
      const s = p * (1 - p);
      for (let i = 0; i < d; i++) {
        grad[i] = (grad[i] as number) + err * (row[i] as number);
        const hi = hess[i] as number[];
        for (let j = 0; j < d; j++) hi[j] = (hi[j] as number) + s * (row[i] as number) * (row[j] as number);
      }
    }
    for (let i = 1; i < d; i++) {
      grad[i] = (grad[i] as number) + l2 * x.length * (w[i] as number);
      const hi = hess[i] as number[];
      hi[i] = (hi[i] as number) + l2 * x.length;
    }
    if (newtonStep(w, hess, grad) < 1e-6) break;
  }
  return { bias: round(w[0] as number, 4), weights: w.slice(1).map((v) => round(v, 4)) };
}

/**
 * Conditional logit (listwise softmax over each query's candidates): weights that rank the relevant
 * candidates first; then a Platt step maps the ranking score to a calibrated probability.
 */
export function fitListwise(groups: Group[], l2 = 1e-2): LogisticModel {
  const usable = groups.filter((g) => g.some((c) => c.label === 1) && g.some((c) => c.label === 0));
  const d = usable[0]?.[0]?.features.length ?? 0;
  const totalWeight = usable.reduce((sum, g) => sum + (g.weight ?? 1), 0);
  const w = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 40; iter++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const group of usable) {
      const gw = group.weight ?? 1;
      const scores = group.map((c) => c.features.reduce((s, x, i) => s + x * (w[i] as number), 0));
      const max = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - max));
      const z = e.reduce((a, b) => a + b, 0);
      const p = e.map((v) => v / z);
      const positives = group.filter((c) => c.label === 1);
      // Target: the relevant candidates share the probability mass.
      const mean = new Array<number>(d).fill(0);
      group.forEach((c, n) => {
        c.features.forEach((x, i) => {
          mean[i] = (mean[i] as number) + (p[n] as number) * x;
        });
      });
      for (const c of positives) {
        c.features.forEach((x, i) => {
          grad[i] = (grad[i] as number) - (gw * (x - (mean[i] as number))) / positives.length;
        });
      }
      group.forEach((c, n) => {
        for (let i = 0; i < d; i++) {
          const hi = hess[i] as number[];
          const xi = (c.features[i] as number) - (mean[i] as number);
          for (let j = 0; j < d; j++)
            hi[j] =
              (hi[j] as number) +
              gw * (p[n] as number) * xi * ((c.features[j] as number) - (mean[j] as number));
        }
      });
    }
    for (let i = 0; i < d; i++) {
      grad[i] = (grad[i] as number) + l2 * totalWeight * (w[i] as number);
      const hi = hess[i] as number[];
      hi[i] = (hi[i] as number) + l2 * totalWeight;
    }
    // Backtracking: a full step can overshoot (a strong feature makes the softmax steep).
    if (newtonStep(w, hess, grad, (at) => listwiseLoss(usable, at, l2 * totalWeight)) < 1e-6) break;
  }
  const flat = groups.flat();
  const platt = fitLogistic(
    flat.map((c) => [c.features.reduce((s, x, i) => s + x * (w[i] as number), 0)]),
    flat.map((c) => c.label),
    0,
  );
  const a = platt.weights[0] ?? 1;
  return { bias: platt.bias, weights: w.map((v) => round(v * a, 4)) };
}

/** The conditional logit's loss: the relevant candidates' mean negative log-probability, plus the L2 term. */
function listwiseLoss(groups: Group[], w: readonly number[], l2: number): number {
  let loss = 0;
  for (const group of groups) {
    const scores = group.map((c) => c.features.reduce((s, x, i) => s + x * (w[i] as number), 0));
    const max = Math.max(...scores);
    const logZ = max + Math.log(scores.reduce((sum, s) => sum + Math.exp(s - max), 0));
    const positives = scores.filter((_, n) => group[n]?.label === 1);
    loss += ((group.weight ?? 1) * positives.reduce((sum, s) => sum + (logZ - s), 0)) / positives.length;
  }
  return loss + (l2 / 2) * w.reduce((sum, v) => sum + v * v, 0);
}

/**
 * Applies one Newton step to `w` in place; returns its largest change. With `loss`, the step is
 * halved until the loss does not rise (down to 1/10,000 of it).
 */
function newtonStep(
  w: number[],
  hess: number[][],
  grad: number[],
  loss?: (weights: readonly number[]) => number,
): number {
  const step = solve(hess, grad);
  const at = (t: number) => w.map((v, i) => v - t * (step[i] as number));
  let t = 1;
  let next = at(t);
  if (loss) {
    const before = loss(w);
    while (t > 1e-4 && loss(next) > before) {
      t /= 2;
      next = at(t);
    }
  }
  let change = 0;
  next.forEach((v, i) => {
    change = Math.max(change, Math.abs(v - (w[i] as number)));
    w[i] = v;
  });
  return change;
}

function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]?.[c] ?? 0) > Math.abs(m[pivot]?.[c] ?? 0)) pivot = r;
    [m[c], m[pivot]] = [m[pivot] as number[], m[c] as number[]];
    const pc = m[c] as number[];
    const div = pc[c] || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const pr = m[r] as number[];
      const f = (pr[c] as number) / div;
      for (let k = c; k <= n; k++) pr[k] = (pr[k] as number) - f * (pc[k] as number);
    }
  }
  return m.map((row, i) => (row[n] as number) / ((row[i] as number) || 1e-12));
}
