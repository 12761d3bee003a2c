import { randomUUID } from "node:crypto";
import {
  type CreateDataSourceRequest,
  type DataSource,
  type DataSourceType,
  notionConfigSchema,
  type SyncRun,
  textConfigSchema,
  webConfigSchema,
} from "@lore/shared";
import type { z } from "zod";
import type { AgentsService } from "../agents/agents-service.ts";
import { maskSecret, type SecretBox } from "../crypto/secret-box.ts";
import { AppError, notFound, parseWith } from "../errors.ts";
import type { SyncRunner } from "../jobs/sync-runner.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import type { DataSourceRecord, DocumentRecord, SyncRunRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import type { FileStorage } from "./file-storage.ts";
import { detectKind, UnsupportedTypeError } from "./parsing/parse-document.ts";
import { contentHash } from "./sync-source.ts";

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
  deps: { store: Store; index: ChunkIndex; files: FileStorage },
  sources: readonly DataSourceRecord[],
): Promise<void> {
  const { store, index, files } = deps;
  const ids = new Set(sources.map((s) => s.id));
  await index.deleteDataSources([...ids]);
  await store.documents.delete(store.documents.filter((d) => ids.has(d.dataSourceId)).map((d) => d.id));
  for (const id of ids) await files.removeAll(id);
  await store.syncRuns.delete(store.syncRuns.filter((r) => ids.has(r.dataSourceId)).map((r) => r.id));
  await store.dataSources.delete([...ids]);
}

/** Data sources: create (first sync queued), change, delete (tombstone now, purge in the background), files. */
export class SourcesService {
  constructor(
    private readonly store: Store,
    private readonly runner: SyncRunner,
    private readonly index: ChunkIndex,
    private readonly files: FileStorage,
    private readonly secrets: SecretBox,
    private readonly agents: AgentsService,
  ) {}

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
    const record = await this.store.dataSources.put(
      this.newRecord(workspaceId, input.name, input.type, config, input.schedule ?? null),
    );
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
    }
    const updated = await this.store.dataSources.put({
      ...source,
      name: patch.name ?? source.name,
      schedule: patch.schedule === undefined ? source.schedule : patch.schedule,
      config,
      updatedAt: new Date().toISOString(),
    });
    if (patch.config) await this.runner.enqueue(updated, "manual");
    return this.get(updated.id);
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
