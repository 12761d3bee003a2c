/**
 * Restart to ready: how long `lore serve` takes from spawn until `/readyz` answers 200 on a data dir
 * holding N chunks, and its RSS then. Each size is measured two ways: a restart after a graceful
 * stop (the search index snapshot matches the table and is loaded), and with no snapshot (the
 * rebuild from the chunks table every start did before snapshots, and what a start after a crash
 * with writes since the last snapshot does).
 *
 * The corpus is synthetic, as in latency.ts: passages of 4 real SQuAD sentences, 100 per document,
 * ingested over HTTP as `text` sources of about 10,000 chunks. Data dirs are kept under
 * `bench/data/restart-<N>` (git-ignored) and reused by later runs; delete them to rebuild.
 *
 *   node_modules/.bin/tsx bench/src/restart.ts [--sizes 100000,1000000] [--runs 3] [--ingest-budget-min 60] [--direct] [--no-rebuild]
 *
 * `--direct` writes a missing corpus straight through the store and the index (lib/direct-corpus.ts:
 * the same passages, no parsing or chunking), so a million chunks take minutes instead of hours.
 *   node_modules/.bin/tsx bench/src/restart.ts --index-only 1000000   # the search index alone (runIndexOnly)
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "@lancedb/lancedb";
import { ChunkIndex } from "@lore/server/retrieval/chunk-index.ts";
import type { DataSource } from "@lore/shared";
import { loadSquad } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { passageChunks, writeDirectCorpus } from "./lib/direct-corpus.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { repoRoot, type ServerRuntime, startBenchServer } from "./lib/server.ts";
import { round } from "./lib/stats.ts";
import { sentencePool, syntheticDocuments, syntheticEntries } from "./lib/synthetic.ts";

const CHUNKS_PER_SOURCE = 10_000;
// A million chunks of text sources hold their configs on the heap besides the index (latency.ts).
const NODE_ARGS = ["--max-old-space-size=16384"];

export interface RestartRow {
  chunks: number;
  /** `bundle`: `node lore.mjs serve` from `npm run build` (the container); `source`: through tsx (`npm start`). */
  runtime: ServerRuntime;
  /** How the previous process ended and what the new one found. */
  kind: "graceful (snapshot loaded)" | "no snapshot (rebuild)";
  /** Median over the runs, seconds from spawn to the first 200 from /readyz. */
  readySeconds: number;
  runs: number[];
  rssMiB: number | null;
}

function dataDirFor(chunks: number): string {
  return join(repoRoot, "bench", "data", `restart-${chunks}`);
}

/** Ingests synthetic documents until the data dir holds about `target` chunks; returns the count. */
async function ensureCorpus(target: number, budgetMs: number, direct = false): Promise<number> {
  const dataDir = dataDirFor(target);
  const marker = join(dataDir, "bench-chunks");
  if (existsSync(marker)) return Number(readFileSync(marker, "utf8"));
  if (direct) {
    rmSync(dataDir, { recursive: true, force: true });
    return writeDirectCorpus(dataDir, target, "bench-chunks");
  }
  // A data dir without the marker is an ingest cut short (a killed run): it is continued.
  mkdirSync(dataDir, { recursive: true });
  const pool = sentencePool(loadSquad());
  // info: a server stopped by a signal from elsewhere says so in its output.
  const server = await startBenchServer(
    { LORE_DATA_DIR: dataDir, LORE_SYNC_CONCURRENCY: "2", LORE_LOG_LEVEL: "info" },
    NODE_ARGS,
  );
  let chunks = 0;
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const sources = await listSources(client);
    const agent = await client.createAgent("Restart");
    let docs = sources.length * (CHUNKS_PER_SOURCE / 100);
    chunks = sources.reduce((n, s) => n + s.chunkCount, 0);
    const started = performance.now();
    // On a busy machine the ingest may not reach the target in time: the size reached is measured.
    while (chunks < target * 0.98 && performance.now() - started < budgetMs) {
      const perSource = CHUNKS_PER_SOURCE / 100;
      const batch: DataSource[] = [];
      for (let n = 0; n < 2 && chunks + (batch.length + 1) * CHUNKS_PER_SOURCE <= target * 1.02; n++) {
        batch.push(
          await client.createTextSource(
            `Synthetic ${sources.length + batch.length}`,
            syntheticDocuments(pool, docs, perSource),
          ),
        );
        docs += perSource;
      }
      if (batch.length === 0) break;
      for (const s of batch) sources.push(await client.waitReady(s.id, 4 * 60 * 60_000, 1000));
      chunks = sources.reduce((n, s) => n + s.chunkCount, 0);
      log(`restart: ${chunks} chunks ingested (${round((performance.now() - started) / 1000, 0)} s)`);
    }
    await client.attach(
      agent.id,
      sources.map((s) => s.id),
    );
  } catch (error) {
    log(`restart: the ingest failed; server output:\n${server.output()}`);
    throw error;
  } finally {
    await server.close();
  }
  writeFileSync(marker, String(chunks));
  return chunks;
}

