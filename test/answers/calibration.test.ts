// The calibration rule of issue #29 on the half the confidence model was fitted on: in every tenth
// of confidence holding at least 10 answers, the mean confidence is within 0.10 of the share of
// those answers that hold every fact asked for. Re-run bench/src/fit-confidence.ts when it fails
// after a change to retrieval or the answerer.
import { describe, expect, it } from "vitest";
import { hasDatasets, loadHelpCenter } from "../../bench/src/datasets.ts";
import { calibrationBins, collectEvidence, confidencesOf } from "../../bench/src/lib/confidence-eval.ts";
import { fittedConfidence } from "../../server/src/generation/confidence-weights.generated.ts";

const withData = hasDatasets("the confidence calibration check", "helpcenter-duckduckgo");

describe("answer confidence", () => {
  it.runIf(withData)(
    "is calibrated on the tuning half: every tenth with ≥ 10 answers within 0.10 of its share right",
    async () => {
      const data = loadHelpCenter();
      const rows = await collectEvidence({
        ...data,
        questions: data.questions.filter((q) => q.half === "tuning"),
      });
      const bins = calibrationBins(rows, confidencesOf(rows, fittedConfidence));
      const counted = bins.filter((b) => b.count >= 10);
      expect(counted.length).toBeGreaterThanOrEqual(3);
      for (const b of counted)
        expect(
          Math.abs(b.meanConfidence - b.shareRight),
          `tenth ${b.from}: ${JSON.stringify(b)}`,
        ).toBeLessThanOrEqual(0.1);
      // Confidence means something: the top tenths hold more right answers than the bottom ones.
      const first = counted[0];
      const last = counted[counted.length - 1];
      expect(last?.shareRight ?? 0).toBeGreaterThan((first?.shareRight ?? 0) + 0.3);
    },
    180_000,
  );
});
