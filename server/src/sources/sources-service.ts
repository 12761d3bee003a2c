import { randomUUID } from "node:crypto";
import {
  type BulkTextEntriesResponse,
  bulkTextEntrySchema,
  type CreateDataSourceRequest,
  type DataSource,
  type DataSourceType,
  notionConfigSchema,
  type StoredTextEntry,
  type SyncRun,
  textConfigSchema,
  webConfigSchema,
} from "@lore/shared";
import type { z } from "zod";
import type { AgentsService } from "../agents/agents-service.ts";
import { maskSecret, type SecretBox } from "../crypto/secret-box.ts";
import { AppError, notFound, parseWith, validationError } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { SyncRunner } from "../jobs/sync-runner.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import type { DataSourceRecord, DocumentRecord, SyncRunRecord } from "../store/records.ts";
import type { StorageHealth } from "../store/storage-health.ts";
import type { Store } from "../store/store.ts";
import { entryExternalId, isIndexed, keysOfInlineEntries } from "./connectors/text.ts";
import {
  BodyTooLargeError,
  EntryStreamError,
  readJsonArray,
  readNdjson,
  type StreamItem,
} from "./entry-stream.ts";
import type { FileStorage } from "./file-storage.ts";
import { detectKind, UnsupportedTypeError } from "./parsing/detect-kind.ts";
import { contentHash } from "./sync-source.ts";
import type { EntryInput, EntryMeta, TextEntryStore } from "./text-entry-store.ts";

export interface UploadedFile {
  name: string;
  type: string;
  bytes: Uint8Array;
}

const configSchemas: Record<Exclude<DataSourceType, "file">, z.ZodTypeAny> = {
  text: textConfigSchema,
  web: webConfigSchema,
  notion: notionConfigSchema,
};

/** Public shape of a sync run: no tenant or lease bookkeeping. */
export function toSyncRun(run: SyncRunRecord): SyncRun {
  const { workspaceId: _w, leaseUntil: _l, nextAttemptAt: _n, ...rest } = run;
  return rest;
}

/** Decrypted config for connectors. */
export function connectorConfig(secrets: SecretBox, source: DataSourceRecord): Record<string, unknown> {
  const config = { ...source.config };
  if (typeof config.token === "string") config.token = secrets.open(config.token);
  return config;
}

/**
 * Deletes everything these deleted sources owned, one commit per table. Idempotent: safe to run
 * again after a crash mid-purge. The sync runner calls it for tombstoned sources.
 */
export async function purgeDataSources(
  deps: { store: Store; index: ChunkIndex; files: FileStorage; entries: TextEntryStore },
  sources: readonly DataSourceRecord[],
): Promise<void> {
  const { store, index, files, entries } = deps;
  const ids = new Set(sources.map((s) => s.id));
  await index.deleteDataSources([...ids]);
  await store.documents.delete(store.documents.filter((d) => ids.has(d.dataSourceId)).map((d) => d.id));
  for (const id of ids) await files.removeAll(id);
  await entries.removeSources([...ids]);
  await store.syncRuns.delete(store.syncRuns.filter((r) => ids.has(r.dataSourceId)).map((r) => r.id));
  await store.dataSources.delete([...ids]);
}

