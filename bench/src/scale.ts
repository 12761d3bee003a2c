/**
 * Lore at scale (issue #32): N synthetic chunks (default a million) written straight through the
 * store and the search index (`lib/direct-corpus.ts`: 4 real SQuAD sentences a passage, 100
 * passages a document, one text source per 10,000 chunks, each chunk with its own heading), then
 * through HTTP on the built server (`node lore.mjs serve`, as the container runs it):
 * - start to ready after the corpus was written (no snapshot of this layout yet: the index is
 *   rebuilt from the chunks table) and restart to ready after a graceful stop (snapshot loaded);
 * - `/search/` and `/query/` p50/p95/p99 with the extractive answerer, sequential requests after a
 *   warm-up, on the restarted server;
 * - the server's RSS at ready and after the requests; snapshot size and disk use of the data dir;
 * - before the starts, the append logs earlier runs left are compacted (`compactLogs`);
 * - beside it, in the same run: the raw LanceDB FTS index (lib/peers.ts rawLanceFtsIndex, the GOALS
 *   baseline) built on the same chunks (their texts streamed from the table) and queried in the
 *   bench process (no HTTP).
 * Not in CI: a million chunks take tens of minutes to write here. The data dir is kept under
 * `bench/data/scale-<N>` (git-ignored) and reused by later runs (its snapshots are removed first,
 * so every run measures a rebuild too); delete it to write the corpus anew.
 *
 *   node_modules/.bin/tsx bench/src/scale.ts [--chunks 1000000] [--requests 300] [--direct] [--no-peer] [--label after]
 *
 * `--direct` is the only way the corpus is written (HTTP ingest of a million chunks takes hours);
 * the flag is accepted for symmetry with restart.ts.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "@lancedb/lancedb";
import { Store } from "@lore/server/store/store.ts";
import { loadSquad } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { chunksPerSourceFor, writeDirectCorpus } from "./lib/direct-corpus.ts";
import { productTexts, rawLanceFtsIndex } from "./lib/peers.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { type BenchServer, repoRoot, startBenchServer } from "./lib/server.ts";
import { type LatencySummary, round, summarize } from "./lib/stats.ts";

const NODE_ARGS = ["--max-old-space-size=16384"];

export interface ScaleResult {
  label: string;
  chunks: number;
  corpusWriteSeconds: number | null;
  /** Spawn to /readyz 200 with no snapshot of this layout (rebuild from the chunks table). */
  firstStartSeconds: number;
  firstStartRssMiB: number | null;
  /** Spawn to /readyz 200 after a graceful stop (snapshot loaded). */
  restartSeconds: number;
  restartRssMiB: number | null;
  search: LatencySummary;
  query: LatencySummary;
  /** Server-reported retrieval time inside /query/ (median). */
  queryRetrievalP50: number;
  rssAfterRequestsMiB: number | null;
  snapshotMiB: number | null;
  dataDirMiB: number;
  lanceMiB: number;
  peer: { name: string; buildSeconds: number; search: LatencySummary; indexMiB: number } | null;
}

function dataDirFor(chunks: number): string {
  return join(repoRoot, "bench", "data", `scale-${chunks}`);
}

function duMiB(path: string): number {
  if (!existsSync(path)) return 0;
  const kib = Number(
    execSync(`du -skD ${JSON.stringify(path)}`)
      .toString()
      .split(/\s/)[0],
  );
  return round(kib / 1024, 0);
}

function rssMiB(server: BenchServer): number | null {
  const kib = server.rssKiB();
  return kib === null ? null : round(kib / 1024, 0);
}

/** The data dir holding `size` chunks in the bench admin's workspace; returns the count and write time. */
async function ensureCorpus(size: number): Promise<{ chunks: number; seconds: number | null }> {
  const dataDir = dataDirFor(size);
  const marker = join(dataDir, "bench-chunks");
  if (existsSync(marker)) return { chunks: Number(readFileSync(marker, "utf8")), seconds: null };
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  // One start creates the admin and their workspace; the chunks go there, so an agent can read them.
  const boot = await startBenchServer({ LORE_DATA_DIR: dataDir }, NODE_ARGS);
  await boot.close();
  const store = await Store.open(dataDir);
  const workspaceId = [...store.workspaces.all()][0]?.id;
  await store.close();
  if (!workspaceId) throw new Error("scale: the first start made no workspace");
  const started = performance.now();
  const chunks = await writeDirectCorpus(dataDir, size, "bench-chunks", {
    workspaceId,
    chunksPerSource: chunksPerSourceFor(size),
  });
  return { chunks, seconds: round((performance.now() - started) / 1000, 0) };
}

