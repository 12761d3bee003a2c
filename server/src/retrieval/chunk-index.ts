import { randomUUID } from "node:crypto";
import { type Connection, Index, type Table } from "@lancedb/lancedb";
import type { DocumentKind, RetrievalMode } from "@lore/shared";
import {
  type Table as ArrowTable,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int32,
  Schema,
  Utf8,
} from "apache-arrow";
import { AppError } from "../errors.ts";
import { WriteQueue } from "../store/write-queue.ts";
import {
  applyModel,
  hybridFeatures,
  hybridModel,
  keywordFeatures,
  keywordModel,
  type LogisticModel,
  semanticFeatures,
  semanticModel,
} from "./calibration.ts";
import { type ChunkMeta, ChunkSlots } from "./chunk-slots.ts";
import type { Embedder } from "./embedder.ts";
import {
  defaultLexicalParams,
  type LexicalFeatures,
  LexicalIndex,
  type LexicalParams,
} from "./lexical-index.ts";
import { jaccard } from "./text-analysis.ts";

export interface ChunkRecord {
  id: string;
  workspaceId: string;
  dataSourceId: string;
  documentId: string;
  /** Content hash of the document version the chunk came from. */
  documentVersion: string;
  ordinal: number;
  text: string;
  title: string;
  headingPath: string[];
  page: number | null;
  sourceUrl: string | null;
  kind: DocumentKind;
  tokenCount: number;
  vector?: Float32Array | null;
}

export type StoredChunk = Omit<ChunkRecord, "vector">;

export interface SearchParams {
  query: string;
  /** Required, non-empty: the agent's sources ∩ the request's. */
  dataSourceIds: string[];
  topK: number;
  minScore: number;
  mode: RetrievalMode;
  signal?: AbortSignal;
}

export interface SearchHit {
  chunk: StoredChunk;
  /** Estimated probability (0..1) that the chunk answers the query; same meaning in every mode. */
  score: number;
}

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
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const embedBatchSize = 64;

const chunkSchema = new Schema([
  new Field("id", new Utf8(), false),
  new Field("workspaceId", new Utf8(), false),
  new Field("dataSourceId", new Utf8(), false),
  new Field("documentId", new Utf8(), false),
  new Field("documentVersion", new Utf8(), false),
  new Field("writeId", new Utf8(), false),
  new Field("indexedAt", new Float64(), false),
  new Field("ordinal", new Int32(), false),
  new Field("text", new Utf8(), false),
  new Field("title", new Utf8(), false),
  new Field("headingPath", new Utf8(), false),
  new Field("page", new Int32(), true),
  new Field("sourceUrl", new Utf8(), true),
  new Field("kind", new Utf8(), false),
  new Field("tokenCount", new Int32(), false),
]);

function vectorSchema(dimensions: number): Schema {
  return new Schema([
    new Field("id", new Utf8(), false),
    new Field("dataSourceId", new Utf8(), false),
    new Field("documentId", new Utf8(), false),
    new Field("writeId", new Utf8(), false),
    new Field("embedder", new Utf8(), false),
    new Field("vector", new FixedSizeList(dimensions, new Field("item", new Float32(), true)), false),
  ]);
}

type ChunkRow = Omit<StoredChunk, "headingPath"> & {
  headingPath: string;
  writeId: string;
  indexedAt: number;
};

type VectorRow = {
  id: string;
  dataSourceId: string;
  documentId: string;
  writeId: string;
  embedder: string;
  vector: number[];
};

const modelByMode: Record<RetrievalMode, LogisticModel> = {
  keyword: keywordModel,
  semantic: semanticModel,
  hybrid: hybridModel,
};

/** Quotes a value for a LanceDB SQL predicate. */
function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function sqlList(values: Iterable<string>): string {
  return [...values].map(sqlString).join(", ");
}