/** Data sources: create (first sync queued), change, delete (tombstone now, purge in the background), files. */
export class SourcesService {
  /** Text sources whose entries changed while a sync was running: synced again once it ends. */
  private readonly resyncAfterRun = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly runner: SyncRunner,
    private readonly index: ChunkIndex,
    private readonly files: FileStorage,
    private readonly secrets: SecretBox,
    private readonly agents: AgentsService,
    private readonly entries: TextEntryStore,
    events: EventBus,
    /** The data directory's disk: below its free-space floor a bulk load waits between batches. */
    private readonly storage?: Pick<StorageHealth, "waitForRoom">,
  ) {
    events.subscribe(async (event) => {
      if (event.type !== "data_source.sync.completed" && event.type !== "data_source.sync.failed") return;
      if (!this.resyncAfterRun.delete(event.dataSourceId)) return;
      const source = this.store.dataSources.get(event.dataSourceId);
      if (source && !source.deletedAt) await this.syncEntries(source);
    });
  }

  /** Public shape: secrets masked. */
  toDataSource(record: DataSourceRecord): DataSource {
    const { deletedAt: _d, everReady: _e, ...rest } = record;
    const config = { ...record.config };
    if (typeof config.token === "string") config.token = maskSecret(this.secrets.open(config.token));
    return { ...rest, config };
  }

  /** A live source of the workspace, else 404 (deleted sources no longer exist for clients). */
  get(id: string): DataSourceRecord {
    const source = this.store.dataSources.get(id);
    if (!source || source.deletedAt) throw notFound("data_source", id);
    return source;
  }

  list(workspaceIds: Set<string>, filter: { type?: string; status?: string }): DataSourceRecord[] {
    return this.store.dataSources
      .filter(
        (s) =>
          s.deletedAt === null &&
          workspaceIds.has(s.workspaceId) &&
          (!filter.type || s.type === filter.type) &&
          (!filter.status || s.status === filter.status),
      )
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  }

  async create(workspaceId: string, input: CreateDataSourceRequest): Promise<DataSourceRecord> {
    const config: Record<string, unknown> = { ...input.config };
    if (input.type === "notion") config.token = this.secrets.seal(input.config.token);
    // A text source's entries live in the entry store, never in its record.
    if (input.type === "text") delete config.entries;
    const record = await this.store.dataSources.put(
      this.newRecord(workspaceId, input.name, input.type, config, input.schedule ?? null),
    );
    if (input.type === "text" && input.config.entries)
      await this.replaceEntries(record, keysOfInlineEntries(input.config.entries));
    await this.runner.enqueue(record, "create");
    return this.get(record.id);
  }

  async createFileSource(
    workspaceId: string,
    name: string,
    uploads: UploadedFile[],
  ): Promise<DataSourceRecord> {
    const checked = uploads.map(checkUpload);
    const record = await this.store.dataSources.put(this.newRecord(workspaceId, name, "file", {}, null));
    await this.storeFiles(record, checked);
    await this.runner.enqueue(record, "create");
    return this.get(record.id);
  }

  async addFiles(
    source: DataSourceRecord,
    uploads: UploadedFile[],
  ): Promise<{ documents: DocumentRecord[]; syncRun: SyncRunRecord }> {
    if (source.type !== "file") {
      throw new AppError("validation_error", "Files can only be added to a file source", {
        fields: { type: ["must be file"] },
      });
    }
    const documents = await this.storeFiles(source, uploads.map(checkUpload));
    const syncRun = await this.runner.enqueue(source, "files");
    return { documents, syncRun };
  }

  async removeFile(source: DataSourceRecord, documentId: string): Promise<void> {
    if (source.type !== "file") {
      throw new AppError(
        "validation_error",
        "Only uploaded files can be removed one by one; change the source's config instead",
        {
          fields: { documentId: ["not an uploaded file"] },
        },
      );
    }
    const doc = this.store.documents.get(documentId);
    if (!doc || doc.dataSourceId !== source.id) throw notFound("document", documentId);
    await this.index.deleteDocuments([doc.id]);
    await this.store.documents.delete([doc.id]);
    if (doc.storedFile) await this.files.remove(source.id, doc.storedFile);
    await this.refreshCounts(source.id);
  }

  /**
   * Puts a new version of one uploaded file in place of the old: the old chunks and stored file go
   * at once (never cited again), the document keeps its id and is re-indexed by the queued sync.
   */
  async replaceFile(
    source: DataSourceRecord,
    documentId: string,
    upload: UploadedFile,
  ): Promise<{ document: DocumentRecord; syncRun: SyncRunRecord }> {
    if (source.type !== "file") {
      throw new AppError("validation_error", "Only uploaded files can be replaced", {
        fields: { documentId: ["not an uploaded file"] },
      });
    }
    const doc = this.store.documents.get(documentId);
    if (!doc || doc.dataSourceId !== source.id || !doc.storedFile) throw notFound("document", documentId);
    const checked = checkUpload(upload);
    const fileId = await this.files.save(source.id, checked.bytes);
    await this.index.deleteDocuments([doc.id]);
    const document: DocumentRecord = {
      ...doc,
      title: checked.name,
      kind: checked.kind,
      status: "pending",
      error: null,
      chunkCount: 0,
      pageCount: null,
      bytes: checked.bytes.byteLength,
      contentHash: contentHash(checked.bytes),
      storedFile: fileId,
      updatedAt: new Date().toISOString(),
    };
    await this.store.documents.putMany([document]);
    await this.files.remove(source.id, doc.storedFile);
    await this.refreshCounts(source.id);
    const syncRun = await this.runner.enqueue(source, "files");
    return { document, syncRun };
  }

  async update(
    source: DataSourceRecord,
    patch: { name?: string; config?: Record<string, unknown>; schedule?: { intervalMinutes: number } | null },
  ): Promise<DataSourceRecord> {
    let config = source.config;
    if (patch.config) {
      if (source.type === "file") {
        throw new AppError("validation_error", "File sources have no config", {
          fields: { config: ["not allowed for file sources"] },
        });
      }
      const incoming = { ...patch.config };
      // A masked or missing token keeps the stored one.
      if (source.type === "notion" && (typeof incoming.token !== "string" || incoming.token.includes("…"))) {
        incoming.token = this.secrets.open(String(source.config.token));
      }
      const parsed = parseWith(configSchemas[source.type], incoming) as Record<string, unknown>;
      config =
        source.type === "notion" ? { ...parsed, token: this.secrets.seal(String(parsed.token)) } : parsed;
      if (source.type === "text") {
        const { entries } = parsed as { entries?: Array<{ title: string; content: string }> };
        if (entries) await this.replaceEntries(source, keysOfInlineEntries(entries));
        config = {};
      }
    }
    const updated = await this.store.dataSources.put({
      ...source,
      name: patch.name ?? source.name,
      schedule: patch.schedule === undefined ? source.schedule : patch.schedule,
      config,
      updatedAt: new Date().toISOString(),
    });
    if (patch.config) {
      const run = await this.runner.enqueue(updated, "manual");
      if (source.type === "text" && run.status === "running") this.resyncAfterRun.add(source.id);
    }
    return this.get(updated.id);
  }

  /** The source's entries, oldest first, without their content (read per page with `withContent`). */
  entryList(source: DataSourceRecord): EntryMeta[] {
    this.requireText(source);
    return this.entries.list(source.id);
  }

  /** Entries as the API shows them: content read from the store, status from their documents. */
  async withContent(source: DataSourceRecord, metas: readonly EntryMeta[]): Promise<StoredTextEntry[]> {
    const contents = new Map<string, string>();
    for await (const e of this.entries.readContents(
      source.id,
      metas.map((m) => m.key),
    ))
      contents.set(e.key, e.content);
    const docs = new Map(
      this.store.documents.filter((d) => d.dataSourceId === source.id).map((d) => [d.externalId, d]),
    );
    return metas.map((meta) => {
      const doc = docs.get(entryExternalId(meta.key));
      const indexed = isIndexed(doc, meta);
      return {
        key: meta.key,
        title: meta.title,
        content: contents.get(meta.key) ?? "",
        contentHash: meta.contentHash,
        bytes: meta.bytes,
        status: indexed && doc ? (doc.status === "failed" ? "failed" : "indexed") : "pending",
        error: indexed ? (doc?.error ?? null) : null,
        documentId: doc?.id ?? null,
        createdAt: meta.createdAt,
        updatedAt: meta.updatedAt,
      };
    });
  }

  /** Creates or replaces one entry; a sync is queued only when its title or content changed. */
  async putEntry(
    source: DataSourceRecord,
    entry: EntryInput,
  ): Promise<{ entry: StoredTextEntry; syncRun: SyncRunRecord | null; created: boolean }> {
    this.requireText(source);
    const result = await this.entries.upsert(source.id, [entry]);
    const syncRun = result.unchanged > 0 ? null : await this.syncEntries(source);
    const meta = this.entries.get(source.id, entry.key);
    if (!meta) throw notFound("entry", entry.key); // deleted by a concurrent request
    const [stored] = await this.withContent(source, [meta]);
    if (!stored) throw notFound("entry", entry.key);
    return { entry: stored, syncRun, created: result.created.length > 0 };
  }

  /**
   * A bulk load: items are checked and stored in batches of `BULK_BATCH` as they arrive, and one
   * sync is queued at the end. The first bad item stops the load; the batches before it stay stored
   * (and are synced), so fixing the body and sending it again is safe.
   */
  async loadEntries(
    source: DataSourceRecord,
    format: "ndjson" | "array",
    body: AsyncIterable<Uint8Array>,
    signal?: AbortSignal,
  ): Promise<BulkTextEntriesResponse> {
    this.requireText(source);
    const unit = format === "ndjson" ? "line" : "element";
    const counts = { received: 0, created: 0, updated: 0, unchanged: 0 };
    let batch: EntryInput[] = [];
    const store = async () => {
      await this.storage?.waitForRoom(signal);
      const result = await this.entries.upsert(source.id, batch);
      batch = [];
      counts.created += result.created.length;
      counts.updated += result.updated.length;
      counts.unchanged += result.unchanged;
      // Not `ready` while stored entries wait for the sync queued at the end.
      if (result.created.length + result.updated.length > 0) await this.runner.expectSync(source.id);
    };
    const changed = () => counts.created + counts.updated > 0;
    try {
      for await (const item of format === "ndjson" ? readNdjson(body) : readJsonArray(body)) {
        batch.push(bulkEntry(item, unit));
        counts.received += 1;
        if (batch.length >= BULK_BATCH) await store();
      }
      await store();
    } catch (error) {
      if (changed()) await this.syncEntries(source);
      throw bulkError(error, unit, counts.received - batch.length);
    }
    return { ...counts, syncRun: changed() ? toSyncRun(await this.syncEntries(source)) : null };
  }

  /** Removes one entry with its document and chunks at once: it is never cited again. */
  async deleteEntry(source: DataSourceRecord, key: string): Promise<void> {
    this.requireText(source);
    const [removed] = await this.entries.remove(source.id, [key]);
    if (removed === undefined) throw notFound("entry", key);
    // A running sync may have read the entry already: the sync after it removes what that one indexes.
    if (this.runner.activeRun(source.id)?.status === "running") this.resyncAfterRun.add(source.id);
    const externalId = entryExternalId(key);
    const doc = this.store.documents.find((d) => d.dataSourceId === source.id && d.externalId === externalId);
    if (doc) {
      await this.index.deleteDocuments([doc.id]);
      await this.store.documents.delete([doc.id]);
      await this.refreshCounts(source.id);
    }
  }

  /**
   * Queues the sync that indexes changed entries; one running already may have listed them, so
   * another follows it.
   */
  async syncEntries(source: DataSourceRecord): Promise<SyncRunRecord> {
    const run = await this.runner.enqueue(source, "entries");
    if (run.status === "running") this.resyncAfterRun.add(source.id);
    return run;
  }

  /** `config.entries`: the source's entries become exactly these (only what differs is written). */
  private async replaceEntries(source: DataSourceRecord, entries: EntryInput[]): Promise<void> {
    await this.entries.upsert(source.id, entries);
    const keep = new Set(entries.map((e) => e.key));
    const gone = this.entries
      .list(source.id)
      .filter((e) => !keep.has(e.key))
      .map((e) => e.key);
    await this.entries.remove(source.id, gone);
  }

  private requireText(source: DataSourceRecord): void {
    if (source.type !== "text") {
      throw new AppError("validation_error", "Entries belong to text sources", {
        fields: { type: ["must be text"] },
      });
    }
  }

  /** Tombstones at once (never retrieved again), detaches from agents, and leaves the purge to the runner. */
  async remove(source: DataSourceRecord): Promise<void> {
    await this.store.dataSources.put({ ...source, deletedAt: new Date().toISOString() });
    await this.runner.cancel(source.id);
    await this.agents.detachDataSource(source.workspaceId, source.id);
  }

  sync(source: DataSourceRecord): Promise<SyncRunRecord> {
    return this.runner.enqueue(source, "manual");
  }

  /** Per document, the headings its indexed chunks start at, in order, without repeats (at most 50). */
  async sectionTitles(documentIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const [documentId, chunks] of await this.index.readDocumentChunks(documentIds)) {
      const titles: string[] = [];
      for (const chunk of chunks) {
        const title = chunk.headingPath.join(" > ");
        if (title && titles.at(-1) !== title && !titles.includes(title)) titles.push(title);
        if (titles.length >= 50) break;
      }
      out.set(documentId, titles);
    }
    return out;
  }

  documents(sourceId: string): DocumentRecord[] {
    return this.store.documents
      .filter((d) => d.dataSourceId === sourceId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  syncRuns(sourceId: string): SyncRunRecord[] {
    return this.store.syncRuns
      .filter((r) => r.dataSourceId === sourceId)
      .sort((a, b) => b.queuedAt.localeCompare(a.queuedAt));
  }

  private async refreshCounts(sourceId: string): Promise<void> {
    const indexed = this.store.documents.filter((d) => d.dataSourceId === sourceId && d.status === "indexed");
    await this.store.dataSources.transact(() => {
      const current = this.store.dataSources.get(sourceId);
      if (!current) return { rows: [], result: null };
      const next = {
        ...current,
        documentCount: indexed.length,
        chunkCount: indexed.reduce((n, d) => n + d.chunkCount, 0),
        updatedAt: new Date().toISOString(),
      };
      return { rows: [next], result: null };
    });
  }

  private async storeFiles(
    source: DataSourceRecord,
    uploads: Array<UploadedFile & { kind: DocumentRecord["kind"] }>,
  ): Promise<DocumentRecord[]> {
    const docs: DocumentRecord[] = [];
    for (const upload of uploads) {
      const fileId = await this.files.save(source.id, upload.bytes);
      const now = new Date().toISOString();
      docs.push({
        id: randomUUID(),
        dataSourceId: source.id,
        workspaceId: source.workspaceId,
        externalId: `file:${fileId}`,
        title: upload.name,
        kind: upload.kind,
        sourceUrl: null,
        status: "pending",
        error: null,
        chunkCount: 0,
        pageCount: null,
        bytes: upload.bytes.byteLength,
        contentHash: contentHash(upload.bytes),
        storedFile: fileId,
        createdAt: now,
        updatedAt: now,
      });
    }
    await this.store.documents.putMany(docs);
    return docs;
  }

  private newRecord(
    workspaceId: string,
    name: string,
    type: DataSourceType,
    config: Record<string, unknown>,
    schedule: DataSourceRecord["schedule"],
  ): DataSourceRecord {
    const now = new Date().toISOString();
    return {
      id: randomUUID(),
      workspaceId,
      name,
      type,
      config,
      status: "queued",
      progress: { total: 0, processed: 0 },
      lastSyncedAt: null,
      lastError: null,
      documentCount: 0,
      chunkCount: 0,
      schedule,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
      everReady: false,
    };
  }
}

/** Entries a bulk load stores per commit. */
const BULK_BATCH = 1_000;

/** One item of a bulk load as an entry, or the contract error naming its line (or element). */
function bulkEntry(item: StreamItem, unit: "line" | "element"): EntryInput {
  const parsed = bulkTextEntrySchema.safeParse(item.value);
  const label = `${unit === "line" ? "Line" : "Element"} ${item.at}`;
  if (!parsed.success) {
    const error = validationError(parsed.error.issues, `${label} is not a valid entry`);
    throw new AppError("validation_error", error.message, { ...error.details, [unit]: item.at });
  }
  const { key, title, content } = parsed.data;
  // As for every JSON body: no text Lore indexes needs NUL characters.
  if (`${key ?? ""}${title}${content}`.includes("\u0000")) {
    throw new AppError("validation_error", `${label} contains a NUL character`, {
      fields: { content: ["must not contain NUL characters"] },
      [unit]: item.at,
    });
  }
  return { key: key ?? title, title, content };
}

/** A failed bulk load as the contract's error, with how many entries before the failure were stored. */
function bulkError(error: unknown, unit: "line" | "element", stored: number): unknown {
  if (error instanceof AppError) {
    return new AppError(error.code, error.message, { ...error.details, stored }, error.headers);
  }
  if (error instanceof BodyTooLargeError) {
    return new AppError("payload_too_large", error.message, { maxBytes: error.maxBytes, stored });
  }
  if (error instanceof EntryStreamError) {
    return new AppError("validation_error", error.message, {
      fields: { body: [error.message] },
      ...(error.at === null ? {} : { [unit]: error.at }),
      stored,
    });
  }
  return error;
}

/** Refuses empty and unsupported files up front (415 lists what is supported). */
function checkUpload(upload: UploadedFile): UploadedFile & { kind: DocumentRecord["kind"] } {
  if (upload.bytes.byteLength === 0) {
    throw new AppError("validation_error", `The file ${upload.name} is empty`, {
      fields: { files: [`${upload.name} is empty`] },
    });
  }
  try {
    const kind = detectKind({
      body: upload.bytes,
      kind: null,
      fileName: upload.name,
      mediaType: upload.type,
    });
    return { ...upload, kind };
  } catch (error) {
    if (error instanceof UnsupportedTypeError) {
      throw new AppError("unsupported_media_type", `${upload.name}: ${error.message}`, {
        file: upload.name,
        detected: error.detected,
        supported: [...error.supported],
      });
    }
    throw error;
  }
}
