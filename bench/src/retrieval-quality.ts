/**
 * Offline, in-process retrieval quality and latency (no HTTP): SQuAD v1.1 dev and PubMedQA PQA-L, Lore's
 * ChunkIndex side by side with raw LanceDB FTS measured in the same run, plus a synthetic scale test.
 *
 *   node_modules/.bin/tsx bench/src/retrieval-quality.ts            # evaluate, write bench/results/retrieval-quality.json
 *   node_modules/.bin/tsx bench/src/retrieval-quality.ts --fit      # fit the calibration models on the tuning slice
 *   options: --scale <chunks> (default 100000, 0 skips), --no-full (sample only)
 *   --ranking-hash: also a SHA-256 over every Lore query's candidates (text, title, heading path,
 *     ordinal and the full feature vector of each, in order) and its ranked hits with their scores —
 *     the same hash before and after a change proves rankings unchanged (issue #32)
 *   --text-cache <n>: chunk texts the index keeps decoded (1: every text read from its file)
 *   --datasets <list>: only these of paragraph,chunker,pubmed (default all three)
 *   --systems <list>: only these of raw,keyword,semantic,hybrid (default all four); e.g.
 *     `--systems keyword,hybrid --ranking-hash` hashes every Lore keyword and hybrid query in less time
 *
 * Hold-out: the tuning slice is SQuAD questions of the dev-v1.1.json half with index % 5 == 2. The
 * reported sample (every 5th question, index % 5 == 0, 2,114 questions) never overlaps it; PubMedQA is
 * never used for fitting.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Connection, connect, Index, type Table } from "@lancedb/lancedb";
import type { RetrievalMode } from "@lore/shared";
import {
  applyModel,
  keywordFeatureNames,
  keywordFeatures,
  type LogisticModel,
} from "../../server/src/retrieval/calibration.ts";
import { ChunkIndex, type StoredChunk } from "../../server/src/retrieval/chunk-index.ts";
import type { Embedder } from "../../server/src/retrieval/embedder.ts";
import {
  defaultLexicalParams,
  LexicalIndex,
  type LexicalParams,
} from "../../server/src/retrieval/lexical-index.ts";
import { containsAnswer, loadPubmedQa, loadSquad, type SquadData } from "./datasets.ts";
import { fitListwise, fitLogistic } from "./lib/fit.ts";
import { squadParagraphChunks } from "./lib/squad-chunks.ts";

const ks = [1, 3, 5, 10, 20] as const;
const resultsDir = fileURLToPath(new URL("../results/", import.meta.url));
const args = process.argv.slice(2);
const fitMode = args.includes("--fit");
const scaleArg = args.indexOf("--scale");
const scaleChunks = scaleArg >= 0 ? Number(args[scaleArg + 1]) : 100_000;
const fullRun = !args.includes("--no-full");
const rankingHash = args.includes("--ranking-hash") ? createHash("sha256") : null;
let hashedQueries = 0;
const textCacheArg = args.indexOf("--text-cache");
const textCacheEntries = textCacheArg >= 0 ? Number(args[textCacheArg + 1]) : undefined;
/** The values of a comma-separated option, checked against the allowed ones; null when not given. */
function listOption(name: string, allowed: readonly string[]): Set<string> | null {
  const at = args.indexOf(name);
  if (at < 0) return null;
  const values = (args[at + 1] ?? "").split(",").filter((v) => v !== "");
  const unknown = values.filter((v) => !allowed.includes(v));
  if (values.length === 0 || unknown.length > 0) {
    throw new Error(`${name} takes a comma-separated list of ${allowed.join(", ")}`);
  }
  return new Set(values);
}
const onlyDatasets = listOption("--datasets", ["paragraph", "chunker", "pubmed"]);
const onlySystems = listOption("--systems", ["raw", "keyword", "semantic", "hybrid"]);
const wanted = (only: Set<string> | null, key: string) => only === null || only.has(key);

interface Query {
  text: string;
  /** Is this chunk a hit for the query? */
  relevant: (chunk: { text: string; documentId: string }) => boolean;
}

interface Retriever {
  name: string;
  search(query: string, k: number): Promise<{ text: string; documentId: string }[]>;
}

