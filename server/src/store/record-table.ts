import type { Connection, Table } from "@lancedb/lancedb";
import { Field, Schema, Utf8 } from "apache-arrow";
import { type Compactable, CompactionPolicy, optimizeTable } from "./maintenance.ts";
import { WriteQueue } from "./write-queue.ts";

const recordSchema = new Schema([new Field("id", new Utf8(), false), new Field("data", new Utf8(), false)]);

/**
 * A small resource table (users, agents, keys …) kept whole in memory and written through to LanceDB.
 * Reads never touch disk; every write is one atomic LanceDB commit, serialised per table.
 */
export class RecordTable<T extends { id: string }> implements Compactable {
  private readonly rows = new Map<string, T>();
  private readonly queue = new WriteQueue();
  /** Bounds the versions on disk by commits and by bytes (a record can be large: an agent's instructions). */
  private readonly policy = new CompactionPolicy();

  private constructor(
    readonly name: string,
    private readonly table: Table,
  ) {}

  static async open<T extends { id: string }>(db: Connection, name: string): Promise<RecordTable<T>> {
    const names = await db.tableNames();
    const table = names.includes(name)
      ? await db.openTable(name)
      : await db.createEmptyTable(name, recordSchema, { mode: "create", existOk: true });
    const records = new RecordTable<T>(name, table);
    const rows = await table.query().select(["id", "data"]).toArray();
    for (const row of rows) {
      records.rows.set(String(row.id), JSON.parse(String(row.data)) as T);
    }
    return records;
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
    for (const r of rows) this.rows.set(r.id, r);
  }

  /** Commits rows without touching memory (which `remember` already moved on, possibly further). */
  persist(rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.queue.run(() => this.write(rows));
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
    });
  }

  /**
   * Check-and-write in one turn of the queue: `decide` sees the current state and returns the rows
   * to write (or throws). Used for invariants such as unique emails under concurrent requests.
   */
  transact<R>(decide: () => { rows: T[]; result: R }): Promise<R> {
    return this.queue.run(async () => {
      const { rows, result } = decide();
      if (rows.length > 0) {
        await this.write(rows);
        for (const r of rows) this.rows.set(r.id, r);
      }
      return result;
    });
  }

  delete(ids: string[]): Promise<void> {
    const valid = ids.filter((id) => /^[A-Za-z0-9_-]+$/.test(id));
    if (valid.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      await this.table.delete(`id IN (${valid.map((id) => `'${id}'`).join(", ")})`);
      for (const id of valid) this.rows.delete(id);
      this.policy.wrote(0);
    });
  }

  /** One commit of these rows (inserted or replaced); run inside the queue. */
  private async write(rows: T[]): Promise<void> {
    const data = rows.map((r) => ({ id: r.id, data: JSON.stringify(r) }));
    await this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
    this.policy.wrote(data.reduce((n, d) => n + d.data.length, 0));
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
