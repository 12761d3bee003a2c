/**
 * The peers Lore is measured against, run in the bench process on the same data:
 * - raw LanceDB FTS (the GOALS baseline: one FTS index, 0.39 defaults with stemming and stop words,
 *   questions stripped of punctuation),
 * - `wink-bm25-text-search` plain BM25 with wink-nlp-utils' standard prep tasks,
 * - LangChain.js: `RecursiveCharacterTextSplitter` with its defaults + `BM25Retriever`.
 * Raw FTS and wink index Lore's own chunks (read from the server's LanceDB after ingestion), so
 * chunking is the same; LangChain chunks the documents itself, as its users would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, Index, type Table } from "@lancedb/lancedb";
import { BM25Retriever } from "@langchain/community/retrievers/bm25";
import { Document } from "@langchain/core/documents";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import bm25 from "wink-bm25-text-search";
import nlp from "wink-nlp-utils";

export interface PeerChunk {
  id: string;
  documentId: string;
  title: string;
  text: string;
  page: number | null;
  dataSourceId?: string;
}

export interface Retriever {
  name: string;
  /** Chunks indexed (for the table). */
  chunkCount: number;
  search(query: string, k: number): Promise<PeerChunk[]>;
  close(): Promise<void>;
  /** Where an on-disk index lives (for its size), when it has one. */
  dir?: string;
}

export interface SourceDocument {
  id: string;
  title: string;
  text: string;
}

/** Reads the chunks Lore indexed for the given sources straight from the server's LanceDB. */
export async function readProductChunks(
  dataDir: string,
  dataSourceIds: readonly string[],
): Promise<PeerChunk[]> {
  const db = await connect(join(dataDir, "lance"));
  const table = await db.openTable("retrieval_chunks");
  const wanted = new Set(dataSourceIds);
  const rows = (await table
    .query()
    .select(["id", "documentId", "dataSourceId", "title", "text", "page", "ordinal"])
    .toArray()) as {
    id: string;
    documentId: string;
    dataSourceId: string;
    title: string;
    text: string;
    page: number | null;
    ordinal: number;
  }[];
  table.close();
  db.close();
  return rows
    .filter((r) => wanted.has(r.dataSourceId))
    .sort((a, b) => a.documentId.localeCompare(b.documentId) || a.ordinal - b.ordinal)
    .map((r) => ({
      id: r.id,
      documentId: r.documentId,
      title: r.title,
      text: r.text,
      page: r.page ?? null,
      dataSourceId: r.dataSourceId,
    }));
}

/** The GOALS baseline: raw LanceDB FTS with default settings over the given chunks. */
export async function rawLanceFts(chunks: readonly PeerChunk[]): Promise<Retriever> {
  const index = await rawLanceFtsIndex(
    (async function* () {
      yield chunks.map((c) => c.text);
    })(),
  );
  return {
    name: index.name,
    chunkCount: chunks.length,
    dir: index.dir,
    async search(query, k) {
      return (await index.search(query, k)).flatMap((row) => {
        const c = chunks[row];
        return c ? [c] : [];
      });
    },
    close: () => index.close(),
  };
}

/** A raw LanceDB FTS index of texts given in batches; a search answers their positions. */
export interface RawFtsIndex {
  name: string;
  rows: number;
  dir: string;
  search(query: string, k: number): Promise<number[]>;
  close(): Promise<void>;
}

/** Texts go into the table this many at a time (one fragment each). */
const RAW_FTS_BATCH = 250_000;

export async function rawLanceFtsIndex(batches: AsyncIterable<readonly string[]>): Promise<RawFtsIndex> {
  const dir = mkdtempSync(join(tmpdir(), "lore-bench-rawfts-"));
  const db = await connect(dir);
  let table: Table | undefined;
  let rows = 0;
  let pending: { row: number; text: string }[] = [];
  const flush = async (): Promise<Table> => {
    const batch = pending;
    pending = [];
    if (table) await table.add(batch);
    else table = await db.createTable("chunks", batch, { mode: "overwrite" });
    return table;
  };
  for await (const texts of batches) {
    for (const text of texts) {
      pending.push({ row: rows++, text });
      if (pending.length === RAW_FTS_BATCH) await flush();
    }
  }
  const built = pending.length > 0 || !table ? await flush() : table;
  await built.createIndex("text", { config: Index.fts({ stem: true, removeStopWords: true }) });
  return {
    name: "LanceDB FTS (raw)",
    rows,
    dir,
    async search(query, k) {
      const q = query.replace(/[^\p{L}\p{N}\s]/gu, " ").trim();
      if (q === "") return [];
      const found = (await built.search(q, "fts").select(["row", "_score"]).limit(k).toArray()) as {
        row: number;
      }[];
      return found.map((r) => r.row);
    },
    async close() {
      built.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every chunk text of a product data dir's table, in table order, a batch at a time. */
export async function* productTexts(dataDir: string): AsyncGenerator<string[]> {
  const db = await connect(join(dataDir, "lance"));
  const table = await db.openTable("retrieval_chunks");
  try {
    for await (const batch of table.query().select(["text"])) {
      const column = batch.getChild("text");
      const texts: string[] = [];
      for (let i = 0; i < batch.numRows; i++) texts.push(String(column?.get(i)));
      yield texts;
    }
  } finally {
    table.close();
    db.close();
  }
}

/** Plain BM25 from `wink-bm25-text-search` with its documented wink-nlp-utils prep tasks. */
export function winkBm25(chunks: readonly PeerChunk[]): Retriever {
  const engine = bm25();
  engine.defineConfig({ fldWeights: { text: 1 } });
  engine.definePrepTasks([
    nlp.string.lowerCase,
    nlp.string.tokenize0,
    nlp.tokens.removeWords,
    nlp.tokens.stem,
    nlp.tokens.propagateNegations,
  ]);
  chunks.forEach((c, i) => {
    engine.addDoc({ text: c.text }, i);
  });
  engine.consolidate();
  return {
    name: "wink-bm25-text-search",
    chunkCount: chunks.length,
    async search(query, k) {
      return engine.search(query, k).flatMap(([id]) => {
        const c = chunks[Number(id)];
        return c ? [c] : [];
      });
    },
    async close() {},
  };
}

/** LangChain.js as its docs show it: default RecursiveCharacterTextSplitter + BM25Retriever. */
export async function langchainBm25(docs: readonly SourceDocument[], k = 20): Promise<Retriever> {
  const splitter = new RecursiveCharacterTextSplitter();
  const split = await splitter.splitDocuments(
    docs.map((d) => new Document({ pageContent: d.text, metadata: { documentId: d.id, title: d.title } })),
  );
  const chunks: PeerChunk[] = split.map((d, i) => ({
    id: String(i),
    documentId: String(d.metadata.documentId),
    title: String(d.metadata.title),
    text: d.pageContent,
    page: null,
  }));
  const retriever = BM25Retriever.fromDocuments(
    split.map((d, i) => new Document({ pageContent: d.pageContent, metadata: { row: i } })),
    { k },
  );
  return {
    name: `LangChain.js (RecursiveCharacterTextSplitter ${splitter.chunkSize}/${splitter.chunkOverlap} + BM25Retriever)`,
    chunkCount: chunks.length,
    async search(query, limit) {
      const found = await retriever.invoke(query);
      return found.slice(0, limit).flatMap((d) => {
        const c = chunks[Number(d.metadata.row)];
        return c ? [c] : [];
      });
    },
    async close() {},
  };
}
