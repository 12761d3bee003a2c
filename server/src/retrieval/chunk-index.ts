import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Connection } from "@lancedb/lancedb";
import type { RetrievalMode } from "@lore/shared";
import { AppError } from "../errors.ts";
import { type ChangeFeed, singleProcessFeed } from "../store/change-feed.ts";
import { PRIVATE_DIR_MODE } from "../store/permissions.ts";
import { WriteQueue } from "../store/write-queue.ts";
import { embedChunks, reembedStaleChunks, vectorRow } from "./chunk-embedding.ts";
import { ChunkStore, type StoredChunk } from "./chunk-store.ts";
import type { Embedder } from "./embedder.ts";
import { defaultLexicalParams, type LexicalParams } from "./lexical-index.ts";
import { MemoryIndex } from "./memory-index.ts";
import {
  loadMemorySnapshot,
  SNAPSHOT_LAYOUT,
  type SnapshotKey,
  saveMemorySnapshot,
} from "./memory-snapshot.ts";
import {
  type Candidate,
  candidateFeatures,
  pickTop,
  type SearchHit,
  type SearchParams,
  scoreCandidates,
  throwIfAborted,
} from "./ranking.ts";

export type { ChunkRecord, StoredChunk } from "./chunk-store.ts";
export type { SearchHit, SearchParams } from "./ranking.ts";

export interface SearchResult {
  hits: SearchHit[];
  requestedMode: RetrievalMode;
  /** The mode actually used: `keyword` when no embedder is configured. */
  mode: RetrievalMode;
  fellBack: boolean;
}

export interface ChunkIndexOptions {
  embedder: Embedder | null;
  lexical?: Partial<LexicalParams>;
  /** Vector count from which `optimize()` builds an ANN index; below it vector search is exact. */
  vectorIndexThreshold?: number;
  /** Jaccard overlap of word 3-shingles above which a lower-ranked hit counts as a near-duplicate. */
  nearDuplicateThreshold?: number;
  /** Table names (tests may isolate). */
  chunksTable?: string;
  vectorsTable?: string;
  /**
   * Where the in-memory index is saved (at shutdown, after optimisation) and loaded from at open when
   * it matches the chunks table's version; unset: always rebuilt from the table.
   */
  snapshotPath?: string;
  /** Shared mode: other replicas' index writes arrive here, this one's are published. */
  feed?: ChangeFeed;
  /**
   * Chunk texts kept decoded in memory (the rest are read from a file beside the snapshot, or in the
   * OS temp dir without one); default DEFAULT_TEXT_CACHE_ENTRIES.
   */
  textCacheEntries?: number;
}

/** Change-feed names: documents whose chunks changed, data sources whose chunks all went. */
const CHUNK_DOCUMENTS = "chunks";
const CHUNK_SOURCES = "chunk_sources";

/** How the in-memory index came to be at open, for the start-up log. */
export interface IndexStartup {
  from: "snapshot" | "table";
  /** Why the snapshot was not used (none yet, stale, damaged), when it was not. */
  reason: string | null;
  ms: number;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function assertUuid(id: string, field: string): void {
  if (!uuidPattern.test(id)) {
    throw new AppError("validation_error", `${field} must be a UUID`, {
      fields: { [field]: ["must be a UUID"] },
    });
  }
}

/** Optimisation saves a snapshot at most this often; shutdown always does. */
const SNAPSHOT_INTERVAL_MS = 5 * 60_000;

function snapshotKey(
  options: { chunksTable: string; lexical: LexicalParams },
  tableVersion: number,
): SnapshotKey {
  return { layout: SNAPSHOT_LAYOUT, table: options.chunksTable, tableVersion, params: options.lexical };
}

/**
 * The chunk index: LanceDB tables are the store of record (chunk-store.ts); BM25 and its reranking
 * features run on an in-memory index rebuilt from them at open (memory-index.ts), which is also what
 * makes a document's replacement atomic for readers; ranking.ts turns candidates into calibrated hits.
 * This class sequences them: every write goes through one queue.
 */
export class ChunkIndex {
  private readonly writes = new WriteQueue();
  /** The table version of the last snapshot saved or loaded (none: −1). */
  private snapshotVersion = -1;
  private saving: Promise<void> | null = null;
  private snapshotSavedAt = 0;
  startup: IndexStartup = { from: "table", reason: null, ms: 0 };

