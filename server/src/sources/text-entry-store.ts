import { createHash } from "node:crypto";
import type { Connection, Table } from "@lancedb/lancedb";
import { Field, Int32, Schema, Utf8 } from "apache-arrow";
import { type ChangeFeed, singleProcessFeed } from "../store/change-feed.ts";
import { type Compactable, CompactionPolicy, optimizeTable } from "../store/maintenance.ts";
import { WriteQueue } from "../store/write-queue.ts";

/** What is held in memory for one entry: everything but its content, which stays on disk. */
export interface EntryMeta {
  key: string;
  title: string;
  /** SHA-256 of the content, hex. */
  contentHash: string;
  bytes: number;
  createdAt: string;
  updatedAt: string;
}

export interface EntryInput {
  key: string;
  title: string;
  content: string;
}

export interface UpsertResult {
  created: EntryMeta[];
  updated: EntryMeta[];
  unchanged: number;
}

const TABLE = "text_entries";

const entrySchema = new Schema([
  new Field("id", new Utf8(), false),
  new Field("data_source_id", new Utf8(), false),
  new Field("key", new Utf8(), false),
  new Field("title", new Utf8(), false),
  new Field("content", new Utf8(), false),
  new Field("content_hash", new Utf8(), false),
  new Field("bytes", new Int32(), false),
  new Field("created_at", new Utf8(), false),
  new Field("updated_at", new Utf8(), false),
]);

type EntryRow = {
  id: string;
  data_source_id: string;
  key: string;
  title: string;
  content: string;
  content_hash: string;
  bytes: number;
  created_at: string;
  updated_at: string;
};

/** Ids looked up per query when few entries are read; above `SCAN_FROM`, the source's rows are scanned once. */
const IDS_PER_QUERY = 500;
const SCAN_FROM = 2_000;

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Data source ids (UUIDs): safe in a filter expression. */
const UUID_LIKE = /^[0-9a-f-]+$/i;

/** The row id of an entry: a hash, so no caller-chosen key ever reaches a filter expression. */
function rowId(dataSourceId: string, key: string): string {
  return sha256(`${dataSourceId}\n${key}`).slice(0, 32);
}

/**
 * The entries of text sources, each stored once in the `text_entries` table (content included) and
 * written only when its content or title changes. Memory holds every entry's metadata (key, title,
 * hash, size), never its content: a sync reads the content of the entries it must index, nothing more.
 */
export class TextEntryStore implements Compactable {
  private readonly bySource = new Map<string, Map<string, EntryMeta>>();
  private readonly queue = new WriteQueue();
  private readonly policy = new CompactionPolicy();
  /** Reads of content under way (`readContents`). */
  private readers = 0;

  private constructor(
    private readonly table: Table,
    private readonly feed: ChangeFeed,
  ) {}

  /** Shared mode: `feed` carries the sources whose entries another replica changed. */
  static async open(db: Connection, feed: ChangeFeed = singleProcessFeed): Promise<TextEntryStore> {
    const table = (await db.tableNames()).includes(TABLE)
      ? await db.openTable(TABLE)
      : await db.createEmptyTable(TABLE, entrySchema, { mode: "create", existOk: true });
    const store = new TextEntryStore(table, feed);
    await store.load(null);
    feed.on(TABLE, (sourceIds) => store.queue.run(() => store.load(sourceIds)));
    return store;
  }

  /** Reads the metadata of these sources' entries (or all) from the table, replacing what memory holds. */
  private async load(dataSourceIds: readonly string[] | null): Promise<void> {
    const ids = dataSourceIds?.filter((id) => UUID_LIKE.test(id)) ?? null;
    if (ids?.length === 0) return;
    const query = this.table
      .query()
      .select(["data_source_id", "key", "title", "content_hash", "bytes", "created_at", "updated_at"]);
    if (ids) query.where(`data_source_id IN (${ids.map((id) => `'${id}'`).join(", ")})`);
    const rows = await query.toArray();
    if (ids) for (const id of ids) this.bySource.delete(id);
    else this.bySource.clear();
    for (const row of rows as Omit<EntryRow, "id" | "content">[]) {
      this.entriesOf(String(row.data_source_id), true).set(String(row.key), {
        key: String(row.key),
        title: String(row.title),
        contentHash: String(row.content_hash),
        bytes: Number(row.bytes),
        createdAt: String(row.created_at),
        updatedAt: String(row.updated_at),
      });
    }
  }

  /** Other replicas learn that this source's entries changed (shared mode). */
  private changed(dataSourceIds: readonly string[]): Promise<void> {
    return this.feed.publish({ table: TABLE, ids: dataSourceIds });
  }

  private entriesOf(dataSourceId: string, create: true): Map<string, EntryMeta>;
  private entriesOf(dataSourceId: string, create?: false): Map<string, EntryMeta> | undefined;
  private entriesOf(dataSourceId: string, create = false): Map<string, EntryMeta> | undefined {
    let entries = this.bySource.get(dataSourceId);
    if (!entries && create) {
      entries = new Map();
      this.bySource.set(dataSourceId, entries);
    }
    return entries;
  }

  /** A source's entries, oldest first (ties by key). */
  list(dataSourceId: string): EntryMeta[] {
    // Plain comparisons: localeCompare costs seconds over 100,000 entries.
    const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    return [...(this.entriesOf(dataSourceId)?.values() ?? [])].sort(
      (a, b) => order(a.createdAt, b.createdAt) || order(a.key, b.key),
    );
  }

