import type { Connection, Table } from "@lancedb/lancedb";
import type { Schema } from "apache-arrow";
import { WriteQueue } from "./write-queue.ts";

/**
 * An append-mostly LanceDB table. Appends that arrive while a commit is running are grouped into
 * the next commit (group commit): each caller still waits until its own row is durable.
 */
export class BatchedLog<Row extends Record<string, unknown>> {
  private pending: Array<{ row: Row; done: (error?: unknown) => void }> = [];
  private flushing = false;
  private readonly queue = new WriteQueue();
  private writesSinceCompaction = 0;

  private constructor(
    readonly name: string,
    readonly table: Table,
  ) {}

  static async open<Row extends Record<string, unknown>>(
    db: Connection,
    name: string,
    schema: Schema,
  ): Promise<BatchedLog<Row>> {
    const names = await db.tableNames();
    const table = names.includes(name)
      ? await db.openTable(name)
      : await db.createEmptyTable(name, schema, { mode: "create", existOk: true });
    return new BatchedLog<Row>(name, table);
  }

  append(row: Row): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row, done: (error) => (error ? reject(error) : resolve()) });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.queue.run(() => this.table.add(batch.map((b) => b.row)));
        this.writesSinceCompaction += 1;
        for (const b of batch) b.done();
      } catch (error) {
        for (const b of batch) b.done(error);
      }
    }
    this.flushing = false;
  }

  /** Runs a write (update/delete) in order with the appends. */
  write<T>(task: (table: Table) => Promise<T>): Promise<T> {
    return this.queue.run(() => task(this.table));
  }

  compact(minWrites = 50): Promise<void> {
    if (this.writesSinceCompaction < minWrites) return Promise.resolve();
    return this.queue.run(async () => {
      this.writesSinceCompaction = 0;
      await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
    });
  }

  async idle(): Promise<void> {
    while (this.flushing || this.pending.length > 0) await new Promise((r) => setTimeout(r, 5));
    await this.queue.idle();
  }
}