interface RecallRow {
  system: string;
  data: string;
  questions: number;
  recall: Record<string, number>;
  p50Ms: number;
  p95Ms: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

/** Rank (1-based) of the first relevant result per query, Infinity when none in the top 20. */
async function ranks(retriever: Retriever, queries: Query[]): Promise<{ rank: number[]; ms: number[] }> {
  const rank: number[] = [];
  const ms: number[] = [];
  for (const q of queries) {
    const start = performance.now();
    const hits = await retriever.search(q.text, 20);
    ms.push(performance.now() - start);
    const i = hits.findIndex((h) => q.relevant(h));
    rank.push(i < 0 ? Number.POSITIVE_INFINITY : i + 1);
  }
  return { rank, ms };
}

function summarize(system: string, data: string, rank: number[], ms: number[]): RecallRow {
  const recall: Record<string, number> = {};
  for (const k of ks) recall[`top${k}`] = round(rank.filter((r) => r <= k).length / Math.max(1, rank.length));
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    system,
    data,
    questions: rank.length,
    recall,
    p50Ms: round(percentile(sorted, 0.5), 2),
    p95Ms: round(percentile(sorted, 0.95), 2),
  };
}

function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Raw LanceDB FTS with 0.39 defaults (one index, stemming, stop words), questions stripped of punctuation. */
async function rawLanceFts(db: Connection, name: string, chunks: StoredChunk[]): Promise<Retriever> {
  const table: Table = await db.createTable(
    name,
    chunks.map((c) => ({ id: c.id, documentId: c.documentId, text: c.text })),
    { mode: "overwrite" },
  );
  await table.createIndex("text", { config: Index.fts({ stem: true, removeStopWords: true }) });
  return {
    name: "lancedb-fts (raw baseline)",
    async search(query, k) {
      const q = query.replace(/[^\p{L}\p{N}\s]/gu, " ").trim();
      if (q === "") return [];
      const rows = (await table.search(q, "fts").select(["text", "documentId"]).limit(k).toArray()) as {
        text: string;
        documentId: string;
      }[];
      return rows;
    },
  };
}

function loreRetriever(index: ChunkIndex, sourceId: string, mode: RetrievalMode, name: string): Retriever {
  return {
    name,
    async search(query, k) {
      const params = { query, dataSourceIds: [sourceId], topK: k, minScore: 0, mode };
      const hits = await index.search(params);
      if (rankingHash) {
        const candidates = await index.explain(params);
        rankingHash.update(
          JSON.stringify([
            name,
            query,
            candidates.map(({ chunk, features }) => [
              chunk.text,
              chunk.title,
              chunk.headingPath,
              chunk.ordinal,
              features,
            ]),
            hits.map((h) => [h.chunk.text, h.chunk.title, h.chunk.headingPath, h.score]),
          ]),
        );
        hashedQueries++;
      }
      return hits.map((h) => h.chunk);
    },
  };
}

type ChunkFn = (doc: { title: string; text: string }) => { text: string; headingPath: string[] }[];

/** The project chunker, when it exists (server/src/sources/chunking/chunk-document.ts). */
async function loadProjectChunker(): Promise<ChunkFn | null> {
  const path = fileURLToPath(new URL("../../server/src/sources/chunking/chunk-document.ts", import.meta.url));
  if (!existsSync(path)) return null;
  try {
    const mod = (await import(path)) as Record<string, unknown>;
    const fn = mod.chunkDocument;
    if (typeof fn !== "function") return null;
    return (doc) => {
      const parsed = {
        title: doc.title,
        kind: "text",
        pageCount: null,
        sections: doc.text.split("\n\n").map((text) => ({ headingPath: [], text, page: null })),
      };
      const drafts = (fn as (d: unknown) => { text: string; headingPath: string[] }[])(parsed);
      return drafts.map((d) => ({ text: d.text, headingPath: d.headingPath }));
    };
  } catch (error) {
    console.warn("project chunker not usable:", error);
    return null;
  }
}