function assertUuid(id: string, field: string): void {
  if (!uuidPattern.test(id)) {
    throw new AppError("validation_error", `${field} must be a UUID`, {
      fields: { [field]: ["must be a UUID"] },
    });
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
}

/**
 * The chunk index: LanceDB tables are the store of record (chunks, and vectors when an embedder is
 * configured); BM25 and its reranking features run on an in-memory index rebuilt from LanceDB at open,
 * which is also what makes a document's replacement atomic for readers.
 */
export class ChunkIndex {
  private readonly writes = new WriteQueue();
  private readonly lexical: LexicalIndex;
  /** The chunk behind each lexical slot, packed (text as UTF-8, shared fields once per document). */
  private readonly slots = new ChunkSlots();
  private readonly slotById = new Map<string, number>();
  private readonly slotsByDocument = new Map<string, number[]>();
  private readonly sourceNumber = new Map<string, number>();
  private readonly liveBySource = new Map<number, number>();
  private nextSourceNumber = 0;
  /** Document id → small number, so the lexical index can pool a document's chunks. */
  private readonly documentNumber = new Map<string, number>();
  private nextDocumentNumber = 0;
  private vectorIndexBuilt = false;
  /** The meta of the chunk added last, reused by the next chunk of the same document and write. */
  private lastMeta: ChunkMeta | null = null;
  /** Documents whose stale rows a failed delete may have left in the tables. */
  private readonly uncleanDocuments = new Set<string>();

  private constructor(
    private readonly chunks: Table,
    private vectors: Table | null,
    private readonly db: Connection,
    private readonly embedder: Embedder | null,
    private readonly options: Required<Omit<ChunkIndexOptions, "embedder" | "lexical">>,
    lexicalParams: LexicalParams,
  ) {
    this.lexical = new LexicalIndex(lexicalParams);
  }

  static async open(db: Connection, opts: ChunkIndexOptions): Promise<ChunkIndex> {
    const options = {
      vectorIndexThreshold: opts.vectorIndexThreshold ?? 50_000,
      nearDuplicateThreshold: opts.nearDuplicateThreshold ?? 0.8,
      chunksTable: opts.chunksTable ?? "retrieval_chunks",
      vectorsTable: opts.vectorsTable ?? "retrieval_vectors",
    };
    const names = new Set(await db.tableNames());
    const chunks = names.has(options.chunksTable)
      ? await db.openTable(options.chunksTable)
      : await db.createEmptyTable(options.chunksTable, chunkSchema, { existOk: true });
    let vectors: Table | null = null;
    if (opts.embedder) {
      const schema = vectorSchema(opts.embedder.dimensions);
      if (names.has(options.vectorsTable)) {
        vectors = await db.openTable(options.vectorsTable);
        const field = (await vectors.schema()).fields.find((f) => f.name === "vector");
        // Duck-typed: LanceDB may hand back arrow classes from its own copy of apache-arrow.
        const type: unknown = field?.type;
        const dims =
          typeof type === "object" && type !== null && "listSize" in type ? Number(type.listSize) : -1;
        // A model with other dimensions makes every stored vector useless: start over and re-embed.
        if (dims !== opts.embedder.dimensions) {
          await db.dropTable(options.vectorsTable);
          vectors = await db.createEmptyTable(options.vectorsTable, schema);
        }
      } else {
        vectors = await db.createEmptyTable(options.vectorsTable, schema, { existOk: true });
      }
    }
    const index = new ChunkIndex(chunks, vectors, db, opts.embedder, options, {
      ...defaultLexicalParams,
      ...opts.lexical,
    });
    await index.load();
    return index;
  }

  /** The embedder's name, or null when retrieval is BM25 only. */
  get embedderName(): string | null {
    return this.embedder?.name ?? null;
  }

  /** Live chunks in memory (all sources). */
  get size(): number {
    return this.lexical.size;
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
    // Embedding (possibly a remote call) happens before the write queue so other writes are not held up.
    const vectors =
      this.embedder && chunks.length > 0 ? await this.embedAll(chunks.map(embeddingText)) : null;
    await this.writes.run(async () => {
      const indexedAt = Date.now();
      if (chunks.length > 0) {
        await this.chunks.add(chunks.map((c) => toRow(c, writeId, indexedAt)));
        if (this.vectors && this.embedder && vectors) {
          const name = this.embedder.name;
          await this.vectors.add(
            chunks.map((c, i) => ({
              id: c.id,
              dataSourceId: c.dataSourceId,
              documentId: c.documentId,
              writeId,
              embedder: name,
              vector: Array.from(vectors[i] ?? []),
            })),
          );
        }
      }
      // A document with no live chunk and no failed delete has no rows to remove: skipping the delete
      // (a scan of the whole table) keeps first-time indexing from slowing down as the table grows.
      const replaced = documents
        .map((d) => d.documentId)
        .filter((id) => this.slotsByDocument.has(id) || this.uncleanDocuments.has(id));
      // Readers switch versions here, in one synchronous step.
      for (const { documentId } of documents) this.removeDocumentFromMemory(documentId);
      for (const chunk of chunks) this.addToMemory(chunk, writeId);
      for (let i = 0; i < replaced.length; i += 500) {
        const batch = replaced.slice(i, i + 500);
        await this.deleteRows(
          `documentId IN (${sqlList(batch)}) AND writeId != ${sqlString(writeId)}`,
          batch,
        );
      }
    });
  }

  /** Removes documents at once from search results, then from the store. */
  async deleteDocuments(documentIds: string[]): Promise<void> {
    if (documentIds.length === 0) return;
    for (const id of documentIds) this.removeDocumentFromMemory(id);
    await this.writes.run(async () => {
      // Again inside the queue: a replacement queued before this call must not resurrect the document.
      for (const id of documentIds) this.removeDocumentFromMemory(id);
      for (let i = 0; i < documentIds.length; i += 500) {
        const batch = documentIds.slice(i, i + 500);
        await this.deleteRows(`documentId IN (${sqlList(batch)})`, batch);
      }
    });
  }

  /**
   * Removes chunks whose document has no record: a crash between indexing a new document and
   * recording it leaves such chunks, and the retried sync indexes the document again under a new id.
   */
  async deleteOrphans(liveDocumentIds: ReadonlySet<string>): Promise<number> {
    const orphans = [...this.slotsByDocument.keys()].filter((id) => !liveDocumentIds.has(id));
    await this.deleteDocuments(orphans);
    return orphans.length;
  }

  /** Removes every chunk of these data sources at once from search results, then from the store (one commit). */
  async deleteDataSources(dataSourceIds: readonly string[]): Promise<void> {
    for (const id of dataSourceIds) assertUuid(id, "dataSourceId");
    if (dataSourceIds.length === 0) return;
    this.removeSourcesFromMemory(dataSourceIds);
    await this.writes.run(async () => {
      // Again inside the queue: a write queued before this one may have added chunks of them meanwhile.
      this.removeSourcesFromMemory(dataSourceIds);
      const predicate = `dataSourceId IN (${dataSourceIds.map(sqlString).join(", ")})`;
      await this.chunks.delete(predicate);
      await this.vectors?.delete(predicate);
      for (const id of dataSourceIds) {
        const n = this.sourceNumber.get(id);
        if (n !== undefined) this.liveBySource.delete(n);
        this.sourceNumber.delete(id);
      }
    });
  }

  async countByDataSource(dataSourceId: string): Promise<number> {
    const source = this.sourceNumber.get(dataSourceId);
    return source === undefined ? 0 : (this.liveBySource.get(source) ?? 0);
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
    const mode: RetrievalMode = this.embedder && this.vectors ? params.mode : "keyword";
    const result: SearchResult = {
      hits: [],
      requestedMode: params.mode,
      mode,
      fellBack: mode !== params.mode,
    };
    throwIfAborted(params.signal);
    const allowed = new Set<number>();
    for (const id of params.dataSourceIds) {
      const n = this.sourceNumber.get(id);
      if (n !== undefined) allowed.add(n);
    }
    if (allowed.size === 0 || params.query.trim() === "") return result;
    const scored = await this.scoreCandidates(params, mode, allowed);
    scored.sort((a, b) => b.score - a.score || a.slot - b.slot);
    result.hits = this.pickTop(scored, params.topK, params.minScore);
    return result;
  }

  /**
   * Re-embeds chunks whose stored vector was made by another embedder (or that have none).
   * Returns how many chunks were embedded.
   */
  async reembedIfModelChanged(): Promise<number> {
    const embedder = this.embedder;
    const vectors = this.vectors;
    if (!embedder || !vectors) return 0;
    const current = new Set<string>();
    const rows = await vectors.query().select(["id", "embedder", "writeId"]).toArrow();
    const ids = rows.getChild("id");
    const names = rows.getChild("embedder");
    const writeIds = rows.getChild("writeId");
    for (let i = 0; i < rows.numRows; i++) {
      const id = String(ids?.get(i));
      const slot = this.slotById.get(id);
      const live = slot === undefined ? null : this.slots.meta(slot);
      if (live && names?.get(i) === embedder.name && writeIds?.get(i) === live.writeId) current.add(id);
    }
    const pending: { chunk: StoredChunk; writeId: string }[] = [];
    for (let slot = 0; slot < this.slots.length; slot++) {
      const id = this.slots.id(slot);
      const chunk = id === null || current.has(id) ? null : this.chunkAt(slot);
      const writeId = this.slots.meta(slot)?.writeId;
      if (chunk && writeId) pending.push({ chunk, writeId });
    }
    let done = 0;
    for (let i = 0; i < pending.length; i += embedBatchSize) {
      const batch = pending.slice(i, i + embedBatchSize);
      const embedded = await embedder.embed(batch.map((s) => embeddingText(s.chunk)));
      await this.writes.run(async () => {
        // Skip chunks replaced or deleted while this batch was being embedded.
        const still = batch
          .map((s, j) => ({ s, vector: embedded[j] }))
          .filter(({ s }) => {
            const slot = this.slotById.get(s.chunk.id);
            return slot !== undefined && this.slots.meta(slot)?.writeId === s.writeId;
          });
        if (still.length === 0) return;
        await vectors.delete(`id IN (${sqlList(still.map(({ s }) => s.chunk.id))})`);
        await vectors.add(
          still.map(
            ({ s, vector }): VectorRow => ({
              id: s.chunk.id,
              dataSourceId: s.chunk.dataSourceId,
              documentId: s.chunk.documentId,
              writeId: s.writeId,
              embedder: embedder.name,
              vector: Array.from(vector ?? []),
            }),
          ),
        );
        done += still.length;
      });
    }
    return done;
  }

  /** Compacts the tables and the in-memory index; builds the vector index once there are enough vectors. */
  async optimize(): Promise<void> {
    await this.writes.run(async () => {
      await this.chunks.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
      if (this.vectors) {
        const count = await this.vectors.countRows();
        if (!this.vectorIndexBuilt && count >= this.options.vectorIndexThreshold) {
          await this.vectors.createIndex("vector", {
            config: Index.ivfPq({
              distanceType: "cosine",
              numPartitions: Math.max(16, Math.round(Math.sqrt(count))),
            }),
          });
          this.vectorIndexBuilt = true;
        }
        await this.vectors.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
      }
    });
    if (this.lexical.deadSlots > 0 && this.lexical.deadSlots >= this.lexical.size * 0.2) this.compactMemory();
  }

  private async load(): Promise<void> {
    const table = await this.chunks.query().toArrow();
    const rows = readChunkRows(table);
    // A crash between adding a new version and deleting the old leaves both: the newest write wins.
    const newest = new Map<string, { writeId: string; indexedAt: number }>();
    for (const row of rows) {
      const seen = newest.get(row.documentId);
      if (!seen || row.indexedAt > seen.indexedAt) newest.set(row.documentId, row);
    }
    const staleWrites = new Set<string>();
    for (const row of rows) {
      const keep = newest.get(row.documentId);
      if (keep && row.writeId !== keep.writeId) {
        staleWrites.add(row.writeId);
        continue;
      }
      const { writeId, indexedAt: _indexedAt, headingPath, ...rest } = row;
      this.addToMemory({ ...rest, headingPath: parseHeadingPath(headingPath) }, writeId);
    }
    if (staleWrites.size > 0) {
      const predicate = `writeId IN (${sqlList(staleWrites)})`;
      await this.writes.run(async () => {
        await this.chunks.delete(predicate);
        await this.vectors?.delete(predicate);
      });
    }
    if (this.vectors) {
      const indices = await this.vectors.listIndices();
      this.vectorIndexBuilt = indices.some((i) => i.columns.includes("vector"));
    }
  }

  /**
   * Deletes rows from the chunk and vector tables. When a delete fails (disk full), the documents are
   * remembered as unclean so their next replacement deletes again instead of trusting memory.
   */
  private async deleteRows(predicate: string, documentIds: readonly string[]): Promise<void> {
    for (const id of documentIds) this.uncleanDocuments.add(id);
    await this.chunks.delete(predicate);
    await this.vectors?.delete(predicate);
    for (const id of documentIds) this.uncleanDocuments.delete(id);
  }

  private async scoreCandidates(
    params: SearchParams,
    mode: RetrievalMode,
    allowed: ReadonlySet<number>,
  ): Promise<{ slot: number; score: number }[]> {
    const model = modelByMode[mode];
    return (await this.candidateFeatures(params, mode, allowed)).map(({ slot, features }) => ({
      slot,
      score: applyModel(model, features),
    }));
  }

  /**
   * The candidates of a query with the feature vector the mode's calibration model reads
   * (for `bench/` to fit the models; see calibration.ts).
   */
  async explain(params: SearchParams): Promise<{ chunk: StoredChunk; features: number[] }[]> {
    const mode: RetrievalMode = this.embedder && this.vectors ? params.mode : "keyword";
    const allowed = new Set<number>();
    for (const id of params.dataSourceIds) {
      const n = this.sourceNumber.get(id);
      if (n !== undefined) allowed.add(n);
    }
    const rows = await this.candidateFeatures(params, mode, allowed);
    return rows.flatMap(({ slot, features }) => {
      const chunk = this.chunkAt(slot);
      return chunk ? [{ chunk, features }] : [];
    });
  }

  private async candidateFeatures(
    params: SearchParams,
    mode: RetrievalMode,
    allowed: ReadonlySet<number>,
  ): Promise<{ slot: number; features: number[] }[]> {
    const candidates = this.lexical.params.candidates;
    if (mode === "keyword") {
      return this.lexical
        .search(params.query, allowed, candidates)
        .map((c) => ({ slot: c.slot, features: keywordFeatures(c.features) }));
    }
    const vectorHits = await this.vectorCandidates(params, allowed, candidates);
    throwIfAborted(params.signal);
    const bestCosine = Math.max(1e-6, ...vectorHits.values());
    if (mode === "semantic") {
      return [...vectorHits].map(([slot, cosine]) => ({
        slot,
        features: semanticFeatures(cosine, cosine / bestCosine),
      }));
    }
    const lexicalHits = this.lexical.search(params.query, allowed, candidates);
    const features = new Map<number, LexicalFeatures>(lexicalHits.map((c) => [c.slot, c.features]));
    const bestBm25 = lexicalHits[0]?.features.bm25 ?? 0;
    const missing = [...vectorHits.keys()].filter((slot) => !features.has(slot));
    for (const [slot, f] of this.lexical.featuresFor(params.query, missing)) {
      features.set(slot, { ...f, bm25Rel: bestBm25 > 0 ? Math.min(1, f.bm25 / bestBm25) : 0 });
    }
    // A lexical candidate beyond the vector list is at most as similar as the list's last entry.
    const floorCosine = vectorHits.size > 0 ? Math.min(...vectorHits.values()) : 0;
    return [...features].map(([slot, f]) => {
      const cosine = vectorHits.get(slot) ?? floorCosine;
      return { slot, features: hybridFeatures(f, cosine, cosine / bestCosine) };
    });
  }

  /** Live slot → cosine similarity for the nearest vectors among the allowed sources. */
  private async vectorCandidates(
    params: SearchParams,
    allowed: ReadonlySet<number>,
    limit: number,
  ): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (!this.embedder || !this.vectors) return out;
    const [vector] = await this.embedder.embed([params.query], params.signal);
    if (!vector) return out;
    const sources = params.dataSourceIds.filter((id) => {
      const n = this.sourceNumber.get(id);
      return n !== undefined && allowed.has(n);
    });
    let query = this.vectors
      .vectorSearch(vector)
      .distanceType("cosine")
      .where(`dataSourceId IN (${sqlList(sources)})`)
      .select(["id", "writeId", "_distance"])
      .limit(limit);
    if (this.vectorIndexBuilt) query = query.nprobes(20).refineFactor(4);
    const rows = await query.toArray();
    for (const row of rows as { id: string; writeId: string; _distance: number }[]) {
      const slot = this.slotById.get(row.id);
      // Vectors of a replaced or deleted version may linger until the write queue removes them.
      if (slot === undefined || this.slots.meta(slot)?.writeId !== row.writeId) continue;
      out.set(slot, Math.max(0, Math.min(1, 1 - row._distance)));
    }
    return out;
  }

  private pickTop(scored: { slot: number; score: number }[], topK: number, minScore: number): SearchHit[] {
    const hits: SearchHit[] = [];
    const kept: { exact: number; shingles: Set<number> }[] = [];
    for (const { slot, score } of scored) {
      if (hits.length >= topK || score < minScore) break;
      const chunk = this.chunkAt(slot);
      if (!chunk) continue;
      // Same analysed text, or most word 3-shingles shared (Jaccard), counts as a near-duplicate.
      const signature = this.lexical.signature(slot);
      const duplicate = kept.some(
        (k) =>
          k.exact === signature.exact ||
          jaccard(k.shingles, signature.shingles) >= this.options.nearDuplicateThreshold,
      );
      if (duplicate) continue;
      kept.push(signature);
      hits.push({ chunk, score });
    }
    return hits;
  }

  /** A live slot's chunk, rebuilt from the packed columns (only for what a caller returns). */
  private chunkAt(slot: number): StoredChunk | null {
    const meta = this.slots.meta(slot);
    const chunk = meta && this.slots.chunk(slot);
    if (!meta || !chunk) return null;
    return {
      ...chunk,
      workspaceId: meta.workspaceId,
      dataSourceId: meta.dataSourceId,
      documentId: meta.documentId,
      documentVersion: meta.documentVersion,
      title: meta.title,
      headingPath: [...meta.headingPath],
      sourceUrl: meta.sourceUrl,
      kind: meta.kind,
    };
  }

  /** Adds a chunk; consecutive chunks of one write with the same fields share one ChunkMeta. */
  private addToMemory(chunk: StoredChunk, writeId: string): void {
    const previous = this.slotById.get(chunk.id);
    if (previous !== undefined) this.removeSlot(previous);
    let source = this.sourceNumber.get(chunk.dataSourceId);
    if (source === undefined) {
      source = this.nextSourceNumber++;
      this.sourceNumber.set(chunk.dataSourceId, source);
    }
    let meta = this.lastMeta;
    if (!meta || !sharesMeta(meta, chunk, writeId)) {
      meta = {
        workspaceId: chunk.workspaceId,
        dataSourceId: chunk.dataSourceId,
        documentId: chunk.documentId,
        documentVersion: chunk.documentVersion,
        title: chunk.title,
        headingPath: chunk.headingPath,
        sourceUrl: chunk.sourceUrl,
        kind: chunk.kind,
        writeId,
        source,
      };
      this.lastMeta = meta;
    }
    const headingText = chunk.headingPath.join(" ");
    let group = this.documentNumber.get(chunk.documentId);
    if (group === undefined) {
      group = this.nextDocumentNumber++;
      this.documentNumber.set(chunk.documentId, group);
    }
    const slot = this.lexical.add(chunk.text, `${chunk.title} ${headingText}`, source, group);
    this.slots.set(slot, chunk, meta);
    this.slotById.set(chunk.id, slot);
    const list = this.slotsByDocument.get(chunk.documentId);
    if (list) list.push(slot);
    else this.slotsByDocument.set(chunk.documentId, [slot]);
    this.liveBySource.set(source, (this.liveBySource.get(source) ?? 0) + 1);
  }

  private removeSlot(slot: number): void {
    const id = this.slots.id(slot);
    const meta = this.slots.meta(slot);
    if (id === null || !meta) return;
    this.lexical.remove(slot);
    this.slots.clear(slot);
    if (this.slotById.get(id) === slot) this.slotById.delete(id);
    const list = this.slotsByDocument.get(meta.documentId);
    if (list) {
      const rest = list.filter((s) => s !== slot);
      if (rest.length > 0) this.slotsByDocument.set(meta.documentId, rest);
      else {
        this.slotsByDocument.delete(meta.documentId);
        this.documentNumber.delete(meta.documentId);
      }
    }
    this.liveBySource.set(meta.source, (this.liveBySource.get(meta.source) ?? 1) - 1);
  }

  private removeDocumentFromMemory(documentId: string): void {
    for (const slot of this.slotsByDocument.get(documentId) ?? []) this.removeSlot(slot);
    this.slotsByDocument.delete(documentId);
  }

  private removeSourcesFromMemory(dataSourceIds: readonly string[]): void {
    const numbers = new Set<number>();
    for (const id of dataSourceIds) {
      const n = this.sourceNumber.get(id);
      if (n !== undefined) numbers.add(n);
    }
    if (numbers.size === 0) return;
    for (let slot = 0; slot < this.slots.length; slot++) {
      const source = this.slots.meta(slot)?.source;
      if (source !== undefined && numbers.has(source)) this.removeSlot(slot);
    }
  }

  private compactMemory(): void {
    const remap = this.lexical.compact();
    this.slots.compact(remap);
    this.slotById.clear();
    this.slotsByDocument.clear();
    for (let slot = 0; slot < this.slots.length; slot++) {
      const id = this.slots.id(slot);
      const meta = this.slots.meta(slot);
      if (id === null || !meta) continue;
      this.slotById.set(id, slot);
      const list = this.slotsByDocument.get(meta.documentId);
      if (list) list.push(slot);
      else this.slotsByDocument.set(meta.documentId, [slot]);
    }
  }

  private async embedAll(texts: string[]): Promise<Float32Array[]> {
    const embedder = this.embedder;
    if (!embedder) return [];
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += embedBatchSize) {
      out.push(...(await embedder.embed(texts.slice(i, i + embedBatchSize))));
    }
    return out;
  }

  /** For tests and tools: the LanceDB connection the index lives in. */
  get connection(): Connection {
    return this.db;
  }
}

