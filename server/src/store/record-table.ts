import type { Connection, Table } from "@lancedb/lancedb";
import { Field, Schema, Utf8 } from "apache-arrow";
import { type ChangeFeed, singleProcessFeed } from "./change-feed.ts";
import { type Compactable, CompactionPolicy, optimizeTable } from "./maintenance.ts";
import { WriteQueue } from "./write-queue.ts";

const recordSchema = new Schema([new Field("id", new Utf8(), false), new Field("data", new Utf8(), false)]);

/**
 * A small resource table (users, agents, keys …) kept whole in memory and written through to LanceDB.
 * Reads never touch disk; every write is one atomic LanceDB commit, serialised per table. In shared
 * mode each commit is published on the change feed, and other replicas' commits are re-read from
 * LanceDB when the feed names them.
 */
export class RecordTable<T extends { id: string }> implements Compactable {
  private readonly rows = new Map<string, T>();
  private readonly queue = new WriteQueue();
  /** Bounds the versions on disk by commits and by bytes (a record can be large: an agent's instructions). */
  private readonly policy = new CompactionPolicy();
  /** Rows shown with `remember` whose commit (`persist`) has not landed: a reload keeps them. */
  private readonly remembered = new Set<string>();

  private constructor(
    readonly name: string,
    private readonly table: Table,
    private readonly feed: ChangeFeed,
  ) {}

  static async open<T extends { id: string }>(
    db: Connection,
    name: string,
    feed: ChangeFeed = singleProcessFeed,
  ): Promise<RecordTable<T>> {
    const names = await db.tableNames();
    const table = names.includes(name)
      ? await db.openTable(name)
      : await db.createEmptyTable(name, recordSchema, { mode: "create", existOk: true });
    const records = new RecordTable<T>(name, table, feed);
    for (const [id, row] of await records.read(null)) records.rows.set(id, row);
    feed.on(name, (ids) => records.refresh(ids));
    return records;
  }

  /** Rows as stored now: these ids, or all of them. */
  private read(ids: readonly string[] | null): Promise<Map<string, T>> {
    return readRecords<T>(this.table, ids);
  }

  /** Rows as LanceDB holds them now, whatever memory holds. */
  stored(ids: readonly string[]): Promise<Map<string, T>> {
    return this.read(ids);
  }