  private constructor(
    private readonly store: ChunkStore,
    private readonly memory: MemoryIndex,
    private readonly db: Connection,
    private readonly embedder: Embedder | null,
    private readonly options: {
      vectorIndexThreshold: number;
      nearDuplicateThreshold: number;
      snapshotPath: string | null;
      chunksTable: string;
      lexical: LexicalParams;
      feed: ChangeFeed;
    },
  ) {
    options.feed.on(CHUNK_DOCUMENTS, async (ids) => {
      if (ids) await this.reloadDocuments(ids);
      else await this.reconcile();
    });
    options.feed.on(CHUNK_SOURCES, async (ids) => {
      if (ids) await this.writes.run(async () => this.forgetSourcesNow(ids));
    });
  }

  /**
   * Opens the tables and the in-memory index: loaded from the snapshot when it was saved at the
   * chunks table's current version with the same parameters, else rebuilt from the table (and a
   * fresh snapshot saved in the background).
   */
  static async open(db: Connection, opts: ChunkIndexOptions): Promise<ChunkIndex> {
    const started = performance.now();
    const chunksTable = opts.chunksTable ?? "retrieval_chunks";
    const store = await ChunkStore.open(db, opts.embedder, {
      chunksTable,
      vectorsTable: opts.vectorsTable ?? "retrieval_vectors",
    });
    const lexical = { ...defaultLexicalParams, ...opts.lexical };
    const options = {
      vectorIndexThreshold: opts.vectorIndexThreshold ?? 50_000,
      nearDuplicateThreshold: opts.nearDuplicateThreshold ?? 0.8,
      snapshotPath: opts.snapshotPath ?? null,
      chunksTable,
      lexical,
      feed: opts.feed ?? singleProcessFeed,
    };
    if (options.snapshotPath)
      mkdirSync(dirname(options.snapshotPath), { recursive: true, mode: PRIVATE_DIR_MODE });
    const texts = {
      dir: options.snapshotPath ? dirname(options.snapshotPath) : undefined,
      cacheEntries: opts.textCacheEntries,
    };
    const version = await store.chunksVersion();
    let reason: string | null = "no snapshot path";
    if (options.snapshotPath) {
      try {
        const loaded = await loadMemorySnapshot(options.snapshotPath, snapshotKey(options, version), {
          texts,
        });
        if (loaded) {
          const index = new ChunkIndex(store, loaded, db, opts.embedder, options);
          index.snapshotVersion = version;
          index.startup = { from: "snapshot", reason: null, ms: Math.round(performance.now() - started) };
          return index;
        }
        reason = "no snapshot for the table's version";
        // Shared mode: other replicas moved the table on since this one saved; an older snapshot
        // plus `reconcile()` (which the caller runs) is far cheaper than a rebuild.
        if (options.feed.shared) {
          const older = await loadMemorySnapshot(options.snapshotPath, snapshotKey(options, version), {
            anyTableVersion: true,
            texts,
          });
          if (older) {
            const index = new ChunkIndex(store, older, db, opts.embedder, options);
            index.startup = {
              from: "snapshot",
              reason: "saved at an earlier table version; reconciled with the table",
              ms: Math.round(performance.now() - started),
            };
            return index;
          }
        }
      } catch (error) {
        reason = `damaged snapshot: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    const memory = new MemoryIndex(lexical, undefined, texts);
    const index = new ChunkIndex(store, memory, db, opts.embedder, options);
    // Streamed: at a million chunks the whole table as objects took gigabytes the process kept.
    const staleWrites = await memory.loadStream(await store.writeStamps(), store.streamChunks());
    if (staleWrites.size > 0) await index.writes.run(() => store.deleteWrites(staleWrites));
    index.startup = { from: "table", reason, ms: Math.round(performance.now() - started) };
    // The next start loads this instead of rebuilding (a crash before any graceful stop included).
    if (options.snapshotPath) void index.saveSnapshot().catch(() => undefined);
    return index;
  }

  /**
   * Saves the in-memory index with the chunks table's version, unless a snapshot of that version is
   * already saved. The index is captured inside the write queue (so it matches that version) and
   * written to disk outside it.
   */
  async saveSnapshot(): Promise<void> {
    const path = this.options.snapshotPath;
    if (!path) return;
    // One save at a time; a call during a save saves again after it (the index may have moved on).
    if (this.saving) return this.saving.then(() => this.saveSnapshot());
    this.saving = (async () => {
      const captured = await this.writes.run(async () => {
        const version = await this.store.chunksVersion();
        if (version === this.snapshotVersion) return null;
        return {
          version,
          written: saveMemorySnapshot(path, snapshotKey(this.options, version), this.memory),
        };
      });
      if (!captured) return;
      await captured.written;
      this.snapshotVersion = captured.version;
      this.snapshotSavedAt = Date.now();
    })().finally(() => {
      this.saving = null;
    });
    return this.saving;
  }

  /** The embedder's name, or null when retrieval is BM25 only. */
  get embedderName(): string | null {
    return this.embedder?.name ?? null;
  }

  /** Live chunks in memory (all sources). */
  get size(): number {
    return this.memory.size;
  }

  /**
   * Atomically replaces a document's chunks: the new version's rows are added first, then the old
   * version's rows removed, so searches see one or the other (never none).
   */
  async replaceDocument(documentId: string, chunks: StoredChunk[]): Promise<void> {
    await this.replaceDocuments([{ documentId, chunks }]);
  }

  /**
   * Replaces several documents' chunks with one commit: every new row is added first, then readers
   * switch to the new versions in one synchronous step, then the old versions' rows are removed.
   */
  async replaceDocuments(documents: readonly { documentId: string; chunks: StoredChunk[] }[]): Promise<void> {
    for (const { documentId, chunks } of documents) {
      for (const chunk of chunks) {
        if (chunk.documentId !== documentId) {
          throw new AppError("validation_error", "every chunk must belong to the document being replaced", {
            documentId,
            chunkDocumentId: chunk.documentId,
          });
        }
        assertUuid(chunk.dataSourceId, "dataSourceId");
      }
    }
    if (documents.length === 0) return;
    const chunks = documents.flatMap((d) => d.chunks);
    const writeId = randomUUID();
    const embedder = this.embedder;
    // Embedding (possibly a remote call) happens before the write queue so other writes are not held up.
    const vectors = embedder && chunks.length > 0 ? await embedChunks(embedder, chunks) : null;
    await this.writes.run(async () => {
      if (chunks.length > 0) {
        await this.store.addChunks(chunks, writeId, Date.now());
        if (this.store.hasVectors && embedder && vectors) {
          await this.store.addVectors(chunks.map((c, i) => vectorRow(c, writeId, embedder, vectors[i])));
        }
      }
      // A document with no live chunk and no failed delete has no rows to remove: skipping the delete
      // (a scan of the whole table) keeps first-time indexing from slowing down as the table grows.
      const replaced = documents
        .map((d) => d.documentId)
        .filter((id) => this.memory.hasDocument(id) || this.store.isUnclean(id));
      // Readers switch versions here, in one synchronous step.
      for (const { documentId } of documents) this.memory.removeDocument(documentId);
      for (const chunk of chunks) this.memory.add(chunk, writeId);
      await this.store.deleteDocuments(replaced, writeId);
      await this.options.feed.publish({ table: CHUNK_DOCUMENTS, ids: documents.map((d) => d.documentId) });
    });
  }

  /** Removes documents at once from search results, then from the store. */
  async deleteDocuments(documentIds: string[]): Promise<void> {
    if (documentIds.length === 0) return;
    for (const id of documentIds) this.memory.removeDocument(id);
    await this.writes.run(async () => {
      // Again inside the queue: a replacement queued before this call must not resurrect the document.
      for (const id of documentIds) this.memory.removeDocument(id);
      await this.store.deleteDocuments(documentIds);
      await this.options.feed.publish({ table: CHUNK_DOCUMENTS, ids: documentIds });
    });
  }

  /**
   * Takes other replicas' writes of these documents: their chunks as the table holds them now (the
   * newest write of each; none when the document was deleted).
   */
  reloadDocuments(documentIds: readonly string[]): Promise<void> {
    if (documentIds.length === 0) return Promise.resolve();
    return this.writes.run(async () => {
      const rows = await this.store.readDocuments(documentIds);
      const newest = newestWrites(rows.map((r) => ({ documentId: r.chunk.documentId, ...r })));
      // One synchronous step, as for a local replacement.
      for (const id of documentIds) this.memory.removeDocument(id);
      for (const row of rows) {
        if (newest.get(row.chunk.documentId) === row.writeId) this.memory.add(row.chunk, row.writeId);
      }
    });
  }

  /**
   * After missed signals (or at a shared-mode start): compares which write of each document the table
   * holds with what memory holds, and reloads the documents that differ. Reads three columns of every
   * row, not the text.
   */
  async reconcile(): Promise<{ reloaded: number; removed: number }> {
    const newest = newestWrites(await this.store.writeStamps());
    const stale = [...newest]
      .filter(([id, writeId]) => this.memory.liveWriteOf(id) !== writeId)
      .map(([id]) => id);
    const gone = this.memory.documentIds().filter((id) => !newest.has(id));
    await this.reloadDocuments([...stale, ...gone]);
    return { reloaded: stale.length, removed: gone.length };
  }

  /**
   * Removes chunks whose document has no record: a crash between indexing a new document and
   * recording it leaves such chunks, and the retried sync indexes the document again under a new id.
   * `dataSourceId`: only that source's (in shared mode, where only the holder of its sync lease may
   * judge: another replica may be between the two steps for another source).
   */
  async deleteOrphans(liveDocumentIds: ReadonlySet<string>, dataSourceId?: string): Promise<number> {
    const orphans = this.memory
      .documentIds()
      .filter(
        (id) =>
          !liveDocumentIds.has(id) &&
          (dataSourceId === undefined || this.memory.sourceOfDocument(id) === dataSourceId),
      );
    await this.deleteDocuments(orphans);
    return orphans.length;
  }

  /** Removes every chunk of these data sources at once from search results, then from the store (one commit). */
  async deleteDataSources(dataSourceIds: readonly string[]): Promise<void> {
    for (const id of dataSourceIds) assertUuid(id, "dataSourceId");
    if (dataSourceIds.length === 0) return;
    this.memory.removeSources(dataSourceIds);
    await this.writes.run(async () => {
      // Again inside the queue: a write queued before this one may have added chunks of them meanwhile.
      this.memory.removeSources(dataSourceIds);
      await this.store.deleteDataSources(dataSourceIds);
      this.memory.forgetSources(dataSourceIds);
      await this.options.feed.publish({ table: CHUNK_SOURCES, ids: dataSourceIds });
    });
  }

  private forgetSourcesNow(dataSourceIds: readonly string[]): void {
    this.memory.removeSources(dataSourceIds);
    this.memory.forgetSources(dataSourceIds);
  }

  async countByDataSource(dataSourceId: string): Promise<number> {
    return this.memory.liveCount(dataSourceId);
  }

  /** The chunks of a document's indexed version, in document order (empty for an unknown document). */
  documentChunks(documentId: string): StoredChunk[] {
    return this.memory.chunksOf(documentId);
  }

  /** Of a question's terms, how many the index (every source) never mentions; see LexicalIndex.unknownTerms. */
  unknownTerms(query: string): { terms: number; unknown: number } {
    return this.memory.lexical.unknownTerms(query);
  }

  /** Ranked, de-duplicated chunks of the given sources with calibrated scores. */
  async search(params: SearchParams): Promise<SearchHit[]> {
    return (await this.searchWithInfo(params)).hits;
  }

  /** As `search`, also telling which mode actually ran (semantic and hybrid fall back to keyword without an embedder). */
  async searchWithInfo(params: SearchParams): Promise<SearchResult> {
    if (params.dataSourceIds.length === 0) {
      throw new AppError("validation_error", "dataSourceIds must not be empty", {
        fields: { dataSourceIds: ["must not be empty"] },
      });
    }
    for (const id of params.dataSourceIds) assertUuid(id, "dataSourceIds");
    const mode = this.modeFor(params);
    const result: SearchResult = {
      hits: [],
      requestedMode: params.mode,
      mode,
      fellBack: mode !== params.mode,
    };
    throwIfAborted(params.signal);
    const allowed = this.memory.sourceNumbers(params.dataSourceIds);
    if (allowed.size === 0 || params.query.trim() === "") return result;
    const scored = scoreCandidates(await this.candidates(params, mode, allowed), mode);
    result.hits = pickTop(this.memory, scored, {
      topK: params.topK,
      minScore: params.minScore,
      nearDuplicateThreshold: this.options.nearDuplicateThreshold,
    });
    return result;
  }

  /**
   * The candidates of a query with the feature vector the mode's calibration model reads
   * (for `bench/` to fit the models; see calibration.ts).
   */
  async explain(params: SearchParams): Promise<{ chunk: StoredChunk; features: number[] }[]> {
    const mode = this.modeFor(params);
    const allowed = this.memory.sourceNumbers(params.dataSourceIds);
    const rows = await this.candidates(params, mode, allowed);
    return rows.flatMap(({ slot, features }) => {
      const chunk = this.memory.chunkAt(slot);
      return chunk ? [{ chunk, features }] : [];
    });
  }

  /**
   * Re-embeds chunks whose stored vector was made by another embedder (or that have none).
   * Returns how many chunks were embedded.
   */
  async reembedIfModelChanged(): Promise<number> {
    if (!this.embedder || !this.store.hasVectors) return 0;
    return reembedStaleChunks(this.embedder, this.store, this.memory, this.writes);
  }

  /**
   * Compacts the tables and the in-memory index; builds the vector index once there are enough
   * vectors; then saves a snapshot (at most every few minutes: at a million chunks one is ~2 GB),
   * so a restart after a crash often finds a current one.
   */
  async optimize(): Promise<void> {
    await this.optimizeTables();
    await this.optimizeMemory();
  }

  /** The tables' part of `optimize` (in shared mode one replica does it for the fleet). */
  optimizeTables(): Promise<void> {
    return this.writes.run(() => this.store.optimize(this.options.vectorIndexThreshold));
  }

  /** This process's part of `optimize`: its in-memory index and its snapshot. */
  async optimizeMemory(): Promise<void> {
    this.memory.compactIfSparse();
    if (Date.now() - this.snapshotSavedAt >= SNAPSHOT_INTERVAL_MS) await this.saveSnapshot();
  }

  /** Removes the file of chunk texts (once a snapshot being written is done with it); the index is not used after. */
  close(): void {
    this.memory.close();
  }

  /** For tests and tools: the LanceDB connection the index lives in. */
  get connection(): Connection {
    return this.db;
  }

  /** Semantic and hybrid need an embedder; without one every mode runs as keyword. */
  private modeFor(params: SearchParams): RetrievalMode {
    return this.effectiveMode(params.mode);
  }

  /** The mode a search asking for `mode` runs in (keyword without an embedder). */
  effectiveMode(mode: RetrievalMode): RetrievalMode {
    return this.embedder && this.store.hasVectors ? mode : "keyword";
  }

  private candidates(
    params: SearchParams,
    mode: RetrievalMode,
    allowed: ReadonlySet<number>,
  ): Promise<Candidate[]> {
    return candidateFeatures(this.memory, params, mode, allowed, (limit) =>
      this.vectorCandidates(params, allowed, limit),
    );
  }

  /** Live slot → cosine similarity for the nearest vectors among the allowed sources. */
  private async vectorCandidates(
    params: SearchParams,
    allowed: ReadonlySet<number>,
    limit: number,
  ): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (!this.embedder || !this.store.hasVectors) return out;
    const [vector] = await this.embedder.embed([params.query], params.signal);
    if (!vector) return out;
    const sources = params.dataSourceIds.filter((id) => {
      const n = this.memory.sourceNumberOf(id);
      return n !== undefined && allowed.has(n);
    });
    for (const row of await this.store.nearestVectors(vector, sources, limit)) {
      // Vectors of a replaced or deleted version may linger until the write queue removes them.
      const slot = this.memory.liveSlot(row.id, row.writeId);
      if (slot !== undefined) out.set(slot, Math.max(0, Math.min(1, 1 - row._distance)));
    }
    return out;
  }
}

/** Document id → the write id of its newest rows (a crash mid-replacement can leave two writes). */
function newestWrites(
  stamps: readonly { documentId: string; writeId: string; indexedAt: number }[],
): Map<string, string> {
  const newest = new Map<string, { writeId: string; indexedAt: number }>();
  for (const stamp of stamps) {
    const seen = newest.get(stamp.documentId);
    if (!seen || stamp.indexedAt > seen.indexedAt) newest.set(stamp.documentId, stamp);
  }
  return new Map([...newest].map(([id, { writeId }]) => [id, writeId]));
}