/** The hashed n-gram embedder from server/src/retrieval/embedders/, when it exists. */
async function loadHashedEmbedder(): Promise<Embedder | null> {
  const dir = fileURLToPath(new URL("../../server/src/retrieval/embedders/", import.meta.url));
  if (!existsSync(dir)) return null;
  for (const file of readdirSync(dir)) {
    if (!/hash/i.test(file) || file.endsWith(".test.ts")) continue;
    const mod = (await import(join(dir, file))) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      if (typeof value !== "function") continue;
      for (const make of [() => Reflect.construct(value, []), () => (value as () => unknown)()]) {
        try {
          const candidate = make() as Partial<Embedder> | null;
          if (
            candidate &&
            typeof candidate.embed === "function" &&
            typeof candidate.dimensions === "number"
          ) {
            return candidate as Embedder;
          }
        } catch {
          // Not a zero-argument factory; try the next export.
        }
      }
    }
  }
  return null;
}

// ---------- fitting ----------

/** Logistic regression by Newton's method with a small L2 penalty. */
function top1(groups: { features: number[]; label: number }[][], model: LogisticModel): number {
  let hit = 0;
  for (const group of groups) {
    let best = -1;
    let bestScore = -1;
    group.forEach((c, i) => {
      const s = applyModel(model, c.features);
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    });
    if (best >= 0 && group[best]?.label === 1) hit++;
  }
  return hit / Math.max(1, groups.length);
}

