/**
 * In-process, no HTTP (issue #32 item 2): LexicalIndex.search for a 1,000-chunk data source, in an
 * index holding only it and in one holding N chunks (that source plus sources of 10,000; the
 * direct corpus's synthetic passages), questions alternating between the two. Takes the root of a
 * checkout, so two versions of lexical-index.ts can be compared from one script (a main worktree
 * without partitioned postings against this one):
 *
 *   node_modules/.bin/tsx bench/src/lexical-partition.ts <checkout root> [chunks, default 300000]
 */
import { loadavg } from "node:os";
import { resolve } from "node:path";

const root = resolve(process.argv[2] ?? ".");
const size = Number(process.argv[3] ?? 300_000);
const { LexicalIndex } = await import(`${root}/server/src/retrieval/lexical-index.ts`);
const { loadSquad } = await import(`${root}/bench/src/datasets.ts`);
const { sentencePool, syntheticEntries } = await import(`${root}/bench/src/lib/synthetic.ts`);

type Index = InstanceType<typeof LexicalIndex>;
const squad = loadSquad();
const pool = sentencePool(squad);
const alone: Index = new LexicalIndex();
const big: Index = new LexicalIndex();
const started = performance.now();
for (let d = 0; d < size; d += 100) {
  const source = d < 1000 ? 0 : 1 + Math.floor((d - 1000) / 10_000);
  for (const entry of syntheticEntries(pool, d, 100) as { title: string; content: string }[]) {
    big.add(entry.content, entry.title, source, d / 100);
    if (source === 0) alone.add(entry.content, entry.title, 0, d / 100);
  }
}
const buildSeconds = Math.round((performance.now() - started) / 1000);
const questions = (squad.questions as { index: number; question: string }[])
  .filter((q) => q.index % 7 === 3)
  .map((q) => q.question);
const own = new Set([0]);
for (const q of questions.slice(0, 50)) {
  alone.search(q, own);
  big.search(q, own);
}
const times = { alone: [] as number[], big: [] as number[] };
for (let i = 0; i < 400; i++) {
  const q = questions[(i * 13 + 100) % questions.length] ?? "";
  const order = i % 2 === 0 ? (["big", "alone"] as const) : (["alone", "big"] as const);
  for (const side of order) {
    const t = performance.now();
    (side === "big" ? big : alone).search(q, own);
    times[side].push(performance.now() - t);
  }
}
const at = (xs: number[], p: number) =>
  Number(([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0).toFixed(2));
console.log(
  JSON.stringify({
    root,
    chunks: big.size,
    agentChunks: alone.size,
    buildSeconds,
    aloneMs: { p50: at(times.alone, 0.5), p95: at(times.alone, 0.95) },
    bigMs: { p50: at(times.big, 0.5), p95: at(times.big, 0.95) },
    loadAverage: loadavg().map((x) => Number(x.toFixed(1))),
  }),
);
