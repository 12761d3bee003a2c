/**
 * The keyword index of two checkouts side by side, in one process: the other checkout's
 * `LexicalIndex` (`--base`, e.g. a worktree of main) and this one's, both fed the same synthetic
 * chunks (`--chunks`, the passages `scale.ts` writes: 4 SQuAD sentences, 100 a document, a source per
 * 10,000), then asked the same SQuAD questions in turn, alternating which side goes first. Prints
 * both sides' search latency and the ratio of their means, and how many of the searches gave
 * byte-identical candidates (slots and every feature): a change meant to be faster or smaller
 * only must show all of them. No HTTP, no server: the index alone, where an A/B of two servers
 * (query-ab.ts) would mostly measure the rest.
 *
 *   node_modules/.bin/tsx bench/src/lexical-ab.ts --base ../main [--chunks 200000] [--requests 300]
 *
 * Not part of `npm run bench` (it needs a second checkout).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { defaultLexicalParams, LexicalIndex } from "@lore/server/retrieval/lexical-index.ts";
import { loadSquad } from "./datasets.ts";
import { markdownTable } from "./lib/report.ts";
import { round, summarize } from "./lib/stats.ts";
import { sentencePool, syntheticEntries } from "./lib/synthetic.ts";

type Index = Pick<LexicalIndex, "add" | "search">;

export async function runLexicalAb(basePath: string, size: number, requests: number) {
  const base = (await import(
    pathToFileURL(resolve(basePath, "server/src/retrieval/lexical-index.ts")).href
  )) as { LexicalIndex: new (params: typeof defaultLexicalParams) => Index };
  const squad = loadSquad();
  const pool = sentencePool(squad);
  const sides: { label: string; index: Index; ms: number[] }[] = [
    { label: "base", index: new base.LexicalIndex(defaultLexicalParams), ms: [] },
    { label: "this", index: new LexicalIndex(defaultLexicalParams), ms: [] },
  ];
  for (let first = 0, source = 0; first < size; first += 10_000, source++)
    for (let d = first; d < Math.min(size, first + 10_000); d += 100)
      for (const p of syntheticEntries(pool, d, Math.min(100, size - d)))
        for (const side of sides)
          side.index.add(p.content, `Document ${d / 100} ${p.title}`, source, d / 100);
  const questions = squad.questions.filter((q) => q.index % 7 === 3).map((q) => q.question);
  const allowed = new Set(Array.from({ length: Math.ceil(size / 10_000) }, (_, i) => i));
  for (const q of questions.slice(0, 30)) for (const side of sides) side.index.search(q, allowed);
  let identical = 0;
  for (let i = 0; i < requests; i++) {
    const q = questions[(i * 13 + 100) % questions.length] ?? "";
    const results: string[] = [];
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const started = performance.now();
      const found = side.index.search(q, allowed);
      side.ms.push(performance.now() - started);
      results.push(JSON.stringify(found));
    }
    if (results[0] === results[1]) identical++;
  }
  const [before, after] = sides.map((s) => ({ label: s.label, ...summarize(s.ms) }));
  const ratio = round((after?.mean ?? 0) / (before?.mean ?? 1), 3);
  return { chunks: size, requests, identical, ratio, sides: [before, after] };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      base: { type: "string" },
      chunks: { type: "string", default: "200000" },
      requests: { type: "string", default: "300" },
    },
  });
  if (!values.base) throw new Error("lexical-ab: --base <other checkout> is required");
  const result = await runLexicalAb(values.base, Number(values.chunks), Number(values.requests));
  console.log(
    markdownTable(
      ["side", "p50 ms", "p95 ms", "mean ms"],
      result.sides.map((s) => [s?.label ?? "", s?.p50 ?? 0, s?.p95 ?? 0, round(s?.mean ?? 0, 2)]),
    ),
  );
  console.log(
    `${result.chunks} chunks, ${result.requests} searches: mean this/base ×${result.ratio}; identical candidates ${result.identical}/${result.requests}`,
  );
}
