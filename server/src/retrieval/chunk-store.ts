import { type Connection, Index, type Table } from "@lancedb/lancedb";
import type { DocumentKind } from "@lore/shared";
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
import type { Embedder } from "./embedder.ts";

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

/** What the chunks table holds, per document and per write (`ChunkStore.tableWrites`). */
export interface TableWrites {
  /** Per document, its write with the newest `indexedAt` (the first of them in table order on a tie). */
  newest: Map<string, string>;
  /** Every write the table holds. */
  writes: Set<string>;
  /** Rows of the documents' newest writes: the chunks a search of the table would see. */
  liveRows: number;
}

/**
 * Per document, its write with the newest `indexedAt` (the first noted of them on a tie): a crash
 * between adding a document's new version and deleting the old one leaves two writes in the table.
 */
export class NewestWrites {
  private readonly newest = new Map<string, { writeId: string; indexedAt: number; rows: number }>();

  note(documentId: string, writeId: string, indexedAt: number): void {
    const seen = this.newest.get(documentId);
    if (seen && seen.writeId === writeId) seen.rows++;
    else if (!seen || indexedAt > seen.indexedAt)
      this.newest.set(documentId, { writeId, indexedAt, rows: 1 });
  }

  /** Document id → the write id of its newest rows. */
  byDocument(): Map<string, string> {
    return new Map([...this.newest].map(([id, { writeId }]) => [id, writeId]));
  }

  /** Rows of every document's newest write (a newer write's rows only ever follow it being noted). */
  get rows(): number {
    let rows = 0;
    for (const seen of this.newest.values()) rows += seen.rows;
    return rows;
  }
}

/** A chunk as read back from the chunks table, with the write that stored it. */
export interface StoredRow {
  chunk: StoredChunk;
  writeId: string;
  indexedAt: number;
}

// A type, not an interface: LanceDB's `add` takes records with an index signature.
export type VectorRow = {
  id: string;
  dataSourceId: string;
  documentId: string;
  writeId: string;
  embedder: string;
  vector: number[];
};

/** Which embedder made a stored vector, for the write of its chunk. */
export interface VectorStamp {
  id: string;
  embedder: unknown;
  writeId: unknown;
}

export interface ChunkStoreTables {
  chunksTable: string;
  vectorsTable: string;
}

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

/** Quotes a value for a LanceDB SQL predicate. */
function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function sqlList(values: Iterable<string>): string {
  return [...values].map(sqlString).join(", ");
}

// Deletes name at most this many documents per predicate.
const deleteBatchSize = 500;

/**
 * The LanceDB tables that are the chunk index's store of record: chunks, and their vectors when an
 * embedder is configured. Callers serialise writes (the index's write queue).
 */
export class ChunkStore {
  /** Documents whose stale rows a failed delete may have left in the tables. */
  private readonly uncleanDocuments = new Set<string>();

  private constructor(
    private readonly chunks: Table,
    private readonly vectors: Table | null,
    /** Whether the vectors table has its ANN index (vector search is exact without it). */
    private vectorIndexBuilt: boolean,
  ) {}

  /** Opens (or creates) the tables; a vectors table of other dimensions is dropped and made anew. */
  static async open(
    db: Connection,
    embedder: Embedder | null,
    tables: ChunkStoreTables,
  ): Promise<ChunkStore> {
    const names = new Set(await db.tableNames());
    const chunks = names.has(tables.chunksTable)
      ? await db.openTable(tables.chunksTable)
      : await db.createEmptyTable(tables.chunksTable, chunkSchema, { existOk: true });
    let vectors: Table | null = null;
    if (embedder) {
      const schema = vectorSchema(embedder.dimensions);
      if (names.has(tables.vectorsTable)) {
        vectors = await db.openTable(tables.vectorsTable);
        const field = (await vectors.schema()).fields.find((f) => f.name === "vector");
        // Duck-typed: LanceDB may hand back arrow classes from its own copy of apache-arrow.
        const type: unknown = field?.type;
        const dims =
          typeof type === "object" && type !== null && "listSize" in type ? Number(type.listSize) : -1;
        // A model with other dimensions makes every stored vector useless: start over and re-embed.
        if (dims !== embedder.dimensions) {
          await db.dropTable(tables.vectorsTable);
          vectors = await db.createEmptyTable(tables.vectorsTable, schema);
        }
      } else {
        vectors = await db.createEmptyTable(tables.vectorsTable, schema, { existOk: true });
      }
    }
    const indices = vectors ? await vectors.listIndices() : [];
    return new ChunkStore(
      chunks,
      vectors,
      indices.some((i) => i.columns.includes("vector")),
    );
  }

