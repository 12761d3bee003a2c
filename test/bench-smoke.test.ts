// Keeps the benchmark harness from rotting: a tiny SQuAD run through the same code path as
// `npm run bench` (server in its own process, HTTP search and query, peers, JSON result).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hasDatasets } from "../bench/src/datasets.ts";
import { pronounFollowUp, runSquad, squadTable } from "../bench/src/squad.ts";

const resultsDir = mkdtempSync(join(tmpdir(), "lore-bench-smoke-"));
afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

describe("benchmark harness (smoke)", () => {
  it.runIf(hasDatasets("the SQuAD benchmark smoke run", "squad-v1.1-dev"))(
    "measures SQuAD recall for Lore and its peers and writes the JSON result",
    { timeout: 90_000 },
    async () => {
      const result = await runSquad({ articles: 2, questions: 50, hashed: false, followUps: 3, resultsDir });

      const systems = new Set(result.rows.map((r) => r.system));
      expect(systems).toContain("Lore (default server)");
      expect(systems).toContain("LanceDB FTS (raw)");
      expect(systems).toContain("wink-bm25-text-search");
      for (const row of result.rows) {
        for (const value of Object.values(row.recall)) {
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
        }
        // Recall can only grow with k.
        expect(row.recall["@20"]).toBeGreaterThanOrEqual(row.recall["@1"] ?? 2);
      }
      const lore = result.rows.find((r) => r.system === "Lore (default server)" && r.questions === 50);
      // Two articles, questions about them: retrieval that works finds most answers in the top 20.
      expect(lore?.recall["@20"]).toBeGreaterThan(0.5);
      expect(result.chunks).toBeGreaterThan(2);
      expect(result.answers.questions).toBe(10);
      expect(result.answers.answerRecall).toBeGreaterThanOrEqual(0);
      expect(result.answers.answerRecall).toBeLessThanOrEqual(1);
      expect(result.answers.citationPrecision).toBeLessThanOrEqual(1);

      expect(existsSync(join(resultsDir, "squad.json"))).toBe(true);
      const written = JSON.parse(readFileSync(join(resultsDir, "squad.json"), "utf8")) as {
        benchmark: string;
        machine: { nproc: number };
        rows: unknown[];
      };
      expect(written.benchmark).toBe("squad");
      expect(written.machine.nproc).toBeGreaterThan(0);
      expect(written.rows).toHaveLength(result.rows.length);
      expect(squadTable(result)).toContain("| Lore (default server) | keyword |");
    },
  );

  it("turns a question naming the article's subject into a pronoun follow-up", () => {
    expect(pronounFollowUp("Where did Super Bowl 50 take place?", "Super_Bowl_50")).toBe(
      "Where did it take place?",
    );
    expect(pronounFollowUp("Who won the game?", "Super_Bowl_50")).toBeNull();
  });
});