function sharesMeta(meta: ChunkMeta, chunk: StoredChunk, writeId: string): boolean {
  return (
    meta.writeId === writeId &&
    meta.documentId === chunk.documentId &&
    meta.documentVersion === chunk.documentVersion &&
    meta.workspaceId === chunk.workspaceId &&
    meta.dataSourceId === chunk.dataSourceId &&
    meta.title === chunk.title &&
    meta.sourceUrl === chunk.sourceUrl &&
    meta.kind === chunk.kind &&
    meta.headingPath.length === chunk.headingPath.length &&
    meta.headingPath.every((part, i) => part === chunk.headingPath[i])
  );
}

/** What gets embedded: the title and headings give a chunk the context its text often lacks. */
function embeddingText(chunk: StoredChunk): string {
  const context = [chunk.title, ...chunk.headingPath].filter((s) => s.trim() !== "").join(" › ");
  return context ? `${context}\n\n${chunk.text}` : chunk.text;
}

function toRow(chunk: StoredChunk, writeId: string, indexedAt: number): ChunkRow {
  return {
    id: chunk.id,
    workspaceId: chunk.workspaceId,
    dataSourceId: chunk.dataSourceId,
    documentId: chunk.documentId,
    documentVersion: chunk.documentVersion,
    writeId,
    indexedAt,
    ordinal: chunk.ordinal,
    text: chunk.text,
    title: chunk.title,
    headingPath: JSON.stringify(chunk.headingPath),
    page: chunk.page,
    sourceUrl: chunk.sourceUrl,
    kind: chunk.kind,
    tokenCount: chunk.tokenCount,
  };
}

