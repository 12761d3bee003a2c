/**
 * PubMedQA PQA-L through the HTTP API: the 1,000 abstracts as documents (title = PMID), gold-document
 * recall@1/3/5/10 through `POST /agents/{id}/search/`, peers on the same chunks side by side.
 *
 *   node_modules/.bin/tsx bench/src/pubmedqa.ts [--limit N]
 */
import { fileURLToPath } from "node:url";
import { loadPubmedQa } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { langchainBm25, rawLanceFts, readProductChunks, winkBm25 } from "./lib/peers.ts";
import { evalPeer, type RecallRow, rankAll, recallRow } from "./lib/recall.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { round } from "./lib/stats.ts";

const ks = [1, 3, 5, 10] as const;

export interface PubmedResult {
  documents: number;
  chunks: number;
  ingestSeconds: number;
  rows: RecallRow[];
  notes: string[];
  path: string;
}

export async function runPubmedQa(
  options: { limit?: number; resultsDir?: string } = {},
): Promise<PubmedResult> {
  const items = loadPubmedQa().slice(0, options.limit ?? 1000);
  const queries = items.map((i) => ({ text: i.question, pmid: i.pmid }));
  const data = `PubMedQA PQA-L (${items.length} q)`;
  const rows: RecallRow[] = [];
  const notes: string[] = [];
  const server = await startBenchServer();
  let chunks: Awaited<ReturnType<typeof readProductChunks>>;
  let ingestSeconds: number;
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const started = performance.now();
    const source = await client.createTextSource(
      "PubMedQA",
      items.map((i) => ({ title: i.pmid, content: i.contexts.join("\n\n") })),
    );
    await client.waitReady(source.id);
    const agent = await client.createAgent("PubMedQA", { dataSourceIds: [source.id] });
    ingestSeconds = round((performance.now() - started) / 1000, 1);
    chunks = await readProductChunks(server.dataDir, [source.id]);
    log(`pubmedqa: ingested ${items.length} abstracts in ${ingestSeconds}s → ${chunks.length} chunks`);
    for (const q of queries.slice(0, 20)) await client.search(agent.id, q.text, 10, "keyword");
    const { ranks, ms } = await rankAll(
      queries,
      async (q) => (await client.search(agent.id, q.text, 10, "keyword")).results,
      (hit, q) => hit.title === q.pmid,
    );
    rows.push(
      recallRow(
        {
          system: "Lore (default server)",
          mode: "keyword",
          data,
          chunks: chunks.length,
          via: "HTTP POST /search/",
        },
        ranks,
        ms,
        ks,
      ),
    );
  } finally {
    await server.close();
  }
  const relevant = (hit: { title: string }, q: { pmid: string }) => hit.title === q.pmid;
  const raw = await rawLanceFts(chunks);
  rows.push(await evalPeer(raw, data, queries, relevant, ks));
  await raw.close();
  rows.push(await evalPeer(winkBm25(chunks), data, queries, relevant, ks));
  try {
    const lc = await langchainBm25(
      items.map((i) => ({ id: i.pmid, title: i.pmid, text: i.contexts.join("\n\n") })),
    );
    rows.push(await evalPeer(lc, data, queries, relevant, ks));
  } catch (error) {
    notes.push(`LangChain.js peer could not run: ${String(error)}`);
  }
  for (const r of rows) log(`pubmedqa: ${r.system} ${JSON.stringify(r.recall)} p50 ${r.p50Ms}ms`);
  const path = writeResult(
    "pubmedqa",
    { documents: items.length, chunks: chunks.length, ingestSeconds, rows, notes },
    options.resultsDir,
  );
  return { documents: items.length, chunks: chunks.length, ingestSeconds, rows, notes, path };
}

export function pubmedTable(result: PubmedResult): string {
  return markdownTable(
    ["system", "mode", "questions", "chunks", ...ks.map((k) => `R@${k}`), "p50 ms", "via"],
    result.rows.map((r) => [
      r.system,
      r.mode,
      r.questions,
      r.chunks,
      ...ks.map((k) => r.recall[`@${k}`]),
      round(r.p50Ms, 1),
      r.via,
    ]),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--limit");
  const result = await runPubmedQa({ limit: i >= 0 ? Number(process.argv[i + 1]) : undefined });
  console.log(pubmedTable(result));
  console.log(`wrote ${result.path}`);
}
