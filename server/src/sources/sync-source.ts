import { createHash, randomUUID } from "node:crypto";
import type { ChunkIndex, StoredChunk } from "../retrieval/chunk-index.ts";
import type { DataSourceRecord, DocumentRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { chunkDocument } from "./chunking/chunk-document.ts";
import type { ParsedDocument } from "./documents.ts";
import { ParseError, type RawDocument } from "./documents.ts";
import { UnsupportedTypeError } from "./parsing/parse-document.ts";

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
  parse: (raw: RawDocument) => Promise<ParsedDocument>;
  /** The documents a source has now; throwing mid-way keeps every document not yet seen. */
  listDocuments: (source: DataSourceRecord, signal: AbortSignal) => AsyncIterable<RawDocument>;
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
export const BATCH_DOCUMENTS = 64;
export const BATCH_CHUNKS = 2_000;
export const BATCH_WAIT_MS = 1_000;

/** A changed document, parsed and chunked (or refused by its parser), waiting for its batch's commit. */
interface PreparedDocument {
  raw: RawDocument;
  hash: string;
  previous: DocumentRecord | undefined;
  base: DocumentRecord;
  bytes: number;
  result:
    | { ok: true; parsed: ParsedDocument; chunks: StoredChunk[] }
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

  const flush = async (): Promise<void> => {
    // Taken before writing: a failed write is not retried by the caller's error path.
    const batch = pending;
    pending = [];
    pendingChunks = 0;
    if (batch.length === 0) return;
    for (const outcome of await indexDocuments(deps, batch)) counts[outcome] += 1;
    processed += batch.length;
    await deps.onProgress?.(processed, counts);
  };

  try {
    for await (const raw of deps.listDocuments(source, signal)) {
      signal.throwIfAborted();
      if (seen.has(raw.externalId)) continue;
      seen.add(raw.externalId);
      const hash = contentHash(raw.body);
      const previous = existing.get(raw.externalId);
      if (previous && previous.contentHash === hash && previous.status !== "pending") {
        counts.unchanged += 1;
        processed += 1;
        await deps.onProgress?.(processed, counts);
        continue;
      }
      const prepared = await prepareDocument(deps, source, raw, hash, previous);
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
    }
  } catch (error) {
    // What was read before the listing failed is kept; a cancelled sync (source deleted) keeps nothing.
    if (!signal.aborted) await flush();
    throw error;
  }
  await flush();

  for (const [externalId, doc] of existing) {
    if (seen.has(externalId) || doc.storedFile) continue; // uploaded files leave only through DELETE
    signal.throwIfAborted();
    await index.deleteDocuments([doc.id]);
    await store.documents.delete([doc.id]);
    counts.removed += 1;
  }
  return counts;
}

/** A parsed document's chunks as the index stores them, for one version of one document of a source. */
export function chunkRecords(
  parsed: ParsedDocument,
  at: Pick<StoredChunk, "workspaceId" | "dataSourceId" | "documentId" | "documentVersion" | "sourceUrl">,
): StoredChunk[] {
  return chunkDocument(parsed).map((d) => ({
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
    const parsed = await deps.parse(raw);
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

/** Writes a batch: pending records of new documents, then every chunk in one commit, then the final records. */
async function indexDocuments(
  deps: SyncDeps,
  batch: PreparedDocument[],
): Promise<("added" | "updated" | "failed")[]> {
  const parsedOk = batch.filter((d) => d.result.ok);
  // A new document is recorded (pending) before its chunks exist: a crash between the two then
  // leaves a record the next sync re-indexes or removes, never chunks no record owns.
  await deps.store.documents.putMany(parsedOk.filter((d) => !d.previous).map((d) => d.base));
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
  await deps.store.documents.putMany(records);
  return outcomes;
}
