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
import { ChunkStore, NewestWrites, type StoredChunk, type StoredRow } from "./chunk-store.ts";
import type { Embedder } from "./embedder.ts";
import { HeldWorkspaces } from "./held-workspaces.ts";
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
import { defaultWordVectors, type WordVectors } from "./word-vectors.ts";

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
  /**
   * Partitioned (LORE_INDEX_MAX_CHUNKS): no workspace is in memory at open; a workspace's chunks load
   * at its first search, and past this many chunks held the least recently searched other workspaces
   * are let go. No snapshot is loaded or saved. Unset: every workspace is held, as loaded at open.
   */
  maxChunks?: number;
  /** Where a partitioned index tells of each load and eviction. */
  log?: (message: string, fields: Record<string, unknown>) => void;
  /** Where damage found while serving is reported (a chunk text that failed its checksum). */
  logError?: (message: string, fields: Record<string, unknown>) => void;
  /**
   * English word vectors for keyword search's meaning evidence (word-vectors.ts), read on first
   * search; default: those compiled into ./dictionaries. Returning null ranks by words alone.
   */
  wordVectors?: () => WordVectors | null;
}

/** What a partitioned index holds (for /readyz and the logs). */
export interface HeldIndex {
  maxChunks: number;
  chunks: number;
  workspaces: number;
}

/** Change-feed names: documents whose chunks changed, data sources whose chunks all went. */
const CHUNK_DOCUMENTS = "chunks";
const CHUNK_SOURCES = "chunk_sources";