  /** The stored rows of these chunk ids. */
  async readChunksById(ids: readonly string[]): Promise<StoredRow[]> {
    if (ids.length === 0) return [];
    return this.rowsWhere(`id IN (${sqlList(ids)})`);
  }

  /** Every stored chunk row, in table order. */
  async readChunks(): Promise<StoredRow[]> {
    return this.rowsWhere(null);
  }

  /**
   * Every stored chunk row in table order, a batch at a time (LanceDB's stream with its back-pressure),
   * so a rebuild never holds the whole table as objects.
   */
  async *streamChunks(workspaceId?: string): AsyncGenerator<StoredRow[]> {
    const query = this.chunks.query();
    if (workspaceId !== undefined) query.where(`workspaceId = ${sqlString(workspaceId)}`);
    for await (const batch of query) yield toStoredRows(readChunkRows(batch));
  }

  /** The stored rows of these documents (every write of each). */
  async readDocuments(
    documentIds: readonly string[],
    workspaceIds?: readonly string[],
  ): Promise<StoredRow[]> {
    const out: StoredRow[] = [];
    if (workspaceIds?.length === 0) return out;
    // Only these workspaces' rows (a partitioned index reads none of the others' texts).
    const within = workspaceIds ? ` AND workspaceId IN (${sqlList(workspaceIds)})` : "";
    for (let i = 0; i < documentIds.length; i += deleteBatchSize) {
      out.push(
        ...(await this.rowsWhere(
          `documentId IN (${sqlList(documentIds.slice(i, i + deleteBatchSize))})${within}`,
        )),
      );
    }
    return out;
  }

  /**
   * Which writes the table holds (three columns of every row, not the text), read a batch at a time
   * into per-document tallies and a set of writes: an object per row, at ten million rows, held gigabytes
   * of small objects that every collection during a rebuild went over again.
   */
  async tableWrites(
    filter: { workspaceIds?: readonly string[]; dataSourceId?: string } = {},
  ): Promise<TableWrites> {
    const query = this.chunks.query().select(["documentId", "writeId", "indexedAt"]);
    if (filter.workspaceIds) query.where(`workspaceId IN (${sqlList(filter.workspaceIds)})`);
    else if (filter.dataSourceId !== undefined)
      query.where(`dataSourceId = ${sqlString(filter.dataSourceId)}`);
    const newest = new NewestWrites();
    const known = new Set<string>();
    for await (const batch of query) {
      const documents = batch.getChild("documentId");
      const writes = batch.getChild("writeId");
      const times = batch.getChild("indexedAt");
      for (let i = 0; i < batch.numRows; i++) {
        const documentId = String(documents?.get(i));
        const writeId = String(writes?.get(i));
        known.add(writeId);
        newest.note(documentId, writeId, Number(times?.get(i)));
      }
    }
    return { newest: newest.byDocument(), writes: known, liveRows: newest.rows };
  }

  /** Rows in the chunks table (every write of every document). */
  chunkRowCount(): Promise<number> {
    return this.chunks.countRows();
  }

  /** The workspace of a data source's chunks (null when it has none in the table). */
  async workspaceOfSource(dataSourceId: string): Promise<string | null> {
    const rows = await this.chunks
      .query()
      .where(`dataSourceId = ${sqlString(dataSourceId)}`)
      .select(["workspaceId"])
      .limit(1)
      .toArray();
    const id: unknown = rows[0]?.workspaceId;
    return id == null ? null : String(id);
  }

