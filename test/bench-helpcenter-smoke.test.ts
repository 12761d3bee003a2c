// Keeps the help-center benchmark from rotting: a few items per kind over their gold articles,
// both ingest modes, through the same code path as `npm run bench`.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hasDatasets, loadHelpCenter } from "../bench/src/datasets.ts";
import { helpcenterTable, markdownFile, runHelpCenter } from "../bench/src/helpcenter.ts";

const resultsDir = mkdtempSync(join(tmpdir(), "lore-bench-helpcenter-smoke-"));
afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

const inUnitRange = (value: number) => {
  expect(value).toBeGreaterThanOrEqual(0);
  expect(value).toBeLessThanOrEqual(1);
};

const withData = hasDatasets("the help-center benchmark smoke run", "helpcenter-duckduckgo");

describe("help-center benchmark (smoke)", () => {
  it.runIf(withData)("splits every kind into alternating tuning and test halves", () => {
    const { questions } = loadHelpCenter();
    for (const kind of ["answerable", "unanswerable", "followup"] as const) {
      const halves = questions.filter((q) => q.kind === kind).map((q) => q.half);
      expect(halves.slice(0, 4)).toEqual(["tuning", "test", "tuning", "test"]);
    }
  });

  it("writes the title into the uploaded file's front matter", () => {
    const file = markdownFile({
      path: "_docs/a.md",
      title: "Is it free?",
      category: "FAQ",
      content: "\nYes.",
    });
    expect(file).toBe('---\ntitle: "Is it free?"\n---\n\nYes.');
  });

  it.runIf(withData)(
    "measures retrieval, answers, fallbacks and follow-ups per half and ingest mode",
    { timeout: 90_000 },
    async () => {
      const result = await runHelpCenter({ questions: 4, articles: 24, resultsDir });

      expect(result.articles).toBe(24);
      expect(result.runs.map((r) => r.ingest)).toEqual(["text", "md"]);
      for (const run of result.runs) {
        expect(run.documents).toBe(24);
        // Every indexed document is titled after its article, in both modes.
        expect(run.unmatchedTitles).toEqual([]);
      }
      const systems = new Set(result.rows.map((r) => r.system));
      expect(systems).toContain("Lore (default server)");
      expect(systems).toContain("LanceDB FTS (raw)");
      expect(systems).toContain("wink-bm25-text-search");
      for (const row of result.rows) {
        expect(row.questions).toBe(2);
        for (const value of Object.values(row.recall)) inUnitRange(value);
        inUnitRange(row.mrr);
        expect(row.recall["@10"]).toBeGreaterThanOrEqual(row.recall["@1"] ?? 2);
      }
      expect(result.halves.map((s) => `${s.ingest} ${s.half}`)).toEqual([
        "text tuning",
        "text test",
        "md tuning",
        "md test",
      ]);
      for (const s of result.halves) {
        expect(s.answers.questions).toBe(2);
        expect(s.unanswerable.questions).toBe(2);
        expect(s.followUps.pairs).toBe(2);
        for (const value of [
          s.answers.answered,
          s.answers.factContainment,
          s.answers.firstCitationCorrect,
          s.unanswerable.fallbackRate,
          s.followUps.oneConversation.factContainment,
          s.followUps.oneConversation.firstCitationCorrect,
          s.followUps.alone.factContainment,
          s.followUps.alone.firstCitationCorrect,
        ])
          inUnitRange(value);
        expect(s.answers.latencyMs.n).toBe(2);
      }
      // Retrieval over a couple dozen articles finds most gold articles in the top 10.
      const lore = result.rows.filter((r) => r.system === "Lore (default server)");
      expect(lore.reduce((sum, r) => sum + (r.recall["@10"] ?? 0), 0) / lore.length).toBeGreaterThan(0.5);
      expect(result.items).toHaveLength(2 * 12);

      expect(existsSync(join(resultsDir, "helpcenter.json"))).toBe(true);
      const written = JSON.parse(readFileSync(join(resultsDir, "helpcenter.json"), "utf8")) as {
        benchmark: string;
        items: { id: string; response: string }[];
      };
      expect(written.benchmark).toBe("helpcenter");
      expect(written.items[0]?.id).toBe("a001");
      expect(helpcenterTable(result)).toContain("| `text` entries, test | Lore (default server) | keyword |");
    },
  );
});
