/**
 * A partitioned search index (LORE_INDEX_MAX_CHUNKS, issue #32 item 4): W workspaces of C synthetic
 * chunks each in one chunks table (written straight through the index, `lib/direct-corpus.ts`'s
 * passages), then, each in a fresh process: the whole index loaded as today (no snapshot) against a
 * budget of one workspace — RSS after a full GC, chunks held, the first search's load of a workspace,
 * the load that lets another go, and a warm search. The table is kept under
 * `bench/data/workspace-partitions-<W>x<C>` (git-ignored) and reused.
 *
 *   node --expose-gc --import tsx bench/src/workspace-partitions.ts [--workspaces 8] [--chunks 5000]
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { connect } from "@lancedb/lancedb";
import { ChunkIndex } from "@lore/server/retrieval/chunk-index.ts";
import { loadSquad } from "./datasets.ts";
import { passageChunks } from "./lib/direct-corpus.ts";
import { repoRoot } from "./lib/server.ts";
import { sentencePool, syntheticEntries } from "./lib/synthetic.ts";

const { values } = parseArgs({
  options: {
    workspaces: { type: "string", default: "8" },
    chunks: { type: "string", default: "5000" },
    phase: { type: "string" },
  },
});
const workspaces = Number(values.workspaces);
const perWorkspace = Number(values.chunks);
const dir = join(repoRoot, "bench", "data", `workspace-partitions-${workspaces}x${perWorkspace}`);
const lance = join(dir, "lance");
const layoutFile = join(dir, "layout.json");

interface Layout {
  workspaces: { id: string; source: string; query: string; firstChunk: string }[];
}

/** After a full GC: RSS, and the JS heap plus array buffers (where the index lives), MiB. */
function memory(): { rssMiB: number; heapAndArraysMiB: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return {
    rssMiB: Math.round(m.rss / 1024 / 1024),
    heapAndArraysMiB: Math.round((m.heapUsed + m.arrayBuffers) / 1024 / 1024),
  };
}

async function write(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const db = await connect(lance);
  // A budget of one chunk: the writes go to the table, none stays in this process's memory.
  const index = await ChunkIndex.open(db, { embedder: null, maxChunks: 1 });
  const pool = sentencePool(loadSquad());
  const layout: Layout = { workspaces: [] };
  for (let w = 0; w < workspaces; w++) {
    const workspaceId = randomUUID();
    const dataSourceId = randomUUID();
    let firstChunk = "";
    let query = "";
    for (let d = 0; d < perWorkspace; d += 100) {
      const passages = syntheticEntries(pool, w * perWorkspace + d, Math.min(100, perWorkspace - d));
      const documentId = randomUUID();
      const chunks = passageChunks(passages, { workspaceId, dataSourceId, documentId, title: `Doc ${d}` });
      if (d === 0) {
        firstChunk = chunks[0]?.id ?? "";
        query = passages[0]?.content ?? "";
      }
      await index.replaceDocuments([{ documentId, chunks }]);
    }
    layout.workspaces.push({ id: workspaceId, source: dataSourceId, query, firstChunk });
    console.error(`wrote workspace ${w + 1}/${workspaces}`);
  }
  await index.optimizeTables();
  index.close();
  writeFileSync(layoutFile, JSON.stringify(layout));
}

async function search(index: ChunkIndex, ws: Layout["workspaces"][number]) {
  const started = performance.now();
  const hits = await index.search({
    query: ws.query,
    dataSourceIds: [ws.source],
    workspaceId: ws.id,
    topK: 5,
    minScore: 0,
    mode: "keyword",
  });
  if (hits[0]?.chunk.id !== ws.firstChunk) throw new Error("the workspace's own passage did not rank first");
  return Math.round(performance.now() - started);
}

async function phase(name: string): Promise<Record<string, unknown>> {
  const layout = JSON.parse(readFileSync(layoutFile, "utf8")) as Layout;
  const [first, second] = layout.workspaces;
  if (!first || !second) throw new Error("two workspaces at least");
  const db = await connect(lance);
  const baseline = memory();
  const started = performance.now();
  if (name === "all") {
    const index = await ChunkIndex.open(db, { embedder: null });
    const openMs = Math.round(performance.now() - started);
    const searchMs = await search(index, first);
    const out = {
      phase: "all",
      chunks: index.size,
      openMs,
      searchMs,
      memory: memory(),
      baseline,
    };
    index.close();
    return out;
  }
  const index = await ChunkIndex.open(db, { embedder: null, maxChunks: perWorkspace });
  const openMs = Math.round(performance.now() - started);
  const firstLoadMs = await search(index, first);
  const warmMs = await search(index, first);
  const heldOne = index.heldIndex;
  const memoryOne = memory();
  const swapMs = await search(index, second);
  const reloadMs = await search(index, first);
  const out = {
    phase: "one",
    openMs,
    firstSearchWithLoadMs: firstLoadMs,
    warmSearchMs: warmMs,
    held: heldOne,
    memory: memoryOne,
    baseline,
    searchLoadingAnotherAndEvictingMs: swapMs,
    searchReloadingMs: reloadMs,
    heldAfter: index.heldIndex,
  };
  index.close();
  return out;
}

if (values.phase) {
  console.log(JSON.stringify(await phase(values.phase)));
} else {
  if (!existsSync(layoutFile)) await write();
  const run = (name: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ["--expose-gc", "--import", "tsx", process.argv[1] ?? "", ...process.argv.slice(2), "--phase", name],
        { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
      ).trim(),
    ) as Record<string, unknown>;
  console.log(
    JSON.stringify(
      { workspaces, chunksPerWorkspace: perWorkspace, all: run("all"), one: run("one") },
      null,
      2,
    ),
  );
}