/** How the in-memory index came to be at open, for the start-up log. */
export interface IndexStartup {
  /** `partitioned`: nothing loaded at open (LORE_INDEX_MAX_CHUNKS). */
  from: "snapshot" | "table" | "partitioned";
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
  /** Partitioned mode's bookkeeping; null: every workspace is held. */
  private readonly held: HeldWorkspaces | null;
  /** Partitioned mode: stored vectors of another embedder were found, so each load re-embeds. */
  private reembedOnLoad = false;

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
      maxChunks: number | null;
      log: (message: string, fields: Record<string, unknown>) => void;
      logError: (message: string, fields: Record<string, unknown>) => void;
      wordVectors: () => WordVectors | null;
    },
  ) {
    this.held = options.maxChunks === null ? null : new HeldWorkspaces(options.maxChunks);
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
      maxChunks: opts.maxChunks ?? null,
      log: opts.log ?? (() => undefined),
      logError: opts.logError ?? (() => undefined),
      wordVectors: opts.wordVectors ?? defaultWordVectors,
    };
    if (options.snapshotPath)
      mkdirSync(dirname(options.snapshotPath), { recursive: true, mode: PRIVATE_DIR_MODE });
    const texts = {
      dir: options.snapshotPath ? dirname(options.snapshotPath) : undefined,
      cacheEntries: opts.textCacheEntries,
    };
    if (options.maxChunks !== null) {
      // A snapshot of some workspaces at one moment would be stale for the rest; loads read the table.
      const index = new ChunkIndex(store, new MemoryIndex(lexical, undefined, texts), db, opts.embedder, {
        ...options,
        snapshotPath: null,
      });
      index.startup = {
        from: "partitioned",
        reason: "LORE_INDEX_MAX_CHUNKS: a workspace loads at its first search",
        ms: Math.round(performance.now() - started),
      };
      return index;
    }
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
    const staleWrites = await memory.loadStream(await store.tableWrites(), store.streamChunks());
    // Grown list by list, the postings took about half again their bytes: packed, they are as
    // small as a loaded index's.
    memory.packPostings();
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

  /** Partitioned mode: the budget, the chunks and the number of workspaces held; null otherwise. */
  get heldIndex(): HeldIndex | null {
    if (!this.held) return null;
    return { maxChunks: this.held.maxChunks, chunks: this.memory.size, workspaces: this.held.count };
  }

  /** Whether this workspace's chunks are in memory (always, unless partitioned). */
  holds(workspaceId: string): boolean {
    return !this.held || this.held.has(workspaceId);
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
      let replaced = documents
        .map((d) => d.documentId)
        .filter((id) => this.memory.hasDocument(id) || this.store.isUnclean(id));
      // Partitioned: memory knows only held workspaces' documents; the table tells of the others.
      if (this.held) {
        const unknown = documents
          .filter((d) => !this.memory.hasDocument(d.documentId))
          .filter((d) => d.chunks[0] === undefined || !this.holds(d.chunks[0].workspaceId))
          .map((d) => d.documentId);
        const stored = unknown.length > 0 ? await this.store.documentsWithRows(unknown) : new Set();
        replaced = [...new Set([...replaced, ...unknown.filter((id) => stored.has(id))])];
      }
      // Readers switch versions here, in one synchronous step.
      for (const { documentId } of documents) this.memory.removeDocument(documentId);
      for (const chunk of chunks) if (this.holds(chunk.workspaceId)) this.memory.add(chunk, writeId);
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
      // Partitioned: only the held workspaces' rows are read.
      const rows = await this.store.readDocuments(documentIds, this.held?.ids());
      const newest = newestWrites(rows);
      // One synchronous step, as for a local replacement.
      for (const id of documentIds) this.memory.removeDocument(id);
      for (const row of rows) {
        // Partitioned: another workspace's rows stay in the table until its first search here.
        if (newest.get(row.chunk.documentId) === row.writeId && this.holds(row.chunk.workspaceId))
          this.memory.add(row.chunk, row.writeId);
      }
    });
  }

  /**
   * After missed signals (or at a shared-mode start): compares which write of each document the table
   * holds with what memory holds, and reloads the documents that differ. Reads three columns of every
   * row, not the text.
   */
  async reconcile(): Promise<{ reloaded: number; removed: number }> {
    // Partitioned: only the held workspaces' documents are compared.
    if (this.held?.count === 0) return { reloaded: 0, removed: 0 };
    const filter = this.held ? { workspaceIds: this.held.ids() } : {};
    const { newest } = await this.store.tableWrites(filter);
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
    const orphans = this.held
      ? // Partitioned: the table knows every workspace's documents.
        [...(await this.store.tableWrites({ dataSourceId })).newest.keys()].filter(
          (id) => !liveDocumentIds.has(id),
        )
      : this.memory
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
    const held = this.memory.liveCount(dataSourceId);
    if (!this.held || held > 0) return held;
    // Partitioned: a source of a workspace not held is counted in the table (its newest writes).
    return (await this.store.tableWrites({ dataSourceId })).liveRows;
  }

  /** The chunks of a document's indexed version, in document order (empty for an unknown document or, partitioned, one of a workspace not held). */
  documentChunks(documentId: string): StoredChunk[] {
    return this.memory.chunksOf(documentId);
  }

  /**
   * As `documentChunks` for several documents; partitioned, those of workspaces not held are read
   * from the table (their newest write), in one read.
   */
  async readDocumentChunks(documentIds: readonly string[]): Promise<Map<string, StoredChunk[]>> {
    const out = new Map<string, StoredChunk[]>();
    const missing: string[] = [];
    for (const id of documentIds) {
      if (!this.held || this.memory.hasDocument(id)) out.set(id, this.memory.chunksOf(id));
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    const rows = await this.store.readDocuments(missing);
    const newest = newestWrites(rows);
    for (const id of missing) out.set(id, []);
    for (const row of rows) {
      if (newest.get(row.chunk.documentId) === row.writeId) out.get(row.chunk.documentId)?.push(row.chunk);
    }
    for (const chunks of out.values()) chunks.sort((a, b) => a.ordinal - b.ordinal);
    return out;
  }

  /** Whether a word is a stop word, or a term some chunk (any source) holds; see LexicalIndex.wordStatus. */
  wordStatus(word: string): "stop" | "known" | "unknown" {
    return this.memory.lexical.wordStatus(word);
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
    if (!this.held) return this.searchHeld(params);
    const pinned = await this.holdWorkspacesOf(params);
    try {
      return await this.searchHeld(params);
    } finally {
      this.held.unpin(pinned);
      this.compactIfIdle();
    }
  }

  private async searchHeld(params: SearchParams): Promise<SearchResult> {
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
    const limits = {
      topK: params.topK,
      minScore: params.minScore,
      nearDuplicateThreshold: this.options.nearDuplicateThreshold,
    };
    result.hits = pickTop(this.memory, scored, limits);
    // A damaged chunk text is never quoted: read again from the table, and the pick made again.
    if (await this.repairDamagedTexts()) result.hits = pickTop(this.memory, scored, limits);
    return result;
  }

  /**
   * Chunks whose text failed its checksum in the text file (left out of the hits): their texts are
   * read again from the chunks table and written anew. Returns whether there were any.
   */
  private async repairDamagedTexts(): Promise<boolean> {
    const slots = this.memory.takeDamagedTexts();
    if (slots.length === 0) return false;
    const ids = new Map<string, number>();
    for (const slot of slots) {
      const id = this.memory.chunkIdAt(slot);
      if (id) ids.set(id, slot);
    }
    const rows = await this.store.readChunksById([...ids.keys()]);
    for (const { chunk } of rows) {
      const slot = ids.get(chunk.id);
      if (slot !== undefined) this.memory.rewriteText(slot, chunk.headingPath, chunk.text);
    }
    this.options.logError(
      "chunk texts in the text file did not match their checksums; read again from the table",
      {
        table: this.options.chunksTable,
        damaged: slots.length,
        repaired: rows.length,
      },
    );
    return true;
  }

  /**
   * The candidates of a query with the feature vector the mode's calibration model reads
   * (for `bench/` to fit the models; see calibration.ts).
   */
  async explain(params: SearchParams): Promise<{ chunk: StoredChunk; features: number[] }[]> {
    const pinned = this.held ? await this.holdWorkspacesOf(params) : [];
    try {
      return await this.explainHeld(params);
    } finally {
      this.held?.unpin(pinned);
    }
  }

  private async explainHeld(params: SearchParams): Promise<{ chunk: StoredChunk; features: number[] }[]> {
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
    if (this.held && !this.reembedOnLoad) {
      // Partitioned: memory holds few workspaces, so each load re-embeds its own once this finds any
      // vector of another model (a changed model's table of other dimensions was emptied at open).
      const name = this.embedder.name;
      const stamps = await this.store.vectorStamps();
      this.reembedOnLoad =
        stamps.some((s) => s.embedder !== name) || stamps.length < (await this.store.chunkRowCount());
    }
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

  /**
   * Partitioned mode: loads the workspaces of the searched sources that are not held, pinned so no
   * other search's load lets them go before this search is done. Returns the pinned workspace ids.
   */
  private async holdWorkspacesOf(params: SearchParams): Promise<string[]> {
    const held = this.held;
    if (!held) return [];
    const workspaces = new Set<string>();
    if (params.workspaceId !== undefined) workspaces.add(params.workspaceId);
    else {
      for (const id of params.dataSourceIds) {
        let workspaceId = held.workspaceOfSource.get(id);
        if (workspaceId === undefined) {
          workspaceId = (await this.store.workspaceOfSource(id)) ?? undefined;
          if (workspaceId !== undefined) held.workspaceOfSource.set(id, workspaceId);
        }
        if (workspaceId !== undefined) workspaces.add(workspaceId);
      }
    }
    const ids = [...workspaces];
    held.pin(ids);
    try {
      for (const id of ids) {
        if (held.has(id)) held.touch(id);
        else await this.loadWorkspace(id);
      }
    } catch (error) {
      held.unpin(ids);
      throw error;
    }
    return ids;
  }

  /** Reads a workspace's chunks into memory (once, however many searches wait), then keeps to the budget. */
  private loadWorkspace(workspaceId: string): Promise<void> {
    const held = this.held;
    if (!held) return Promise.resolve();
    const pending = held.loading.get(workspaceId);
    if (pending) return pending;
    // In the write queue: a write queued before lands in the table first (and is read), one queued
    // after finds the workspace held and updates memory too; neither is lost or doubled.
    const load = this.writes
      .run(async () => {
        if (held.has(workspaceId)) return;
        const started = performance.now();
        const before = this.memory.size;
        const stale = await this.memory.loadStream(
          await this.store.tableWrites({ workspaceIds: [workspaceId] }),
          this.store.streamChunks(workspaceId),
        );
        if (stale.size > 0) await this.store.deleteWrites(stale);
        held.touch(workspaceId);
        this.options.log("search index loaded a workspace", {
          workspaceId,
          chunks: this.memory.size - before,
          ms: Math.round(performance.now() - started),
          heldChunks: this.memory.size,
          heldWorkspaces: held.count,
        });
        this.evictPastBudget(held);
      })
      .finally(() => held.loading.delete(workspaceId));
    held.loading.set(workspaceId, load);
    return load.then(() => {
      if (this.embedder && this.reembedOnLoad) void this.reembedIfModelChanged().catch(() => undefined);
    });
  }

  /** Lets the least recently searched workspaces go (never one a search is using) until within budget. */
  private evictPastBudget(held: HeldWorkspaces): void {
    while (this.memory.size > held.maxChunks) {
      const victim = held.evictable();
      if (victim === undefined) break;
      const started = performance.now();
      const chunks = this.memory.removeWorkspace(victim);
      held.drop(victim);
      this.options.log("search index let a workspace go", {
        workspaceId: victim,
        chunks,
        ms: Math.round(performance.now() - started),
        heldChunks: this.memory.size,
        heldWorkspaces: held.count,
      });
    }
    this.compactIfIdle();
  }

  /**
   * Compacts after evictions, but only while no search runs (compaction renumbers slots): a load's
   * own search is still running, so its evictions are compacted when the last search ends.
   */
  private compactIfIdle(): void {
    if (this.held && !this.held.searching) this.memory.compactIfSparse();
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
    return candidateFeatures(
      this.memory,
      params,
      mode,
      allowed,
      (limit) => this.vectorCandidates(params, allowed, limit),
      mode === "keyword" ? this.options.wordVectors() : null,
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

/** Document id → the write id of its newest rows. */
function newestWrites(rows: readonly StoredRow[]): Map<string, string> {
  const newest = new NewestWrites();
  for (const row of rows) newest.note(row.chunk.documentId, row.writeId, row.indexedAt);
  return newest.byDocument();
}