  get(dataSourceId: string, key: string): EntryMeta | undefined {
    return this.entriesOf(dataSourceId)?.get(key);
  }

  count(dataSourceId: string): number {
    return this.entriesOf(dataSourceId)?.size ?? 0;
  }

  /**
   * Stores what changed among `items` in one commit (a repeated key: the last one wins); an entry
   * whose title and content are as stored is not written at all.
   */
  upsert(dataSourceId: string, items: readonly EntryInput[]): Promise<UpsertResult> {
    const latest = new Map<string, EntryInput>();
    for (const item of items) latest.set(item.key, item);
    return this.queue.run(async () => {
      const known = this.entriesOf(dataSourceId, true);
      const now = new Date().toISOString();
      const result: UpsertResult = { created: [], updated: [], unchanged: 0 };
      const rows: EntryRow[] = [];
      for (const item of latest.values()) {
        const contentHash = sha256(item.content);
        const previous = known.get(item.key);
        if (previous && previous.contentHash === contentHash && previous.title === item.title) {
          result.unchanged += 1;
          continue;
        }
        const meta: EntryMeta = {
          key: item.key,
          title: item.title,
          contentHash,
          bytes: Buffer.byteLength(item.content),
          createdAt: previous?.createdAt ?? now,
          updatedAt: now,
        };
        (previous ? result.updated : result.created).push(meta);
        rows.push({
          id: rowId(dataSourceId, item.key),
          data_source_id: dataSourceId,
          key: meta.key,
          title: meta.title,
          content: item.content,
          content_hash: contentHash,
          bytes: meta.bytes,
          created_at: meta.createdAt,
          updated_at: meta.updatedAt,
        });
      }
      if (rows.length === 0) return result;
      // New keys only (a bulk load): a plain append, no join against the rows already stored.
      if (result.updated.length === 0) await this.table.add(rows);
      else await this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
      for (const meta of [...result.created, ...result.updated]) known.set(meta.key, meta);
      this.policy.wrote(rows.reduce((n, r) => n + r.bytes, 0));
      await this.changed([dataSourceId]);
      return result;
    });
  }

  /** Deletes these keys of a source; returns the ones that existed. */
  remove(dataSourceId: string, keys: readonly string[]): Promise<string[]> {
    return this.queue.run(async () => {
      const known = this.entriesOf(dataSourceId);
      const present = keys.filter((k) => known?.has(k));
      for (let i = 0; i < present.length; i += IDS_PER_QUERY) {
        const ids = present.slice(i, i + IDS_PER_QUERY).map((k) => `'${rowId(dataSourceId, k)}'`);
        await this.table.delete(`id IN (${ids.join(", ")})`);
      }
      for (const key of present) known?.delete(key);
      if (present.length > 0) {
        this.policy.wrote(0);
        await this.changed([dataSourceId]);
      }
      return present;
    });
  }

  /** Deletes every entry of these sources (their ids are UUIDs, safe in a filter). */
  removeSources(dataSourceIds: readonly string[]): Promise<void> {
    const ids = dataSourceIds.filter((id) => UUID_LIKE.test(id));
    if (ids.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      await this.table.delete(`data_source_id IN (${ids.map((id) => `'${id}'`).join(", ")})`);
      for (const id of ids) this.bySource.delete(id);
      this.policy.wrote(0);
      await this.changed(ids);
    });
  }

  /**
   * The stored content of these entries, as it is on disk now (a key deleted meanwhile is skipped):
   * looked up by id when they are few, else by one scan of the source's rows.
   */
  async *readContents(
    dataSourceId: string,
    keys: readonly string[],
  ): AsyncIterable<{ key: string; title: string; content: string }> {
    if (keys.length === 0) return;
    this.readers += 1;
    try {
      yield* this.read(dataSourceId, keys);
    } finally {
      this.readers -= 1;
    }
  }

  private async *read(
    dataSourceId: string,
    keys: readonly string[],
  ): AsyncIterable<{ key: string; title: string; content: string }> {
    const wanted = new Set(keys);
    const filters =
      keys.length >= SCAN_FROM
        ? [`data_source_id = '${dataSourceId.replace(/[^0-9a-f-]/gi, "")}'`]
        : chunked(keys, IDS_PER_QUERY).map(
            (part) => `id IN (${part.map((k) => `'${rowId(dataSourceId, k)}'`).join(", ")})`,
          );
    for (const filter of filters) {
      const query = this.table.query().where(filter).select(["key", "title", "content"]);
      for await (const batch of query) {
        const key = batch.getChild("key");
        const title = batch.getChild("title");
        const content = batch.getChild("content");
        for (let i = 0; i < batch.numRows; i++) {
          const k = String(key?.get(i));
          if (!wanted.has(k)) continue;
          yield { key: k, title: String(title?.get(i)), content: String(content?.get(i)) };
        }
      }
    }
  }

  /** Merges fragments and drops old versions when the policy says so (see `CompactionPolicy`). */
  async compact(force = false): Promise<void> {
    // Not under a running read: a sync's scan may outlive the cleanup age of the files it reads.
    if (this.readers > 0 || !this.policy.due(force)) return;
    await this.queue.run(() => optimizeTable(this.table, this.policy));
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
