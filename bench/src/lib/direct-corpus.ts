/**
 * A server data dir holding `size` synthetic chunks written straight through the store and the
 * search index (records of a workspace, one text source per 10,000 chunks and their documents, then
 * the chunks), bypassing parsing and chunking: restart measurements at a million chunks, where
 * ingest over HTTP takes hours here. The passages are those of `syntheticEntries` (4 SQuAD sentences,
 * 100 per document).
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChunkIndex, type StoredChunk } from "@lore/server/retrieval/chunk-index.ts";
import type { DocumentRecord } from "@lore/server/store/records.ts";
import { Store } from "@lore/server/store/store.ts";
import { loadSquad } from "../datasets.ts";
import { log } from "./report.ts";
import { sentencePool, syntheticEntries } from "./synthetic.ts";

const CHUNKS_PER_SOURCE = 10_000;
const CHUNKS_PER_DOCUMENT = 100;

/** One chunk per passage, each with its own heading (the worst case for per-chunk metadata). */
export function passageChunks(
  passages: readonly { title: string; content: string }[],
  ids: { workspaceId: string; dataSourceId: string; documentId: string; title: string },
): StoredChunk[] {
  return passages.map((p, ordinal) => ({
    id: randomUUID(),
    workspaceId: ids.workspaceId,
    dataSourceId: ids.dataSourceId,
    documentId: ids.documentId,
    documentVersion: "v1",
    ordinal,
    text: p.content,
    title: ids.title,
    headingPath: [p.title],
    page: null,
    sourceUrl: null,
    kind: "text",
    tokenCount: p.content.split(" ").length,
  }));
}

/**
 * Chunks per source for a corpus of `size`: 10,000, or more past a million chunks so that one agent
 * can read them all (an agent reads at most 200 sources).
 */
export const chunksPerSourceFor = (size: number): number =>
  Math.max(CHUNKS_PER_SOURCE, Math.ceil(size / 100));

/** Fills `dataDir` (empty) and writes `<dataDir>/<marker>` with the chunk count; returns it. */
export async function writeDirectCorpus(
  dataDir: string,
  size: number,
  marker: string,
  options: { workspaceId?: string; firstSourceChunks?: number; chunksPerSource?: number } = {},
): Promise<number> {
  const store = await Store.open(dataDir);
  // Partitioned with no room: the chunks go to the table only, not into this process's own index
  // (ten million of them would hold as much memory here as the server holds after reading them).
  const index = await ChunkIndex.open(store.db, { embedder: null, maxChunks: 1 });
  const pool = sentencePool(loadSquad());
  const now = new Date().toISOString();
  // An existing workspace (the bench admin's, so its agents can read the sources), or a new one.
  const workspaceId = options.workspaceId ?? randomUUID();
  if (!options.workspaceId)
    await store.workspaces.put({ id: workspaceId, name: "Restart bench", personal: false, createdAt: now });
  const started = performance.now();
  let chunks = 0;
  // Sources of 10,000 chunks (or `chunksPerSource`), the first one smaller when asked (a small
  // agent's source on a big server holds the same passages as a server holding only that source).
  const perSource = options.chunksPerSource ?? CHUNKS_PER_SOURCE;
  const firstSize = options.firstSourceChunks ?? perSource;
  for (let sourceNumber = 0, first = 0, end = 0; first < size; sourceNumber++, first = end) {
    end = Math.min(size, first + (sourceNumber === 0 ? firstSize : perSource));
    const dataSourceId = randomUUID();
    const documents: { documentId: string; chunks: StoredChunk[] }[] = [];
    const records: DocumentRecord[] = [];
    for (let d = first; d < end; d += CHUNKS_PER_DOCUMENT) {
      const documentId = randomUUID();
      const title = `Document ${d / CHUNKS_PER_DOCUMENT}`;
      const passages = syntheticEntries(pool, d, Math.min(CHUNKS_PER_DOCUMENT, end - d));
      records.push({
        id: documentId,
        dataSourceId,
        workspaceId,
        title,
        kind: "text",
        sourceUrl: null,
        status: "indexed",
        error: null,
        chunkCount: passages.length,
        pageCount: null,
        bytes: passages.reduce((n, p) => n + p.content.length, 0),
        contentHash: randomUUID(),
        createdAt: now,
        updatedAt: now,
        externalId: title,
        storedFile: null,
      });
      documents.push({
        documentId,
        chunks: passageChunks(passages, { workspaceId, dataSourceId, documentId, title }),
      });
    }
    await index.replaceDocuments(documents);
    await store.documents.putMany(records);
    const chunkCount = records.reduce((n, r) => n + r.chunkCount, 0);
    chunks += chunkCount;
    await store.dataSources.put({
      id: dataSourceId,
      workspaceId,
      name: `Synthetic ${sourceNumber}`,
      type: "text",
      config: {},
      status: "ready",
      progress: { total: records.length, processed: records.length },
      lastSyncedAt: now,
      lastError: null,
      documentCount: records.length,
      chunkCount,
      schedule: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
      everReady: true,
    });
    log(`restart: direct corpus ${end} chunks (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  await index.optimize();
  await store.close();
  writeFileSync(join(dataDir, marker), String(chunks));
  return chunks;
}