  /** Of these documents, those with rows in the table (reads one column). */
  async documentsWithRows(documentIds: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < documentIds.length; i += deleteBatchSize) {
      const rows = await this.chunks
        .query()
        .where(`documentId IN (${sqlList(documentIds.slice(i, i + deleteBatchSize))})`)
        .select(["documentId"])
        .toArrow();
      const column = rows.getChild("documentId");
      for (let j = 0; j < rows.numRows; j++) out.add(String(column?.get(j)));
    }
    return out;
  }

  private async rowsWhere(predicate: string | null): Promise<StoredRow[]> {
    const query = this.chunks.query();
    if (predicate) query.where(predicate);
    return toStoredRows(readChunkRows(await query.toArrow()));
  }

  /** The chunks table's version: it changes with every commit, so it names what the table holds. */
  chunksVersion(): Promise<number> {
    return this.chunks.version();
  }

  get hasVectors(): boolean {
    return this.vectors !== null;
  }

  async addChunks(chunks: readonly StoredChunk[], writeId: string, indexedAt: number): Promise<void> {
    await this.chunks.add(chunks.map((c) => toRow(c, writeId, indexedAt)));
  }

  async addVectors(rows: VectorRow[]): Promise<void> {
    await this.vectors?.add(rows);
  }

  /** Replaces the vectors of these chunks. */
  async replaceVectors(rows: VectorRow[]): Promise<void> {
    if (!this.vectors) return;
    await this.vectors.delete(`id IN (${sqlList(rows.map((r) => r.id))})`);
    await this.vectors.add(rows);
  }

  /** Whether a failed delete may have left rows of this document behind. */
  isUnclean(documentId: string): boolean {
    return this.uncleanDocuments.has(documentId);
  }

  /**
   * Deletes the rows of documents (except those of `keepWriteId`) from both tables. When a delete fails
   * (disk full), the documents are remembered as unclean so their next replacement deletes again.
   */
  async deleteDocuments(documentIds: readonly string[], keepWriteId?: string): Promise<void> {
    for (let i = 0; i < documentIds.length; i += deleteBatchSize) {
      const batch = documentIds.slice(i, i + deleteBatchSize);
      const keep = keepWriteId === undefined ? "" : ` AND writeId != ${sqlString(keepWriteId)}`;
      for (const id of batch) this.uncleanDocuments.add(id);
      await this.deleteWhere(`documentId IN (${sqlList(batch)})${keep}`);
      for (const id of batch) this.uncleanDocuments.delete(id);
    }
  }

  async deleteDataSources(dataSourceIds: readonly string[]): Promise<void> {
    await this.deleteWhere(`dataSourceId IN (${sqlList(dataSourceIds)})`);
  }

  async deleteWrites(writeIds: Iterable<string>): Promise<void> {
    await this.deleteWhere(`writeId IN (${sqlList(writeIds)})`);
  }

  /** The id, embedder and write of every stored vector. */
  async vectorStamps(): Promise<VectorStamp[]> {
    if (!this.vectors) return [];
    const rows = await this.vectors.query().select(["id", "embedder", "writeId"]).toArrow();
    const ids = rows.getChild("id");
    const names = rows.getChild("embedder");
    const writeIds = rows.getChild("writeId");
    const out: VectorStamp[] = [];
    for (let i = 0; i < rows.numRows; i++) {
      out.push({ id: String(ids?.get(i)), embedder: names?.get(i), writeId: writeIds?.get(i) });
    }
    return out;
  }

  /** The nearest vectors of the given data sources by cosine distance. */
  async nearestVectors(
    vector: Float32Array,
    dataSourceIds: readonly string[],
    limit: number,
  ): Promise<{ id: string; writeId: string; _distance: number }[]> {
    if (!this.vectors) return [];
    let query = this.vectors
      .vectorSearch(vector)
      .distanceType("cosine")
      .where(`dataSourceId IN (${sqlList(dataSourceIds)})`)
      .select(["id", "writeId", "_distance"])
      .limit(limit);
    if (this.vectorIndexBuilt) query = query.nprobes(20).refineFactor(4);
    return (await query.toArray()) as { id: string; writeId: string; _distance: number }[];
  }

  /** Compacts both tables; builds the vector index once there are `vectorIndexThreshold` vectors. */
  async optimize(vectorIndexThreshold: number): Promise<void> {
    await this.chunks.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
    if (!this.vectors) return;
    const count = await this.vectors.countRows();
    if (!this.vectorIndexBuilt && count >= vectorIndexThreshold) {
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

  private async deleteWhere(predicate: string): Promise<void> {
    await this.chunks.delete(predicate);
    await this.vectors?.delete(predicate);
  }
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

function toStoredRows(rows: ChunkRow[]): StoredRow[] {
  return rows.map(({ writeId, indexedAt, headingPath, ...rest }) => ({
    chunk: { ...rest, headingPath: parseHeadingPath(headingPath) },
    writeId,
    indexedAt,
  }));
}

function parseHeadingPath(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

function readChunkRows(table: Pick<ArrowTable, "numRows" | "getChild">): ChunkRow[] {
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