  /** Takes another replica's commit: these rows (or all) as LanceDB holds them now; gone rows go. */
  refresh(ids: readonly string[] | null): Promise<void> {
    const wanted = ids === null ? null : validIds(ids);
    if (wanted?.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      const stored = await this.read(wanted);
      for (const id of wanted ?? [...this.rows.keys()])
        if (!stored.has(id) && !this.remembered.has(id)) this.rows.delete(id);
      for (const [id, row] of stored) if (!this.remembered.has(id)) this.rows.set(id, row);
    });
  }

  get size(): number {
    return this.rows.size;
  }

  get(id: string): T | undefined {
    return this.rows.get(id);
  }

  all(): IterableIterator<T> {
    return this.rows.values();
  }

  filter(predicate: (row: T) => boolean): T[] {
    const out: T[] = [];
    for (const row of this.rows.values()) if (predicate(row)) out.push(row);
    return out;
  }

  find(predicate: (row: T) => boolean): T | undefined {
    for (const row of this.rows.values()) if (predicate(row)) return row;
    return undefined;
  }

  /** Shows rows to readers now; for writes journaled elsewhere and committed later with `persist`. */
  remember(rows: T[]): void {
    for (const r of rows) {
      this.rows.set(r.id, r);
      this.remembered.add(r.id);
    }
  }

  /**
   * Commits rows shown with `remember`, leaving memory alone where it moved on (possibly further).
   * A row with no remembered state pending here (a journal replayed after a crash, or a dead
   * replica's) replaces what memory holds for it, as a change read from the table would.
   */
  persist(rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      await this.write(rows);
      this.landed(rows);
    });
  }

  /**
   * `persist` for rows replayed from a journal, except those LanceDB holds a later state of (`older`
   * says whether a row predates the stored one): those stay as stored, and memory takes the stored
   * state. Returns the rows committed.
   */
  persistUnlessOlder(rows: T[], older: (row: T, stored: T) => boolean): Promise<T[]> {
    if (rows.length === 0) return Promise.resolve([]);
    return this.queue.run(async () => {
      const stored = await this.read(rows.map((r) => r.id));
      const newer = rows.filter((r) => {
        const current = stored.get(r.id);
        return current === undefined || !older(r, current);
      });
      const kept = new Set(newer.map((r) => r.id));
      for (const [id, row] of stored) if (!kept.has(id) && !this.remembered.has(id)) this.rows.set(id, row);
      if (newer.length > 0) await this.write(newer);
      this.landed(newer);
      return newer;
    });
  }

  /** Memory after `rows` landed: see `persist`. */
  private landed(rows: T[]): void {
    for (const r of rows) {
      if (!this.remembered.has(r.id)) this.rows.set(r.id, r);
      // Done once memory holds no newer state than what just landed.
      else if (JSON.stringify(this.rows.get(r.id)) === JSON.stringify(r)) this.remembered.delete(r.id);
    }
  }

  /** Inserts or replaces a record; memory changes only after the commit succeeded. */
  put(row: T): Promise<T> {
    return this.putMany([row]).then(() => row);
  }

  putMany(rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      await this.write(rows);
      for (const r of rows) this.rows.set(r.id, r);
    });
  }

  /** Appends records whose ids are new (fresh UUIDs): no join against the rows already stored. */
  insertMany(rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      const data = rows.map((r) => ({ id: r.id, data: JSON.stringify(r) }));
      await this.table.add(data);
      this.policy.wrote(data.reduce((n, d) => n + d.data.length, 0));
      for (const r of rows) this.rows.set(r.id, r);
      await this.published(rows.map((r) => r.id));
    });
  }

  /**
   * Check-and-write in one turn of the queue (and, in shared mode, under the table's fleet-wide
   * lock): `decide` sees the current state and returns the rows to write (or throws). Used for invariants such as unique emails under concurrent requests.
   */
  transact<R>(decide: () => { rows: T[]; result: R }): Promise<R> {
    // Shared mode: one replica at a time, having applied the others' commits, so the check holds fleet-wide.
    return this.feed.serialize(`table:${this.name}`, () =>
      this.queue.run(async () => {
        const { rows, result } = decide();
        if (rows.length > 0) {
          await this.write(rows);
          for (const r of rows) this.rows.set(r.id, r);
        }
        return result;
      }),
    );
  }

  delete(ids: string[]): Promise<void> {
    const valid = validIds(ids);
    if (valid.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      await this.table.delete(`id IN (${valid.map((id) => `'${id}'`).join(", ")})`);
      for (const id of valid) {
        this.rows.delete(id);
        this.remembered.delete(id);
      }
      this.policy.wrote(0);
      await this.published(valid);
    });
  }

  /** One commit of these rows (inserted or replaced); run inside the queue. */
  private async write(rows: T[]): Promise<void> {
    const data = rows.map((r) => ({ id: r.id, data: JSON.stringify(r) }));
    await this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
    this.policy.wrote(data.reduce((n, d) => n + d.data.length, 0));
    await this.published(rows.map((r) => r.id));
  }

  /** Other replicas learn of a commit (shared mode); inside the queue, so they learn in commit order. */
  private published(ids: string[]): Promise<void> {
    return this.feed.publish({ table: this.name, ids });
  }

  /** Merges small fragments left by single-row commits and drops old versions, as the policy says. */
  compact(force = false): Promise<void> {
    if (!this.policy.due(force)) return Promise.resolve();
    return this.queue.run(() => optimizeTable(this.table, this.policy));
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}

/**
 * The records (an `id` and a JSON `data` column) a table holds now: these ids, or all of them. For
 * other tables of that shape too (the messages).
 */
export async function readRecords<T>(table: Table, ids: readonly string[] | null): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  const batches = ids === null ? [null] : chunked(validIds(ids), 500);
  for (const batch of batches) {
    const query = table.query().select(["id", "data"]);
    if (batch) query.where(`id IN (${batch.map((id) => `'${id}'`).join(", ")})`);
    for (const row of await query.toArray()) out.set(String(row.id), JSON.parse(String(row.data)) as T);
  }
  return out;
}

/** Ids that may appear in a filter expression (every id Lore makes: UUIDs, hashes, fixed names). */
function validIds(ids: readonly string[]): string[] {
  return ids.filter((id) => /^[A-Za-z0-9_-]+$/.test(id));
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
