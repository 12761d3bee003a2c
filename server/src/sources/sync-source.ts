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
 * One sync of one source: fetch → hash → (parse → chunk → index) for what changed, then remove
 * what vanished. Each document is replaced atomically in the index before its record moves to the
 * new version, so a crash at any point leaves either version searchable and the next run finishes it.
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

  for await (const raw of deps.listDocuments(source, signal)) {
    signal.throwIfAborted();
    if (seen.has(raw.externalId)) continue;
    seen.add(raw.externalId);
    const hash = contentHash(raw.body);
    const previous = existing.get(raw.externalId);
    if (previous && previous.contentHash === hash && previous.status !== "pending") {
      counts.unchanged += 1;
    } else {
      const outcome = await indexDocument(deps, source, raw, hash, previous);
      counts[outcome] += 1;
    }
    processed += 1;
    await deps.onProgress?.(processed, counts);
  }

  for (const [externalId, doc] of existing) {
    if (seen.has(externalId) || doc.storedFile) continue; // uploaded files leave only through DELETE
    signal.throwIfAborted();
    await index.deleteDocuments([doc.id]);
    await store.documents.delete([doc.id]);
    counts.removed += 1;
  }
  return counts;
}

async function indexDocument(
  deps: SyncDeps,
  source: DataSourceRecord,
  raw: RawDocument,
  hash: string,
  previous: DocumentRecord | undefined,
): Promise<"added" | "updated" | "failed"> {
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
    const drafts = chunkDocument(parsed);
    const chunks: StoredChunk[] = drafts.map((d) => ({
      id: randomUUID(),
      workspaceId: source.workspaceId,
      dataSourceId: source.id,
      documentId: base.id,
      documentVersion: hash,
      ordinal: d.ordinal,
      text: d.text,
      title: parsed.title,
      headingPath: d.headingPath,
      page: d.page,
      sourceUrl: raw.sourceUrl,
      kind: parsed.kind,
      tokenCount: d.tokenCount,
    }));
    // A new document is recorded (pending) before its chunks exist: a crash between the two then
    // leaves a record the next sync re-indexes or removes, never chunks no record owns.
    if (!previous) await deps.store.documents.put(base);
    await deps.index.replaceDocument(base.id, chunks);
    await deps.store.documents.put({
      ...base,
      title: parsed.title,
      kind: parsed.kind,
      sourceUrl: raw.sourceUrl,
      status: "indexed",
      error: null,
      chunkCount: chunks.length,
      pageCount: parsed.pageCount,
      bytes,
      contentHash: hash,
      updatedAt: new Date().toISOString(),
    });
    return previous && previous.status !== "pending" ? "updated" : "added";
  } catch (error) {
    if (!(error instanceof ParseError || error instanceof UnsupportedTypeError)) throw error;
    if (previous?.status === "indexed") {
      // The previous version keeps serving; the hash stays old so the next sync tries again.
      await deps.store.documents.put({
        ...previous,
        error: error.message,
        updatedAt: new Date().toISOString(),
      });
      return "failed";
    }
    await deps.store.documents.put({
      ...base,
      status: "failed",
      error: error.message,
      chunkCount: 0,
      bytes,
      contentHash: hash,
      updatedAt: new Date().toISOString(),
    });
    return "failed";
  }
}
