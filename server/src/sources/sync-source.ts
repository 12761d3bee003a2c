import { createHash, randomUUID } from "node:crypto";
import type { ChunkIndex, StoredChunk } from "../retrieval/chunk-index.ts";
import type { DataSourceRecord, DocumentRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { type ChunkedDocument, type ListedDocument, ParseError, type RawDocument } from "./documents.ts";
import { UnsupportedTypeError } from "./parsing/detect-kind.ts";

export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  failed: number;
}

export interface SyncDeps {
  store: Store;
  index: ChunkIndex;
  /**
   * Parses and chunks one document (chunkedDocument), off the event loop where it can be; the
   * workspace's parses queue apart from other workspaces'.
   */
  chunk: (raw: RawDocument, workspaceId: string) => Promise<ChunkedDocument>;
  /** The documents a source has now; throwing mid-way keeps every document not yet seen. */
  listDocuments: (source: DataSourceRecord, signal: AbortSignal) => AsyncIterable<ListedDocument>;
  onProgress?: (processed: number, counts: SyncCounts) => void | Promise<void>;
}

export function contentHash(body: Uint8Array | string): string {
  return createHash("sha256").update(body).digest("hex");
}

/**
 * Documents indexed together: one commit for their pending records, one for their chunks and one for
 * their final records, instead of three commits per document (what made many small documents slow).
 * A batch is written once it holds this many documents or chunks, or its first document waited this long.
 */
export const BATCH_DOCUMENTS = 512;
export const BATCH_CHUNKS = 2_000;
export const BATCH_WAIT_MS = 1_000;
/** Changed documents being parsed at the same time. */
const PREPARE_AHEAD = 8;
/**
 * Progress while skipping unchanged documents is reported at most this often: a re-sync that finds
 * one changed entry among 100,000 must not commit the source record 10,000 times.
 */
const UNCHANGED_REPORT_MS = 1_000;

/** A changed document, parsed and chunked (or refused by its parser), waiting for its batch's commit. */
interface PreparedDocument {
  raw: RawDocument;
  hash: string;
  previous: DocumentRecord | undefined;
  base: DocumentRecord;
  bytes: number;
  result:
    | { ok: true; parsed: ChunkedDocument; chunks: StoredChunk[] }
    | { ok: false; error: ParseError | UnsupportedTypeError };
}

/**
 * One sync of one source: fetch → hash → (parse → chunk → index) for what changed, then remove
 * what vanished. Changed documents are indexed in batches; each batch's chunks replace the previous
 * versions atomically before the records move to the new version, so a crash at any point leaves
 * either version searchable and the next run finishes it.
 */
export async function syncSource(
  deps: SyncDeps,
  source: DataSourceRecord,
  signal: AbortSignal,
): Promise<SyncCounts> {
  const { store, index } = deps;
  const counts: SyncCounts = { added: 0, updated: 0, removed: 0, unchanged: 0, failed: 0 };
  const existing = new Map<string, DocumentRecord>();
  for (const doc of store.documents.filter((d) => d.dataSourceId === source.id))
    existing.set(doc.externalId, doc);
  const seen = new Set<string>();
  let processed = 0;
  let pending: PreparedDocument[] = [];
  let pendingChunks = 0;
  let pendingSince = 0;
  let reportedAt = Date.now();
  const skip = async (): Promise<void> => {
    counts.unchanged += 1;
    processed += 1;
    if (Date.now() - reportedAt < UNCHANGED_REPORT_MS) return;
    reportedAt = Date.now();
    await deps.onProgress?.(processed, counts);
  };

  // One batch is written while the next is prepared (its parsing and chunking overlap the commits).
  let writing: Promise<void> = Promise.resolve();
  const write = async (batch: PreparedDocument[]): Promise<void> => {
    for (const outcome of await indexDocuments(deps, batch)) counts[outcome] += 1;
    processed += batch.length;
    reportedAt = Date.now();
    await deps.onProgress?.(processed, counts);
  };
  const flush = async (): Promise<void> => {
    // Taken before writing: a failed write is not retried by the caller's error path.
    const batch = pending;
    pending = [];
    pendingChunks = 0;
    if (batch.length === 0) return;
    const before = writing;
    writing = before.then(() => write(batch));
    writing.catch(() => undefined); // surfaced by the next flush or by `drain`
    await before;
  };
  const drain = async (): Promise<void> => {
    await flush();
    await writing;
  };

  // A few documents are parsed at once: the parse worker and this thread's chunking overlap.
  const preparing: Promise<PreparedDocument>[] = [];
  const takeOne = async (): Promise<void> => {
    const next = preparing.shift();
    if (!next) return;
    const prepared = await next;
    if (pending.length === 0) pendingSince = Date.now();
    pending.push(prepared);
    pendingChunks += prepared.result.ok ? prepared.result.chunks.length : 0;
    if (
      pending.length >= BATCH_DOCUMENTS ||
      pendingChunks >= BATCH_CHUNKS ||
      Date.now() - pendingSince >= BATCH_WAIT_MS
    ) {
      await flush();
    }
  };

  try {
    for await (const raw of deps.listDocuments(source, signal)) {
      signal.throwIfAborted();
      if (seen.has(raw.externalId)) continue;
      seen.add(raw.externalId);
      if ("unchanged" in raw) {
        await skip();
        continue;
      }
      const hash = contentHash(raw.body);
      const previous = existing.get(raw.externalId);
      if (previous && isCurrent(previous, hash, raw)) {
        await skip();
        continue;
      }
      const prepared = prepareDocument(deps, source, raw, hash, previous);
      prepared.catch(() => undefined); // awaited in order by `takeOne`
      preparing.push(prepared);
      if (preparing.length >= PREPARE_AHEAD) await takeOne();
    }
    while (preparing.length > 0) await takeOne();
  } catch (error) {
    // What was read before the listing failed is kept; a cancelled sync (source deleted) keeps nothing.
    if (!signal.aborted) {
      while (preparing.length > 0) await takeOne();
      await drain();
    }
    throw error;
  }
  await drain();

  for (const [externalId, doc] of existing) {
    if (seen.has(externalId) || doc.storedFile) continue; // uploaded files leave only through DELETE
    signal.throwIfAborted();
    await index.deleteDocuments([doc.id]);
    await store.documents.delete([doc.id]);
    counts.removed += 1;
  }
  return counts;
}

