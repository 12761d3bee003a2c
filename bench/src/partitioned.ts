/**
 * A small agent on a big server (issue #32 item 2): an agent reading one 1,000-chunk source, on a
 * server that holds only that source and on one that also holds N − 1,000 other chunks (sources of
 * 10,000), both written straight through the store (`lib/direct-corpus.ts`; the agent's source holds
 * the same passages on both). Both built servers run at once and every question goes to one then the
 * other (alternating which goes first), so load on the machine falls on both alike: `/query/`
 * (extractive answerer) and `/search/` p50/p95/p99 and the server-reported retrieval time, RSS.
 * Data dirs kept under `bench/data/partition-<N>` (git-ignored) and reused; delete them to rewrite.
 *
 *   node_modules/.bin/tsx bench/src/partitioned.ts [--chunks 1000000] [--agent-chunks 1000] [--requests 200]
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Store } from "@lore/server/store/store.ts";
import type { DataSource } from "@lore/shared";
import { loadSquad } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { chunksPerSourceFor, writeDirectCorpus } from "./lib/direct-corpus.ts";
import { log, writeResult } from "./lib/report.ts";
import { type BenchServer, repoRoot, startBenchServer } from "./lib/server.ts";
import { type LatencySummary, round, summarize } from "./lib/stats.ts";

const NODE_ARGS = ["--max-old-space-size=16384"];

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** A data dir of `size` chunks, the first source `agentChunks` of them, in the bench admin's workspace. */
async function ensureCorpus(dir: string, size: number, agentChunks: number): Promise<number | null> {
  const marker = join(dir, "bench-chunks");
  if (existsSync(marker)) return null;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const boot = await startBenchServer({ LORE_DATA_DIR: dir }, NODE_ARGS);
  await boot.close();
  const store = await Store.open(dir);
  const workspaceId = [...store.workspaces.all()][0]?.id;
  await store.close();
  if (!workspaceId) throw new Error("partitioned: the first start made no workspace");
  const started = performance.now();
  await writeDirectCorpus(dir, size, "bench-chunks", {
    workspaceId,
    firstSourceChunks: agentChunks,
    chunksPerSource: chunksPerSourceFor(size),
  });
  return round((performance.now() - started) / 1000, 0);
}

interface Side {
  name: string;
  chunks: number;
  server: BenchServer;
  client: LoreClient;
  agentId: string;
  readySeconds: number;
  query: number[];
  search: number[];
  retrieval: number[];
}

async function start(name: string, dir: string): Promise<Side> {
  const started = performance.now();
  const server = await startBenchServer({ LORE_DATA_DIR: dir }, NODE_ARGS, 60 * 60_000, "bundle");
  for (;;) {
    const res = await fetch(`${server.url}/readyz`).catch(() => null);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const readySeconds = round((performance.now() - started) / 1000, 1);
  const client = new LoreClient(server.api);
  await client.login();
  const page: { results: DataSource[] } = await client.json("GET", "/data-sources/?page_size=100");
  const source = page.results.find((s) => s.name === "Synthetic 0");
  if (!source) throw new Error(`partitioned: no source "Synthetic 0" in ${dir}`);
  const agents: { results: { id: string; name: string }[] } = await client.json("GET", "/agents/");
  const agent = agents.results.find((a) => a.name === "Small") ?? (await client.createAgent("Small"));
  await client.attach(agent.id, [source.id]);
  const chunks = Number(readFileSync(join(dir, "bench-chunks"), "utf8"));
  log(`partitioned: ${name} (${chunks} chunks) ready in ${readySeconds} s`);
  return {
    name,
    chunks,
    server,
    client,
    agentId: agent.id,
    readySeconds,
    query: [],
    search: [],
    retrieval: [],
  };
}

async function ask(side: Side, question: string, record: boolean): Promise<void> {
  let t = performance.now();
  await side.client.search(side.agentId, question, 5);
  const searchMs = performance.now() - t;
  t = performance.now();
  const res = await side.client.query(side.agentId, question);
  const queryMs = performance.now() - t;
  if (!record) return;
  side.search.push(searchMs);
  side.query.push(queryMs);
  side.retrieval.push(res.metadata.retrievalTime);
}

const size = Number(arg("--chunks") ?? 1_000_000);
const agentChunks = Number(arg("--agent-chunks") ?? 1000);
const requests = Number(arg("--requests") ?? 200);
const aloneDir = join(repoRoot, "bench", "data", `partition-alone-${agentChunks}`);
const bigDir = join(repoRoot, "bench", "data", `partition-${size}`);
const aloneWrite = await ensureCorpus(aloneDir, agentChunks, agentChunks);
const bigWrite = await ensureCorpus(bigDir, size, agentChunks);
log(`partitioned: corpora written (${aloneWrite ?? "kept"} s, ${bigWrite ?? "kept"} s)`);

const questions = loadSquad()
  .questions.filter((q) => q.index % 7 === 3)
  .map((q) => q.question);
const alone = await start("alone", aloneDir);
const big = await start("big", bigDir);
try {
  for (const q of questions.slice(0, 30)) {
    await ask(alone, q, false);
    await ask(big, q, false);
  }
  for (let i = 0; i < requests; i++) {
    const q = questions[(i * 13 + 100) % questions.length] ?? "";
    const [a, b] = i % 2 === 0 ? [alone, big] : [big, alone];
    await ask(a, q, true);
    await ask(b, q, true);
  }
  const load = (await import("node:os")).loadavg().map((x) => round(x, 1));
  const result = Object.fromEntries(
    [alone, big].map((side) => [
      side.name,
      {
        chunks: side.chunks,
        readySeconds: side.readySeconds,
        rssMiB: round((side.server.rssKiB() ?? 0) / 1024, 0),
        query: summarize(side.query),
        search: summarize(side.search),
        retrieval: summarize(side.retrieval) satisfies LatencySummary,
      },
    ]),
  );
  const out = {
    agentChunks,
    requests,
    loadAverage: load,
    writeSeconds: { alone: aloneWrite, big: bigWrite },
    ...result,
  };
  writeResult(`partitioned-${size}`, out);
  console.log(JSON.stringify(out, null, 2));
} finally {
  await alone.server.close();
  await big.server.close();
}
