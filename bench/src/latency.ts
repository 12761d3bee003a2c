/**
 * Query latency through HTTP with the extractive answerer at 10k, 100k (and 1M when the ingest
 * fits the time budget) chunks: p50/p95/p99 of `POST /query/` and of `POST /search/` alone,
 * sequential requests after a warm-up, server in its own process. The corpus: synthetic passages
 * of 4 real SQuAD sentences each, 100 passages per document, ingested as `text` sources of about
 * 10,000 chunks (two syncing at a time).
 *
 *   node_modules/.bin/tsx bench/src/latency.ts [--sizes 10000,100000,1000000] [--requests 300] [--budget-min 30]
 */
import { fileURLToPath } from "node:url";
import type { DataSource } from "@lore/shared";
import { loadSquad } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { type LatencySummary, round, summarize } from "./lib/stats.ts";
import { sentencePool, syntheticDocuments } from "./lib/synthetic.ts";

export interface LatencyRow {
  chunks: number;
  ingestSeconds: number;
  chunksPerSecond: number;
  search: LatencySummary;
  query: LatencySummary;
  /** Server-reported retrieval time inside /query/ (median). */
  queryRetrievalP50: number;
  serverRssMiB: number | null;
}

export interface LatencyResult {
  rows: LatencyRow[];
  skipped: string[];
  path: string;
}

const CHUNKS_PER_SOURCE = 10_000;

export async function runLatency(
  options: { sizes?: number[]; requests?: number; budgetMinutes?: number; resultsDir?: string } = {},
): Promise<LatencyResult> {
  const sizes = options.sizes ?? [10_000, 100_000, 1_000_000];
  const requests = options.requests ?? 300;
  const budgetMs = (options.budgetMinutes ?? 30) * 60_000;
  const data = loadSquad();
  const pool = sentencePool(data);
  const questions = data.questions.filter((q) => q.index % 7 === 3).map((q) => q.question);
  const rows: LatencyRow[] = [];
  const skipped: string[] = [];
  // Two sync workers only to build the corpus sooner; queries are measured after ingestion ends.
  // A million chunks of text sources hold ~2.6 GB of source configs on the heap besides the index.
  const server = await startBenchServer({ LORE_SYNC_CONCURRENCY: "2" }, ["--max-old-space-size=16384"]);
  const begun = Date.now();
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const agent = await client.createAgent("Latency");
    const sources: DataSource[] = [];
    let chunks = 0;
    let rate = 0;
    let chunksPerDoc = 0;
    let docs = 0;
    for (const target of sizes) {
      const estimateMs = rate > 0 ? ((target - chunks) / rate) * 1000 : 0;
      if (rate > 0 && Date.now() - begun + estimateMs > budgetMs) {
        skipped.push(
          `${target.toLocaleString("en")} chunks: skipped, the ingest would take about ${round(estimateMs / 60_000, 1)} min more at ${round(rate)} chunks/s (budget ${round(budgetMs / 60_000)} min)`,
        );
        log(`latency: ${skipped.at(-1)}`);
        continue;
      }
      const started = performance.now();
      const before = chunks;
      while (chunks < target * 0.98) {
        // About CHUNKS_PER_SOURCE chunks per source; two at a time for the two sync workers.
        const perSource = chunksPerDoc > 0 ? Math.ceil(CHUNKS_PER_SOURCE / chunksPerDoc) : 100;
        const wanted = chunksPerDoc > 0 ? Math.ceil((target - chunks) / chunksPerDoc) : perSource;
        const batch: DataSource[] = [];
        for (let n = Math.min(2, Math.ceil(wanted / perSource)); n > 0; n--) {
          const count = Math.min(perSource, Math.max(1, wanted - batch.length * perSource));
          const entries = syntheticDocuments(pool, docs, count);
          docs += count;
          batch.push(await client.createTextSource(`Synthetic ${sources.length + batch.length}`, entries));
        }
        for (const s of batch) sources.push(await client.waitReady(s.id, 4 * 60 * 60_000, 1000));
        chunks = sources.reduce((n, s) => n + s.chunkCount, 0);
        chunksPerDoc = chunks / docs;
        log(`latency: ${chunks} chunks so far (${docs} documents)`);
      }
      const ingestSeconds = round((performance.now() - started) / 1000, 1);
      rate = (chunks - before) / Math.max(0.001, ingestSeconds);
      await client.attach(
        agent.id,
        sources.map((s) => s.id),
      );
      log(`latency: ${chunks} chunks (+${chunks - before} in ${ingestSeconds}s, ${round(rate)} chunks/s)`);

      const warm = questions.slice(0, 30);
      for (const q of warm) await client.search(agent.id, q, 5);
      for (const q of warm) await client.query(agent.id, q);
      const sample = Array.from(
        { length: requests },
        (_, i) => questions[(i * 13 + 100) % questions.length] ?? "",
      );
      const searchMs: number[] = [];
      for (const q of sample) {
        const t = performance.now();
        await client.search(agent.id, q, 5);
        searchMs.push(performance.now() - t);
      }
      const queryMs: number[] = [];
      const retrievalMs: number[] = [];
      for (const q of sample) {
        const t = performance.now();
        const res = await client.query(agent.id, q);
        queryMs.push(performance.now() - t);
        retrievalMs.push(res.metadata.retrievalTime);
      }
      const rss = server.rssKiB();
      rows.push({
        chunks,
        ingestSeconds,
        chunksPerSecond: round(rate, 1),
        search: summarize(searchMs),
        query: summarize(queryMs),
        queryRetrievalP50: summarize(retrievalMs).p50,
        serverRssMiB: rss === null ? null : round(rss / 1024, 0),
      });
      log(`latency: ${JSON.stringify(rows.at(-1))}`);
    }
  } finally {
    await server.close();
  }
  const path = writeResult("latency", { requests, rows, skipped }, options.resultsDir);
  return { rows, skipped, path };
}

export function latencyTable(result: LatencyResult): string {
  return markdownTable(
    [
      "chunks",
      "/search/ p50",
      "p95",
      "p99",
      "/query/ p50",
      "p95",
      "p99",
      "ingest chunks/s",
      "server RSS MiB",
    ],
    result.rows.map((r) => [
      r.chunks,
      r.search.p50,
      r.search.p95,
      r.search.p99,
      r.query.p50,
      r.query.p95,
      r.query.p99,
      r.chunksPerSecond,
      r.serverRssMiB,
    ]),
  );
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = arg("--sizes")?.split(",").map(Number);
  const requests = arg("--requests");
  const budget = arg("--budget-min");
  const result = await runLatency({
    sizes,
    requests: requests ? Number(requests) : undefined,
    budgetMinutes: budget ? Number(budget) : undefined,
  });
  console.log(latencyTable(result));
  for (const s of result.skipped) console.log(s);
  console.log(`wrote ${result.path}`);
}