/**
 * The append logs the earlier runs' questions left (analytics events, messages, conversations),
 * compacted with every old version cleaned up, as a server that runs longer than a minute keeps
 * them. Each run's servers live a minute or two, and the first compaction comes a minute after a
 * start: across sessions the million-chunk data dir had gathered 11,500 versions of
 * `analytics_events` (5.7 GB of manifests for 23,000 rows), and every answer's commit to it kept
 * LanceDB's threads busy for half a core.
 */
async function compactLogs(dataDir: string): Promise<void> {
  const db = await connect(join(dataDir, "lance"));
  const names = await db.tableNames();
  for (const name of ["analytics_events", "messages", "conversations"]) {
    if (!names.includes(name)) continue;
    const started = performance.now();
    const table = await db.openTable(name);
    await table.optimize({ cleanupOlderThan: new Date() });
    table.close();
    log(`scale: compacted ${name} in ${round((performance.now() - started) / 1000, 1)} s`);
  }
  db.close();
}

async function startTimed(dataDir: string): Promise<{ server: BenchServer; seconds: number }> {
  const started = performance.now();
  const server = await startBenchServer({ LORE_DATA_DIR: dataDir }, NODE_ARGS, 60 * 60_000, "bundle");
  for (;;) {
    const res = await fetch(`${server.url}/readyz`).catch(() => null);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { server, seconds: round((performance.now() - started) / 1000, 2) };
}

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await run();
  return performance.now() - t;
};