async function fit(): Promise<void> {
  const squad = loadSquad();
  const tuning = squad.questions.filter((q) => q.half === "dev" && q.index % 5 === 2);
  console.log(`fitting on ${tuning.length} tuning questions (dev half, index % 5 == 2)`);
  const report: Record<string, unknown> = { tuningQuestions: tuning.length, grid: [] };
  let best: { params: LexicalParams; model: LogisticModel; top1: number } | null = null;
  const grid: LexicalParams[] = [];
  for (const k1 of [0.9, 1.2]) {
    for (const b of [0.4, 0.75]) {
      for (const window of [8, 12]) grid.push({ ...defaultLexicalParams, k1, b, window });
    }
  }
  for (const params of grid) {
    const index = new LexicalIndex(params);
    for (const p of squad.paragraphs) index.add(p.context, p.articleTitle.replaceAll("_", " "), 0);
    const groups = tuning.map((q) =>
      index.search(q.question, new Set([0])).map((c) => ({
        features: keywordFeatures(c.features, 0), // the lexical grid only: no meaning evidence
        label: containsAnswer(squad.paragraphs[c.slot]?.context ?? "", q.answers) ? 1 : 0,
      })),
    );
    const pointwise = fitLogistic(
      groups.flat().map((g) => g.features),
      groups.flat().map((g) => g.label),
    );
    const model = fitListwise(groups);
    const bm25Top1 = groups.filter((g) => g[0]?.label === 1).length / groups.length;
    const score = top1(groups, model);
    const pointwiseTop1 = top1(groups, pointwise);
    (report.grid as unknown[]).push({
      ...params,
      bm25Top1: round(bm25Top1),
      pointwiseTop1,
      rerankTop1: round(score),
    });
    console.log(
      `k1=${params.k1} b=${params.b} window=${params.window}: bm25 top1 ${round(bm25Top1)}, pointwise ${round(pointwiseTop1)}, listwise ${round(score)}`,
    );
    if (!best || score > best.top1) best = { params, model, top1: score };
  }
  if (best) {
    console.log(
      "best:",
      JSON.stringify(best.params),
      "keyword model",
      JSON.stringify(best.model),
      keywordFeatureNames,
    );
    report.best = best;
  }
  const embedder = await loadHashedEmbedder();
  if (embedder && best) {
    const dir = mkdtempSync(join(tmpdir(), "lore-fit-"));
    try {
      const db = await connect(dir);
      const sourceId = randomUUID();
      const index = await ChunkIndex.open(db, { embedder, lexical: best.params });
      await ingest(index, squadParagraphChunks(squad, sourceId, randomUUID()));
      for (const mode of ["semantic", "hybrid"] as const) {
        const groups: { features: number[]; label: number }[][] = [];
        for (const q of tuning) {
          const rows = await index.explain({
            query: q.question,
            dataSourceIds: [sourceId],
            topK: 20,
            minScore: 0,
            mode,
          });
          groups.push(
            rows.map((r) => ({
              features: r.features,
              label: containsAnswer(r.chunk.text, q.answers) ? 1 : 0,
            })),
          );
        }
        const model = fitListwise(groups);
        console.log(
          `${mode} (${embedder.name}): model ${JSON.stringify(model)}, tuning top1 ${round(top1(groups, model))}`,
        );
        report[mode] = { embedder: embedder.name, model, top1: round(top1(groups, model)) };
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, "retrieval-fit.json"), `${JSON.stringify(report, null, 2)}\n`);
}

// ---------- evaluation ----------

async function ingest(index: ChunkIndex, chunks: StoredChunk[]): Promise<void> {
  const byDoc = new Map<string, StoredChunk[]>();
  for (const c of chunks) {
    const list = byDoc.get(c.documentId);
    if (list) list.push(c);
    else byDoc.set(c.documentId, [c]);
  }
  for (const [documentId, list] of byDoc) await index.replaceDocument(documentId, list);
}

async function evaluate(): Promise<void> {
  const squad = loadSquad();
  const pubmed = loadPubmedQa();
  const dir = mkdtempSync(join(tmpdir(), "lore-bench-"));
  const rows: RecallRow[] = [];
  const notes: string[] = [];
  const embedder = await loadHashedEmbedder();
  if (!embedder)
    notes.push("no hashed embedder in server/src/retrieval/embedders/: semantic and hybrid not measured");
  try {
    const db = await connect(dir);
    const workspaceId = randomUUID();

    // SQuAD: one chunk per paragraph, and the project chunker's chunks of each article when it exists.
    const granularities: { name: string; chunks: StoredChunk[] }[] = [];
    const sourceId = randomUUID();
    if (wanted(onlyDatasets, "paragraph")) {
      granularities.push({ name: "paragraph", chunks: squadParagraphChunks(squad, sourceId, workspaceId) });
    }
    const chunker = wanted(onlyDatasets, "chunker") ? await loadProjectChunker() : null;
    if (chunker) {
      const chunks: StoredChunk[] = [];
      const source = randomUUID();
      for (const article of squad.articles) {
        const documentId = randomUUID();
        const title = article.title.replaceAll("_", " ");
        const text = article.paragraphIndexes.map((i) => squad.paragraphs[i]?.context ?? "").join("\n\n");
        chunker({ title, text }).forEach((c, ordinal) => {
          chunks.push({
            id: randomUUID(),
            workspaceId,
            dataSourceId: source,
            documentId,
            documentVersion: "v1",
            ordinal,
            text: c.text,
            title,
            headingPath: c.headingPath,
            page: null,
            sourceUrl: null,
            kind: "text",
            tokenCount: c.text.split(/\s+/).length,
          });
        });
      }
      granularities.push({ name: "project chunker", chunks });
    } else if (wanted(onlyDatasets, "chunker")) {
      notes.push(
        "server/src/sources/chunking/chunk-document.ts not present: project-chunker granularity not measured",
      );
    }

    const sample = squad.questions.filter((q) => q.index % 5 === 0);
    const heldOutHalf = squad.questions.filter((q) => q.half === "test");
    const questionSets = fullRun
      ? [
          { name: "sample (every 5th, 2,114)", qs: sample },
          { name: "test half (held out, 5,609)", qs: heldOutHalf },
          { name: "all 10,570", qs: squad.questions },
        ]
      : [{ name: "sample (every 5th, 2,114)", qs: sample }];

    for (const granularity of granularities) {
      const source = granularity.chunks[0]?.dataSourceId ?? sourceId;
      const t0 = performance.now();
      const lore = await ChunkIndex.open(db, {
        embedder,
        textCacheEntries,
        chunksTable: `chunks_${rows.length}_${Date.now()}`,
        vectorsTable: `vectors_${rows.length}_${Date.now()}`,
      });
      await ingest(lore, granularity.chunks);
      // One fragment per written document slows vector scans badly until compaction (as the server's background optimize does).
      await lore.optimize();
      const ingestMs = performance.now() - t0;
      notes.push(
        `${granularity.name}: ${granularity.chunks.length} chunks, Lore ingest ${Math.round(ingestMs)} ms`,
      );
      const retrievers = await retrieversFor(
        db,
        `raw_${Date.now()}`,
        granularity.chunks,
        lore,
        source,
        embedder,
      );
      for (const retriever of retrievers) {
        const all = fullRun ? squad.questions : sample;
        const queries: Query[] = all.map((q) => ({
          text: q.question,
          relevant: (chunk) => containsAnswer(chunk.text, q.answers),
        }));
        const { rank, ms } = await ranks(retriever, queries);
        const position = new Map(all.map((q, i) => [q.index, i]));
        for (const set of questionSets) {
          const idx = set.qs.map((q) => position.get(q.index) ?? 0);
          const row = summarize(
            retriever.name,
            `SQuAD ${granularity.name}, ${set.name}`,
            idx.map((i) => rank[i] ?? Number.POSITIVE_INFINITY),
            idx.map((i) => ms[i] ?? 0),
          );
          rows.push(row);
          printRow(row);
        }
      }
    }

    if (wanted(onlyDatasets, "pubmed")) await evaluatePubmed(db, pubmed, workspaceId, embedder, rows);

    const scale = scaleChunks > 0 ? await scaleTest(db, squad, scaleChunks, embedder) : null;
    if (scale) console.log("scale:", JSON.stringify(scale));

    mkdirSync(resultsDir, { recursive: true });
    const out = {
      date: new Date().toISOString(),
      machine: { cpus: (await import("node:os")).cpus().length, node: process.version },
      lexicalParams: defaultLexicalParams,
      holdOut:
        "calibration fitted on SQuAD dev-half questions with index % 5 == 2; the sample is index % 5 == 0; the test half and PubMedQA are never used for fitting",
      notes,
      rows,
      scale,
      rankingHash: rankingHash ? { sha256: rankingHash.digest("hex"), queries: hashedQueries } : null,
    };
    if (out.rankingHash)
      console.log(`ranking SHA-256 ${out.rankingHash.sha256} over ${hashedQueries} queries`);
    writeFileSync(join(resultsDir, "retrieval-quality.json"), `${JSON.stringify(out, null, 2)}\n`);
    console.log(notes.join("\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** PubMedQA PQA-L: one document per abstract; the gold document is the question's own abstract. */
async function evaluatePubmed(
  db: Connection,
  pubmed: ReturnType<typeof loadPubmedQa>,
  workspaceId: string,
  embedder: Embedder | null,
  rows: RecallRow[],
): Promise<void> {
  const pubSource = randomUUID();
  const pubChunks: StoredChunk[] = pubmed.map((item, ordinal) => ({
    id: randomUUID(),
    workspaceId,
    dataSourceId: pubSource,
    documentId: item.pmid,
    documentVersion: "v1",
    ordinal,
    text: item.contexts.join("\n\n"),
    title: "",
    headingPath: [],
    page: null,
    sourceUrl: null,
    kind: "text",
    tokenCount: 0,
  }));
  const pubIndex = await ChunkIndex.open(db, {
    embedder,
    textCacheEntries,
    chunksTable: "pub_chunks",
    vectorsTable: "pub_vectors",
  });
  await ingest(pubIndex, pubChunks);
  await pubIndex.optimize();
  const pubRetrievers = await retrieversFor(db, "pub_raw", pubChunks, pubIndex, pubSource, embedder);
  for (const retriever of pubRetrievers) {
    const queries: Query[] = pubmed.map((item) => ({
      text: item.question,
      relevant: (chunk) => chunk.documentId === item.pmid,
    }));
    const { rank, ms } = await ranks(retriever, queries);
    const row = summarize(retriever.name, "PubMedQA PQA-L, 1,000 abstracts", rank, ms);
    rows.push(row);
    printRow(row);
  }
}

/** The systems measured on one data set (all four, or those --systems names). */
async function retrieversFor(
  db: Connection,
  rawTable: string,
  chunks: StoredChunk[],
  lore: ChunkIndex,
  source: string,
  embedder: Embedder | null,
): Promise<Retriever[]> {
  const retrievers: Retriever[] = [];
  if (wanted(onlySystems, "raw")) retrievers.push(await rawLanceFts(db, rawTable, chunks));
  if (wanted(onlySystems, "keyword")) retrievers.push(loreRetriever(lore, source, "keyword", "lore keyword"));
  for (const mode of ["semantic", "hybrid"] as const) {
    if (embedder && wanted(onlySystems, mode)) {
      retrievers.push(loreRetriever(lore, source, mode, `lore ${mode} (${embedder.name})`));
    }
  }
  return retrievers;
}

function printRow(row: RecallRow): void {
  const r = ks.map((k) => (row.recall[`top${k}`] ?? 0).toFixed(3)).join("  ");
  console.log(
    `${row.system.padEnd(36)} ${row.data.padEnd(52)} n=${String(row.questions).padStart(5)}  ${r}  p50 ${row.p50Ms}ms p95 ${row.p95Ms}ms`,
  );
  // The hash so far, so two runs that stop early can still be compared up to where both got.
  if (rankingHash)
    console.log(`  ranking SHA-256 so far ${rankingHash.copy().digest("hex")} (${hashedQueries} queries)`);
}

/** Search latency at `target` chunks: SQuAD paragraphs replicated under new ids (each copy its own document). */
async function scaleTest(db: Connection, squad: SquadData, target: number, embedder: Embedder | null) {
  const source = randomUUID();
  const copies = Math.ceil(target / squad.paragraphs.length);
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  const index = await ChunkIndex.open(db, {
    embedder: null,
    chunksTable: "scale_chunks",
    vectorsTable: "scale_vectors",
  });
  const t0 = performance.now();
  for (let copy = 0; copy < copies; copy++) {
    const chunks = squadParagraphChunks(squad, source, source).map((c) => ({
      ...c,
      title: copy === 0 ? c.title : `${c.title} ${copy}`,
    }));
    await ingest(index, chunks.slice(0, Math.min(chunks.length, target - copy * squad.paragraphs.length)));
  }
  const ingestMs = performance.now() - t0;
  const heapAfter = process.memoryUsage().heapUsed;
  const rssAfter = process.memoryUsage().rss;
  const t1 = performance.now();
  await index.optimize();
  const optimizeMs = performance.now() - t1;
  const t2 = performance.now();
  const reopened = await ChunkIndex.open(db, {
    embedder: null,
    chunksTable: "scale_chunks",
    vectorsTable: "scale_vectors",
  });
  const openMs = performance.now() - t2;
  const qs = squad.questions.filter((q) => q.index % 25 === 0);
  const latency = async (mode: RetrievalMode) => {
    const ms: number[] = [];
    for (const q of qs) {
      const start = performance.now();
      await reopened.search({ query: q.question, dataSourceIds: [source], topK: 10, minScore: 0, mode });
      ms.push(performance.now() - start);
    }
    ms.sort((a, b) => a - b);
    return {
      p50Ms: round(percentile(ms, 0.5), 2),
      p95Ms: round(percentile(ms, 0.95), 2),
      p99Ms: round(percentile(ms, 0.99), 2),
    };
  };
  const raw = await db.openTable("scale_chunks");
  await raw.createIndex("text", { config: Index.fts({ stem: true, removeStopWords: true }) });
  const rawMs: number[] = [];
  for (const q of qs) {
    const text = q.question.replace(/[^\p{L}\p{N}\s]/gu, " ").trim();
    const start = performance.now();
    await raw.search(text, "fts").where(`dataSourceId = '${source}'`).select(["text"]).limit(10).toArray();
    rawMs.push(performance.now() - start);
  }
  rawMs.sort((a, b) => a - b);
  return {
    chunks: reopened.size,
    queries: qs.length,
    embedder: embedder ? "not used (keyword scale test)" : null,
    ingestMs: Math.round(ingestMs),
    optimizeMs: Math.round(optimizeMs),
    reopenMs: Math.round(openMs),
    heapMbForIndex: Math.round((heapAfter - heapBefore) / 1e6),
    rssMbGrowthDuringIngest: Math.round((rssAfter - rssBefore) / 1e6),
    rssMbAfterReopen: Math.round(process.memoryUsage().rss / 1e6),
    note: "ingest = ChunkIndex.replaceDocument per article copy (LanceDB writes + in-memory index); reopen = ChunkIndex.open rebuilding the in-memory index from LanceDB; heap/RSS include both the ingest copy and the reopened copy of the index",
    keyword: await latency("keyword"),
    rawLanceFts: { p50Ms: round(percentile(rawMs, 0.5), 2), p95Ms: round(percentile(rawMs, 0.95), 2) },
  };
}

await (fitMode ? fit() : evaluate());