/** Every data source, following the pages; unfinished ones are waited for. */
async function listSources(client: LoreClient): Promise<DataSource[]> {
  const out = await client.dataSources();
  return Promise.all(
    out.map((s) => (s.status === "ready" ? s : client.waitReady(s.id, 4 * 60 * 60_000, 1000))),
  );
}

/** Lexical index snapshots in a data dir (removing them forces the rebuild). */
function removeSnapshots(dataDir: string): void {
  const dir = join(dataDir, "index");
  if (!existsSync(dir)) return;
  for (const file of readdirSync(dir)) rmSync(join(dir, file), { recursive: true, force: true });
}

async function timeStart(
  dataDir: string,
  runtime: ServerRuntime = "bundle",
): Promise<{ seconds: number; rssMiB: number | null; stop(kill?: boolean): Promise<void> }> {
  const started = performance.now();
  // A rebuild at a million chunks takes minutes.
  const server = await startBenchServer({ LORE_DATA_DIR: dataDir }, NODE_ARGS, 60 * 60_000, runtime);
  for (;;) {
    const res = await fetch(`${server.url}/readyz`).catch(() => null);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = round((performance.now() - started) / 1000, 2);
  const rss = server.rssKiB();
  return {
    seconds,
    rssMiB: rss === null ? null : round(rss / 1024, 0),
    async stop() {
      await server.close();
    },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function runRestart(
  options: {
    sizes?: number[];
    runs?: number;
    ingestBudgetMinutes?: number;
    resultsDir?: string;
    /** Build missing corpora with `writeDirectCorpus` instead of HTTP ingest. */
    direct?: boolean;
    /** false: only the starts from the snapshot (`--no-rebuild`; a rebuild at 1M takes minutes). */
    rebuild?: boolean;
  } = {},
) {
  const sizes = options.sizes ?? [100_000];
  const runs = options.runs ?? 3;
  const budgetMs = (options.ingestBudgetMinutes ?? 60) * 60_000;
  const rows: RestartRow[] = [];
  for (const size of sizes) {
    const chunks = await ensureCorpus(size, budgetMs, options.direct);
    const dataDir = dataDirFor(size);
    // One start to leave a current snapshot behind (a corpus built before snapshots has none): a
    // start that rebuilt saves it in the background, ~1 min at a million chunks, which a stop at
    // once would cut short (the server exits 20 s past its grace period at the latest).
    const setup = await timeStart(dataDir);
    const snapshot = join(dataDir, "index", "chunks.snapshot");
    while (!existsSync(snapshot)) await new Promise((r) => setTimeout(r, 1000));
    await setup.stop();
    const measure = async (
      kind: RestartRow["kind"],
      runtime: ServerRuntime,
      count: number,
      before: () => Promise<void>,
    ) => {
      const times: number[] = [];
      let rss: number | null = null;
      for (let i = 0; i < count; i++) {
        await before();
        const run = await timeStart(dataDir, runtime);
        times.push(run.seconds);
        rss = run.rssMiB;
        log(`restart: ${chunks} chunks, ${runtime}, ${kind}: ${run.seconds} s, RSS ${run.rssMiB} MiB`);
        await run.stop();
      }
      rows.push({ chunks, runtime, kind, readySeconds: median(times), runs: times, rssMiB: rss });
    };
    const none = async () => undefined;
    // The deployed server (the bundle) and `npm start`'s, alternately per size; the rebuild once each.
    await measure("graceful (snapshot loaded)", "bundle", runs, none);
    await measure("graceful (snapshot loaded)", "source", runs, none);
    if (options.rebuild !== false)
      await measure("no snapshot (rebuild)", "bundle", 1, async () => removeSnapshots(dataDir));
  }
  const path = writeResult("restart", { runs, rows }, options.resultsDir);
  return { rows, path };
}

export function restartTable(rows: readonly RestartRow[]): string {
  return markdownTable(
    ["chunks", "server", "start", "restart to ready, s (median)", "runs", "RSS at ready, MiB"],
    rows.map((r) => [
      r.chunks,
      r.runtime === "bundle" ? "`node lore.mjs serve` (build)" : "tsx (`npm start`)",
      r.kind,
      r.readySeconds,
      r.runs.join(" / "),
      r.rssMiB,
    ]),
  );
}

/**
 * The search index alone at sizes the HTTP ingest cannot reach in time here: `N` synthetic chunks
 * (4 SQuAD sentences each, 100 per document) written straight into a chunks table with the index's
 * own `replaceDocuments`, then `ChunkIndex.open` timed in a fresh process, from the snapshot and
 * rebuilding from the table. What a server start adds on top (loading the code, opening the store,
 * listening) is in the full rows above.
 */
async function runIndexOnly(size: number, kinds: readonly ("snapshot" | "table")[]): Promise<IndexOnlyRow[]> {
  const dir = join(repoRoot, "bench", "data", `index-${size}`);
  const marker = join(dir, "bench-chunks");
  if (!existsSync(marker)) {
    rmSync(dir, { recursive: true, force: true });
    const db = await connect(join(dir, "lance"));
    const index = await ChunkIndex.open(db, { embedder: null, snapshotPath: join(dir, "chunks.snapshot") });
    const pool = sentencePool(loadSquad());
    const workspaceId = randomUUID();
    const dataSourceId = randomUUID();
    const started = performance.now();
    for (let first = 0; first < size; first += 10_000) {
      const documents = [];
      for (let d = first; d < Math.min(size, first + 10_000); d += 100) {
        const documentId = randomUUID();
        const passages = syntheticEntries(pool, d, Math.min(100, size - d));
        documents.push({
          documentId,
          chunks: passageChunks(passages, {
            workspaceId,
            dataSourceId,
            documentId,
            title: `Document ${d / 100}`,
          }),
        });
      }
      await index.replaceDocuments(documents);
      log(
        `restart: index-only ${first + 10_000} chunks written (${round((performance.now() - started) / 1000, 0)} s)`,
      );
    }
    await index.optimize();
    await index.saveSnapshot();
    writeFileSync(marker, String(index.size));
  }
  // A snapshot of an older layout (or none) is made current first: one rebuild, then a save.
  const current = await ChunkIndex.open(await connect(join(dir, "lance")), {
    embedder: null,
    snapshotPath: join(dir, "chunks.snapshot"),
  });
  if (current.startup.from === "table") await current.saveSnapshot();
  const rows: IndexOnlyRow[] = [];
  for (const from of kinds) {
    const child = spawnSync(
      process.execPath,
      [...NODE_ARGS, "--import", "tsx", fileURLToPath(import.meta.url), "--open-index", dir, "--from", from],
      { cwd: repoRoot, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
    );
    const line = child.stdout.trim().split("\n").at(-1) ?? "";
    if (child.status !== 0) throw new Error(`open-index failed:\n${child.stdout}${child.stderr}`);
    rows.push(JSON.parse(line) as IndexOnlyRow);
    log(`restart: index-only ${line}`);
  }
  return rows;
}

export interface IndexOnlyRow {
  chunks: number;
  from: "snapshot" | "table";
  openSeconds: number;
  rssMiB: number;
  snapshotMiB: number;
}

/** In a fresh process: opens the index of `dir` from its snapshot or from the table; prints one JSON line. */
async function openIndex(dir: string, from: "snapshot" | "table"): Promise<void> {
  const db = await connect(join(dir, "lance"));
  const snapshotPath = join(dir, "chunks.snapshot");
  const started = performance.now();
  // Rebuilding: no snapshot path, so the table is read and every chunk indexed again.
  const index = await ChunkIndex.open(db, {
    embedder: null,
    snapshotPath: from === "snapshot" ? snapshotPath : undefined,
  });
  const openSeconds = round((performance.now() - started) / 1000, 2);
  if (index.startup.from !== from)
    throw new Error(`opened from ${index.startup.from}: ${index.startup.reason}`);
  const row: IndexOnlyRow = {
    chunks: index.size,
    from,
    openSeconds,
    rssMiB: round(process.memoryUsage().rss / 1024 / 1024, 0),
    snapshotMiB: round(statSync(snapshotPath).size / 1024 / 1024, 0),
  };
  console.log(JSON.stringify(row));
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const openIndexDir = arg("--open-index");
const indexOnly = arg("--index-only");
if (process.argv[1] === fileURLToPath(import.meta.url) && openIndexDir) {
  await openIndex(openIndexDir, arg("--from") === "table" ? "table" : "snapshot");
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url) && indexOnly) {
  const only = arg("--only");
  const rows = await runIndexOnly(
    Number(indexOnly),
    only === "snapshot" || only === "table" ? [only] : ["snapshot", "table"],
  );
  console.log(
    markdownTable(
      ["chunks", "index from", "ChunkIndex.open, s", "RSS after, MiB", "snapshot, MiB"],
      rows.map((r) => [r.chunks, r.from, r.openSeconds, r.rssMiB, r.snapshotMiB]),
    ),
  );
  writeResult("restart-index", { rows });
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runRestart({
    sizes: arg("--sizes")?.split(",").map(Number),
    runs: arg("--runs") ? Number(arg("--runs")) : undefined,
    ingestBudgetMinutes: arg("--ingest-budget-min") ? Number(arg("--ingest-budget-min")) : undefined,
    direct: process.argv.includes("--direct"),
    rebuild: !process.argv.includes("--no-rebuild"),
  });
  console.log(restartTable(result.rows));
  console.log(`wrote ${result.path}`);
}
