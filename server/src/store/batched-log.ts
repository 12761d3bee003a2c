import type { Connection, Table } from "@lancedb/lancedb";
import type { Schema } from "apache-arrow";
import { GroupCommit } from "./group-commit.ts";
import { WriteQueue } from "./write-queue.ts";

/**
 * An append-mostly LanceDB table. Appends that arrive while a commit is running are grouped into
 * the next commit (group commit): each caller still waits until its own row is durable.
 */
export class BatchedLog<Row extends Record<string, unknown>> {
  private readonly queue = new WriteQueue();
  private readonly appends = new GroupCommit<Row>(async (rows) => {
    await this.queue.run(() => this.table.add(rows));
    this.writesSinceCompaction += 1;
  });
  private writesSinceCompaction = 0;
  /**
   * Whether this process compacted the table yet: the first `compact()` always does, so what an
   * earlier process wrote without compacting (one stopped within a minute of its start, as often as
   * it restarts) is merged and its old versions cleaned, instead of piling up from start to start.
   */
  private compactedOnce = false;

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
    return this.appends.add(row);
  }

  /** Runs a write (update/delete) in order with the appends. */
  write<T>(task: (table: Table) => Promise<T>): Promise<T> {
    return this.queue.run(() => task(this.table));
  }

  compact(minWrites = 50): Promise<void> {
    if (this.compactedOnce && this.writesSinceCompaction < minWrites) return Promise.resolve();
    return this.queue.run(async () => {
      this.compactedOnce = true;
      this.writesSinceCompaction = 0;
      await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
    });
  }

  async idle(): Promise<void> {
    while (this.appends.busy) await new Promise((r) => setTimeout(r, 5));
    await this.queue.idle();
  }
}