function parseHeadingPath(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

function readChunkRows(table: ArrowTable): ChunkRow[] {
  const column = (name: string) => table.getChild(name);
  const cols = {
    id: column("id"),
    workspaceId: column("workspaceId"),
    dataSourceId: column("dataSourceId"),
    documentId: column("documentId"),
    documentVersion: column("documentVersion"),
    writeId: column("writeId"),
    indexedAt: column("indexedAt"),
    ordinal: column("ordinal"),
    text: column("text"),
    title: column("title"),
    headingPath: column("headingPath"),
    page: column("page"),
    sourceUrl: column("sourceUrl"),
    kind: column("kind"),
    tokenCount: column("tokenCount"),
  };
  const rows: ChunkRow[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const page = cols.page?.get(i);
    const sourceUrl = cols.sourceUrl?.get(i);
    rows.push({
      id: String(cols.id?.get(i)),
      workspaceId: String(cols.workspaceId?.get(i)),
      dataSourceId: String(cols.dataSourceId?.get(i)),
      documentId: String(cols.documentId?.get(i)),
      documentVersion: String(cols.documentVersion?.get(i)),
      writeId: String(cols.writeId?.get(i)),
      indexedAt: Number(cols.indexedAt?.get(i)),
      ordinal: Number(cols.ordinal?.get(i)),
      text: String(cols.text?.get(i)),
      title: String(cols.title?.get(i)),
      headingPath: String(cols.headingPath?.get(i) ?? "[]"),
      page: page == null ? null : Number(page),
      sourceUrl: sourceUrl == null ? null : String(sourceUrl),
      kind: String(cols.kind?.get(i)) as DocumentKind,
      tokenCount: Number(cols.tokenCount?.get(i)),
    });
  }
  return rows;
}