export async function runScale(
  options: { chunks?: number; requests?: number; peer?: boolean; label?: string; resultsDir?: string } = {},
): Promise<ScaleResult> {
  const size = options.chunks ?? 1_000_000;
  const requests = options.requests ?? 300;
  const label = options.label ?? "current";
  const questions = loadSquad()
    .questions.filter((q) => q.index % 7 === 3)
    .map((q) => q.question);
  const warm = questions.slice(0, 30);
  const sample = Array.from(
    { length: requests },
    (_, i) => questions[(i * 13 + 100) % questions.length] ?? "",
  );

  const corpus = await ensureCorpus(size);
  const dataDir = dataDirFor(size);
  const snapshotDir = join(dataDir, "index");
  if (existsSync(snapshotDir))
    for (const f of readdirSync(snapshotDir)) rmSync(join(snapshotDir, f), { recursive: true, force: true });
  log(`scale: ${corpus.chunks} chunks in ${dataDir}`);
  await compactLogs(dataDir);

  // First start: rebuilt from the table; it saves a snapshot in the background, awaited before the stop.
  const first = await startTimed(dataDir);
  const firstStartRssMiB = rssMiB(first.server);
  log(`scale: first start ${first.seconds} s, RSS ${firstStartRssMiB} MiB`);
  const snapshot = join(snapshotDir, "chunks.snapshot");
  while (!existsSync(snapshot)) await new Promise((r) => setTimeout(r, 1000));
  await first.server.close();

  const again = await startTimed(dataDir);
  const restartRssMiB = rssMiB(again.server);
  log(`scale: restart ${again.seconds} s, RSS ${restartRssMiB} MiB`);
  const server = again.server;
  let search: LatencySummary;
  let query: LatencySummary;
  let retrieval: LatencySummary;
  let rssAfterRequestsMiB: number | null;
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const sources = await client.dataSources();
    const agents: { results: { id: string; name: string }[] } = await client.json("GET", "/agents/");
    const agent = agents.results.find((a) => a.name === "Scale") ?? (await client.createAgent("Scale"));
    await client.attach(
      agent.id,
      sources.map((s) => s.id),
    );
    for (const q of warm) await client.search(agent.id, q, 5);
    for (const q of warm) await client.query(agent.id, q);
    const searchMs: number[] = [];
    for (const q of sample) searchMs.push(await timed(() => client.search(agent.id, q, 5)));
    const queryMs: number[] = [];
    const retrievalMs: number[] = [];
    for (const q of sample) {
      const t = performance.now();
      const res = await client.query(agent.id, q);
      queryMs.push(performance.now() - t);
      retrievalMs.push(res.metadata.retrievalTime);
    }
    search = summarize(searchMs);
    query = summarize(queryMs);
    retrieval = summarize(retrievalMs);
    rssAfterRequestsMiB = rssMiB(server);
    log(
      `scale: /search/ ${JSON.stringify(search)} /query/ ${JSON.stringify(query)} RSS ${rssAfterRequestsMiB}`,
    );
  } finally {
    await server.close();
  }
  const snapshotMiB = existsSync(snapshot) ? round(statSync(snapshot).size / 1024 / 1024, 0) : null;

  let peer: ScaleResult["peer"] = null;
  if (options.peer !== false) {
    // Every row of the table (all of them the bench agent's), streamed: ten million texts as
    // strings would not fit beside the index build.
    const t = performance.now();
    const fts = await rawLanceFtsIndex(productTexts(dataDir));
    const buildSeconds = round((performance.now() - t) / 1000, 0);
    for (const q of warm) await fts.search(q, 5);
    const ftsMs: number[] = [];
    for (const q of sample) ftsMs.push(await timed(() => fts.search(q, 5)));
    peer = {
      name: fts.name,
      buildSeconds,
      search: summarize(ftsMs),
      indexMiB: fts.dir ? duMiB(fts.dir) : 0,
    };
    await fts.close();
    log(`scale: raw LanceDB FTS ${JSON.stringify(peer)}`);
  }

  const result: ScaleResult = {
    label,
    chunks: corpus.chunks,
    corpusWriteSeconds: corpus.seconds,
    firstStartSeconds: first.seconds,
    firstStartRssMiB,
    restartSeconds: again.seconds,
    restartRssMiB,
    search,
    query,
    queryRetrievalP50: retrieval.p50,
    rssAfterRequestsMiB,
    snapshotMiB,
    dataDirMiB: duMiB(dataDir),
    lanceMiB: duMiB(join(dataDir, "lance")),
    peer,
  };
  writeResult(`scale-${label}`, { ...result }, options.resultsDir);
  return result;
}

export function scaleTable(results: readonly ScaleResult[]): string {
  const rows: (string | number | null)[][] = [];
  for (const r of results) {
    rows.push([
      `Lore (${r.label})`,
      r.chunks,
      `${r.search.p50} / ${r.search.p95} / ${r.search.p99}`,
      `${r.query.p50} / ${r.query.p95} / ${r.query.p99}`,
      `${r.restartRssMiB} / ${r.rssAfterRequestsMiB}`,
      `${r.restartSeconds} (rebuild ${r.firstStartSeconds})`,
      r.snapshotMiB,
      `${r.dataDirMiB} (LanceDB ${r.lanceMiB})`,
    ]);
    if (r.peer)
      rows.push([
        `${r.peer.name}, in-process, same chunks`,
        r.chunks,
        `${r.peer.search.p50} / ${r.peer.search.p95} / ${r.peer.search.p99}`,
        "–",
        "–",
        `index build ${r.peer.buildSeconds}`,
        "–",
        `${r.peer.indexMiB}`,
      ]);
  }
  return markdownTable(
    [
      "",
      "chunks",
      "/search/ p50 / p95 / p99 ms",
      "/query/ p50 / p95 / p99 ms",
      "RSS MiB at ready / after requests",
      "restart to ready s",
      "snapshot MiB",
      "disk MiB",
    ],
    rows,
  );
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const chunks = arg("--chunks");
  const requests = arg("--requests");
  const result = await runScale({
    chunks: chunks ? Number(chunks) : undefined,
    requests: requests ? Number(requests) : undefined,
    peer: !process.argv.includes("--no-peer"),
    label: arg("--label"),
  });
  console.log(scaleTable([result]));
}
