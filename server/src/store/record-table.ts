import type { Connection, Table } from "@lancedb/lancedb";
import { Field, Schema, Utf8 } from "apache-arrow";
import { WriteQueue } from "./write-queue.ts";

const recordSchema = new Schema([new Field("id", new Utf8(), false), new Field("data", new Utf8(), false)]);

/**
 * A small resource table (users, agents, keys …) kept whole in memory and written through to LanceDB.
 * Reads never touch disk; every write is one atomic LanceDB commit, serialised per table.
 */
export class RecordTable<T extends { id: string }> {
  private readonly rows = new Map<string, T>();
  private readonly queue = new WriteQueue();
  private writesSinceCompaction = 0;

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
    return this.queue.run(async () => {
      const data = rows.map((r) => ({ id: r.id, data: JSON.stringify(r) }));
      await this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
      this.writesSinceCompaction += 1;
    });
  }

  /** Inserts or replaces a record; memory changes only after the commit succeeded. */
  put(row: T): Promise<T> {
    return this.putMany([row]).then(() => row);
  }

  putMany(rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      const data = rows.map((r) => ({ id: r.id, data: JSON.stringify(r) }));
      await this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
      for (const r of rows) this.rows.set(r.id, r);
      this.writesSinceCompaction += 1;
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
        const data = rows.map((r) => ({ id: r.id, data: JSON.stringify(r) }));
        await this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
        for (const r of rows) this.rows.set(r.id, r);
        this.writesSinceCompaction += 1;
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
      this.writesSinceCompaction += 1;
    });
  }

  /** Merges small fragments left by single-row commits; cheap when nothing changed. */
  compact(minWrites = 20): Promise<void> {
    if (this.writesSinceCompaction < minWrites) return Promise.resolve();
    return this.queue.run(async () => {
      this.writesSinceCompaction = 0;
      await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
    });
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}