/**
 * The indexed version is this one: same content, not left pending. A text entry's title is its own
 * (not taken from the content), so a new title alone is a change too.
 */
function isCurrent(previous: DocumentRecord, hash: string, raw: RawDocument): boolean {
  if (previous.contentHash !== hash || previous.status === "pending") return false;
  return raw.kind !== "text" || previous.title === raw.title;
}

/** A chunked document's chunks as the index stores them, for one version of one document of a source. */
export function chunkRecords(
  parsed: ChunkedDocument,
  at: Pick<StoredChunk, "workspaceId" | "dataSourceId" | "documentId" | "documentVersion" | "sourceUrl">,
): StoredChunk[] {
  return parsed.chunks.map((d) => ({
    id: randomUUID(),
    ...at,
    ordinal: d.ordinal,
    text: d.text,
    title: parsed.title,
    headingPath: d.headingPath,
    page: d.page,
    kind: parsed.kind,
    tokenCount: d.tokenCount,
  }));
}

/** Parses and chunks one changed document; a parser's refusal is kept as the document's outcome. */
async function prepareDocument(
  deps: SyncDeps,
  source: DataSourceRecord,
  raw: RawDocument,
  hash: string,
  previous: DocumentRecord | undefined,
): Promise<PreparedDocument> {
  const now = new Date().toISOString();
  const base: DocumentRecord = previous ?? {
    id: randomUUID(),
    dataSourceId: source.id,
    workspaceId: source.workspaceId,
    externalId: raw.externalId,
    title: raw.title,
    kind: raw.kind ?? "text",
    sourceUrl: raw.sourceUrl,
    status: "pending",
    error: null,
    chunkCount: 0,
    pageCount: null,
    bytes: 0,
    contentHash: "",
    storedFile: null,
    createdAt: now,
    updatedAt: now,
  };
  const bytes = typeof raw.body === "string" ? Buffer.byteLength(raw.body) : raw.body.byteLength;
  try {
    const parsed = await deps.chunk(raw, source.workspaceId);
    const chunks = chunkRecords(parsed, {
      workspaceId: source.workspaceId,
      dataSourceId: source.id,
      documentId: base.id,
      documentVersion: hash,
      sourceUrl: raw.sourceUrl,
    });
    return { raw, hash, previous, base, bytes, result: { ok: true, parsed, chunks } };
  } catch (error) {
    if (!(error instanceof ParseError || error instanceof UnsupportedTypeError)) throw error;
    return { raw, hash, previous, base, bytes, result: { ok: false, error } };
  }
}

/** Writes a batch: every chunk in one commit, then the records (updates in one commit, new ones appended in another). */
async function indexDocuments(
  deps: SyncDeps,
  batch: PreparedDocument[],
): Promise<("added" | "updated" | "failed")[]> {
  const parsedOk = batch.filter((d) => d.result.ok);
  // A new document's record is appended after its chunks (an append, where an update joins against
  // every stored record): chunks a crash leaves without a record are deleted on the next start,
  // before any sync runs, and a failed append deletes them at once.
  await deps.index.replaceDocuments(
    parsedOk.map((d) => ({ documentId: d.base.id, chunks: d.result.ok ? d.result.chunks : [] })),
  );
  const updatedAt = new Date().toISOString();
  const records: DocumentRecord[] = [];
  const outcomes = batch.map(({ raw, hash, previous, base, bytes, result }) => {
    if (result.ok) {
      records.push({
        ...base,
        title: result.parsed.title,
        kind: result.parsed.kind,
        sourceUrl: raw.sourceUrl,
        status: "indexed",
        error: null,
        chunkCount: result.chunks.length,
        pageCount: result.parsed.pageCount,
        bytes,
        contentHash: hash,
        updatedAt,
      });
      return previous && previous.status !== "pending" ? "updated" : "added";
    }
    if (previous?.status === "indexed") {
      // The previous version keeps serving; the hash stays old so the next sync tries again.
      records.push({ ...previous, error: result.error.message, updatedAt });
    } else {
      records.push({
        ...base,
        status: "failed",
        error: result.error.message,
        chunkCount: 0,
        bytes,
        contentHash: hash,
        updatedAt,
      });
    }
    return "failed";
  });
  const known = new Set(batch.filter((d) => d.previous).map((d) => d.base.id));
  await deps.store.documents.putMany(records.filter((r) => known.has(r.id)));
  const added = records.filter((r) => !known.has(r.id));
  try {
    await deps.store.documents.insertMany(added);
  } catch (error) {
    await deps.index.deleteDocuments(added.map((r) => r.id)).catch(() => undefined);
    throw error;
  }
  return outcomes;
}
