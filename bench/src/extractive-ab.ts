/**
 * The extractive answerer of two checkouts side by side, in one process: the other checkout's
 * `composeExtractiveAnswer` (`--base`, e.g. a worktree of main) and this one's, given the same
 * question and chunks: every `--every`th XQuAD question of each language with its own paragraph
 * and the two after it as chunks (ranked in that order), alternating which side goes first.
 * Prints both sides' time per answer and how many answers differ: a change meant to be faster
 * only must show none, in every language (their stemmers, variants and near matches differ).
 *
 *   node_modules/.bin/tsx bench/src/extractive-ab.ts --base ../main [--every 4]
 *
 * Not part of `npm run bench` (it needs a second checkout).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { composeExtractiveAnswer } from "@lore/server/generation/extractive-model.ts";
import type { RetrievedChunk } from "@lore/server/generation/types.ts";
import { markdownTable } from "./lib/report.ts";
import { round } from "./lib/stats.ts";
import { loadXquad, xquadLanguages } from "./xquad.ts";

type Compose = typeof composeExtractiveAnswer;

export async function runExtractiveAb(basePath: string, every: number) {
  const base = (await import(
    pathToFileURL(resolve(basePath, "server/src/generation/extractive-model.ts")).href
  )) as { composeExtractiveAnswer: Compose };
  const sides: { label: string; compose: Compose; ms: number }[] = [
    { label: "base", compose: base.composeExtractiveAnswer, ms: 0 },
    { label: "this", compose: composeExtractiveAnswer, ms: 0 },
  ];
  const rows: { language: string; answers: number; differing: number }[] = [];
  for (const language of xquadLanguages) {
    const data = loadXquad(language);
    const chunk = (paragraph: number, rank: number): RetrievedChunk => ({
      chunkId: `${language}-${paragraph}`,
      documentId: `${language}-${paragraph}`,
      dataSourceId: "xquad",
      dataSourceName: "XQuAD",
      kind: "text",
      title: `Paragraph ${paragraph}`,
      sourceUrl: null,
      text: data.paragraphs[paragraph] ?? "",
      score: 1 / (1 + rank),
      page: null,
      headingPath: [],
    });
    let answers = 0;
    let differing = 0;
    data.questions.forEach((q, i) => {
      if (i % every !== 0) return;
      const count = data.paragraphs.length;
      const chunks = [0, 1, 2].map((k) => chunk((q.paragraph + k) % count, k));
      const results: string[] = [];
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        const started = performance.now();
        const result = side.compose(q.question, chunks, "(fallback)");
        side.ms += performance.now() - started;
        results.push(JSON.stringify([result.answer, result.usedChunks.map((c) => c.chunkId)]));
      }
      answers++;
      if (results[0] !== results[1]) differing++;
    });
    rows.push({ language, answers, differing });
  }
  const answers = rows.reduce((sum, r) => sum + r.answers, 0);
  return {
    rows,
    sides: sides.map((s) => ({ label: s.label, msPerAnswer: round(s.ms / answers, 3) })),
    ratio: round((sides[1]?.ms ?? 0) / (sides[0]?.ms || 1), 3),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: { base: { type: "string" }, every: { type: "string", default: "4" } },
  });
  if (!values.base) throw new Error("extractive-ab: --base <other checkout> is required");
  const result = await runExtractiveAb(values.base, Number(values.every));
  console.log(
    markdownTable(
      ["language", "answers", "differing"],
      result.rows.map((r) => [r.language, r.answers, r.differing]),
    ),
  );
  console.log(
    `ms per answer: ${result.sides.map((s) => `${s.label} ${s.msPerAnswer}`).join(", ")}; this/base ×${result.ratio}`,
  );
}
