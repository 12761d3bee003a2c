import type { Connection, Table } from "@lancedb/lancedb";

interface Tracked {
  name: string;
  current: Table;
}

/**
 * Every table handle opened through a connection, so all can be opened again from what is on disk.
 * A handle caches the version it last committed or read (one process reads no one else's commits):
 * after the data directory vanished and came back, a version a handle committed into a directory
 * made in its place is gone, and its next commit would build on it (a table that no longer opens).
 * The handles given out stay the same objects: each forwards to the table opened last.
 */
export class TrackedTables {
  private readonly tables: Tracked[] = [];
  private db: Connection | null = null;

  /** The connection, with each table it opens or creates tracked here. */
  track(db: Connection): Connection {
    this.db = db;
    const tables = this.tables;
    return new Proxy(db, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== "function") return value;
        if (property !== "openTable" && property !== "createEmptyTable" && property !== "createTable")
          return value.bind(target);
        return async (...args: unknown[]) => {
          const entry: Tracked = {
            name: String(args[0]),
            current: (await value.apply(target, args)) as Table,
          };
          tables.push(entry);
          return forwarding(entry);
        };
      },
    });
  }

  /** Every tracked table is opened again: its handle reads the latest version on disk. */
  async reopen(): Promise<void> {
    const db = this.db;
    if (!db) return;
    for (const entry of this.tables) entry.current = await db.openTable(entry.name);
  }
}

/** A table handle that forwards every call to the entry's current table. */
function forwarding(entry: Tracked): Table {
  return new Proxy(entry.current, {
    get(_target, property) {
      const value: unknown = Reflect.get(entry.current, property, entry.current);
      return typeof value === "function" ? value.bind(entry.current) : value;
    },
  });
}
