/**
 * In-process evaluation of the help-center set for tuning (no HTTP, no server): parses and chunks the
 * articles as a sync does, indexes them in a temporary LanceDB, then searches and answers each question
 * with the default answerer. Parameters are chosen on the tuning half only; `--half test` reports the
 * other half once they are fixed.
 *
 *   node_modules/.bin/tsx bench/src/helpcenter-tune.ts [--half tuning|test|all] [--min-score X] [--show N]
 */
import { createExtractiveModel } from "../../server/src/generation/extractive-model.ts";
import type { ChatMessage, RetrievedChunk } from "../../server/src/generation/types.ts";
import { containsFact, loadHelpCenter } from "./datasets.ts";
import { indexHelpCenter } from "./lib/helpcenter-index.ts";
import { summarize } from "./lib/stats.ts";

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const half = arg("--half") ?? "tuning";
const minScore = Number(arg("--min-score") ?? 0);
const show = Number(arg("--show") ?? 0);
const topK = Number(arg("--top-k") ?? 5);
const FALLBACK = "I couldn't find an answer to that in the knowledge base.";

const data = loadHelpCenter();
const t0 = performance.now();
const {
  index,
  sourceId,
  pathOf: titleByDoc,
} = await indexHelpCenter(data, { lexical: JSON.parse(arg("--lexical") ?? "{}") });
console.error(`indexed ${index.size} chunks in ${Math.round(performance.now() - t0)} ms`);

const model = createExtractiveModel(JSON.parse(arg("--answer") ?? "{}"));

async function retrieve(query: string): Promise<RetrievedChunk[]> {
  const hits = await index.search({ query, dataSourceIds: [sourceId], topK, minScore, mode: "keyword" });
  return hits.map(({ chunk, score }) => ({
    chunkId: chunk.id,
    documentId: chunk.documentId,
    dataSourceId: chunk.dataSourceId,
    dataSourceName: "hc",
    kind: chunk.kind,
    title: chunk.title,
    sourceUrl: null,
    text: chunk.text,
    score,
    page: null,
    headingPath: chunk.headingPath,
  }));
}

async function answer(question: string, history: ChatMessage[]) {
  const standalone = history.length > 0 ? await model.condense(question, history) : question;
  const started = performance.now();
  const chunks = await retrieve(standalone);
  let text = "";
  for await (const e of model.generate({
    question: standalone,
    history,
    chunks,
    instructions: "",
    fallbackMessage: FALLBACK,
    temperature: 0,
    maxTokens: 500,
  }))
    if (e.type === "token") text += e.token;
  const ms = performance.now() - started;
  const cited = [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  const first = cited[0] !== undefined ? chunks[cited[0] - 1] : undefined;
  return { text, chunks, first, ms, fallback: text.trim() === FALLBACK, standalone };
}

const pathOf = (c: RetrievedChunk | undefined) => (c ? titleByDoc.get(c.documentId) : undefined);
const items = data.questions.filter((q) => half === "all" || q.half === half);
const m = { hit1: 0, hit3: 0, hit5: 0, mrr: 0, n: 0, facts: 0, first: 0, answered: 0, un: 0, unFallback: 0 };
const fu = { n: 0, facts: 0, alone: 0, first: 0 };
const ms: number[] = [];
const words: number[] = [];
const failures: string[] = [];
for (const q of items) {
  if (q.kind === "followup") {
    const a1 = await answer(q.first ?? "", []);
    const history: ChatMessage[] = [
      { role: "user", content: q.first ?? "" },
      { role: "assistant", content: a1.text },
    ];
    const a2 = await answer(q.second ?? "", history);
    const alone = await answer(q.second ?? "", []);
    fu.n++;
    if (q.facts.every((f) => containsFact(a2.text, f))) fu.facts++;
    else
      failures.push(
        `FU ${q.id} "${q.second}" → [${a2.standalone}] ${pathOf(a2.first)} :: ${a2.text.slice(0, 200)}`,
      );
    if (q.facts.every((f) => containsFact(alone.text, f))) fu.alone++;
    if (q.gold.includes(pathOf(a2.first) ?? "")) fu.first++;
    continue;
  }
  const question = q.question ?? "";
  const a = await answer(question, []);
  ms.push(a.ms);
  if (q.kind === "unanswerable") {
    m.un++;
    if (a.fallback) m.unFallback++;
    else failures.push(`UN ${q.id} "${question}" answered: ${a.text.slice(0, 160)}`);
    continue;
  }
  m.n++;
  const top = pathOf(a.chunks[0]);
  const searchHits = await index.search({
    query: question,
    dataSourceIds: [sourceId],
    topK: 10,
    minScore: 0,
    mode: "keyword",
  });
  const rank = searchHits.findIndex((h) => q.gold.includes(titleByDoc.get(h.chunk.documentId) ?? "")) + 1;
  if (rank === 1) m.hit1++;
  if (rank >= 1 && rank <= 3) m.hit3++;
  if (rank >= 1 && rank <= 5) m.hit5++;
  if (rank >= 1) m.mrr += 1 / rank;
  if (!a.fallback) {
    m.answered++;
    words.push(a.text.split(/\s+/).length);
  }
  const factOk = q.facts.every((f) => containsFact(a.text, f));
  if (factOk) m.facts++;
  if (q.gold.includes(pathOf(a.first) ?? "")) m.first++;
  if (!factOk)
    failures.push(
      `AN ${q.id} r${rank} "${question}" facts=${JSON.stringify(q.facts)} gold=${q.gold[0]?.split("/").pop()} top=${top?.split("/").pop()} :: ${a.text.replace(/\n/g, "⏎").slice(0, 220)}`,
    );
}
const r = (x: number, n: number) => (n ? Math.round((x / n) * 1000) / 1000 : 0);
words.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    half,
    minScore,
    answerable: m.n,
    hit1: r(m.hit1, m.n),
    hit3: r(m.hit3, m.n),
    hit5: r(m.hit5, m.n),
    mrr: r(m.mrr, m.n),
    facts: r(m.facts, m.n),
    firstCitation: r(m.first, m.n),
    answered: r(m.answered, m.n),
    unanswerableFallback: r(m.unFallback, m.un),
    followupFacts: r(fu.facts, fu.n),
    followupAloneFacts: r(fu.alone, fu.n),
    followupFirst: r(fu.first, fu.n),
    medianWords: words[Math.floor(words.length / 2)] ?? 0,
    ms: summarize(ms),
  }),
);
for (const f of failures.slice(0, show)) console.log(f);
