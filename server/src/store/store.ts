import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Connection, connect, Session } from "@lancedb/lancedb";
import { Field, Int32, Schema, Utf8 } from "apache-arrow";
import { BatchedLog } from "./batched-log.ts";
import { type ChangeFeed, singleProcessFeed } from "./change-feed.ts";
import { DataDirLock } from "./data-dir-lock.ts";
import { migrations } from "./migrations.ts";
import { PRIVATE_DIR_MODE } from "./permissions.ts";
import { RecordTable } from "./record-table.ts";
import type {
  AgentRecord,
  ApiKeyRecord,
  ConversationRecord,
  DataSourceRecord,
  DocumentRecord,
  InvitationRecord,
  MembershipRecord,
  MetaRecord,
  SyncRunRecord,
  UsedTokenRecord,
  UserRecord,
  WorkspaceRecord,
} from "./records.ts";
import { TrackedTables } from "./tracked-tables.ts";

export type MessageRow = {
  id: string;
  conversation_id: string;
  agent_id: string;
  seq: number;
  data: string;
};

const messageSchema = new Schema([
  new Field("id", new Utf8(), false),
  new Field("conversation_id", new Utf8(), false),
  new Field("agent_id", new Utf8(), false),
  new Field("seq", new Int32(), false),
  new Field("data", new Utf8(), false),
]);

/** Every table Lore keeps, in one LanceDB database under `<dataDir>/lance`. */
export class Store {
  private constructor(
    readonly db: Connection,
    readonly dataDir: string,
    /** Where the tables live (`<dataDir>/lance` unless shared storage says otherwise). */
    readonly storageUri: string,
    readonly meta: RecordTable<MetaRecord>,
    readonly users: RecordTable<UserRecord>,
    readonly workspaces: RecordTable<WorkspaceRecord>,
    readonly memberships: RecordTable<MembershipRecord>,
    readonly agents: RecordTable<AgentRecord>,
    readonly apiKeys: RecordTable<ApiKeyRecord>,
    readonly dataSources: RecordTable<DataSourceRecord>,
    readonly documents: RecordTable<DocumentRecord>,
    readonly syncRuns: RecordTable<SyncRunRecord>,
    readonly conversations: RecordTable<ConversationRecord>,
    readonly messages: BatchedLog<MessageRow>,
    readonly usedTokens: RecordTable<UsedTokenRecord>,
    readonly invitations: RecordTable<InvitationRecord>,
    private readonly lock: DataDirLock,
    private readonly session: Session,
    /** How replicas learn of each other's commits (shared mode); one process: nothing. */
    readonly feed: ChangeFeed,
    private readonly tracked: TrackedTables = new TrackedTables(),
  ) {}

  /**
   * Points every open table at what is on disk (after the data directory vanished and came back: a
   * commit made meanwhile went to a directory made in its place, and must not be built on).
   */
  reopenTables(): Promise<void> {
    return this.tracked.reopen();
  }

  /** A further record table in this database, on the same change feed. */
  openRecords<T extends { id: string }>(name: string): Promise<RecordTable<T>> {
    return RecordTable.open<T>(this.db, name, this.feed);
  }

  /**
   * Opens (or creates) the store. LanceDB's caches default to 6 GB (index) + 1 GB (metadata) per
   * process; Lore bounds them (`cache`, MB) so memory stays flat however many versions commits make.
   * The tables live at `shared.storageUri` (default `<dataDir>/lance`); with a shared feed, reads see
   * other replicas' commits at once (`readConsistencyInterval: 0`). The lock guards this replica's
   * own data directory (journal, search-index snapshot), never the shared storage.
   */
  static async open(
    dataDir: string,
    cache: { indexMb: number; metadataMb: number } = { indexMb: 256, metadataMb: 64 },
    shared: { storageUri?: string; feed?: ChangeFeed } = {},
  ): Promise<Store> {
    const feed = shared.feed ?? singleProcessFeed;
    mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const lock = DataDirLock.acquire(dataDir);
    try {
      const mb = (n: number) => BigInt(Math.round(n * 1024 * 1024));
      const session = new Session(mb(cache.indexMb), mb(cache.metadataMb));
      // In the options: connect(uri, options, session) ignores a third argument (LanceDB 0.39), which
      // left the caches at their 6 GB + 1 GB defaults and RSS growing with every commit.
      const tracked = new TrackedTables();
      const storageUri = shared.storageUri ?? join(dataDir, "lance");
      const db = tracked.track(
        await connect(storageUri, {
          session,
          ...(feed.shared ? { readConsistencyInterval: 0 } : {}),
        }),
      );
      const [
        meta,
        users,
        workspaces,
        memberships,
        agents,
        apiKeys,
        dataSources,
        documents,
        syncRuns,
        conversations,
      ] = await Promise.all([
        named("meta", RecordTable.open<MetaRecord>(db, "meta", feed)),
        named("users", RecordTable.open<UserRecord>(db, "users", feed)),
        named("workspaces", RecordTable.open<WorkspaceRecord>(db, "workspaces", feed)),
        named("memberships", RecordTable.open<MembershipRecord>(db, "memberships", feed)),
        named("agents", RecordTable.open<AgentRecord>(db, "agents", feed)),
        named("api_keys", RecordTable.open<ApiKeyRecord>(db, "api_keys", feed)),
        named("data_sources", RecordTable.open<DataSourceRecord>(db, "data_sources", feed)),
        named("documents", RecordTable.open<DocumentRecord>(db, "documents", feed)),
        named("sync_runs", RecordTable.open<SyncRunRecord>(db, "sync_runs", feed)),
        named("conversations", RecordTable.open<ConversationRecord>(db, "conversations", feed)),
      ]);
      const messages = await named("messages", BatchedLog.open<MessageRow>(db, "messages", messageSchema));
      const usedTokens = await named(
        "used_tokens",
        RecordTable.open<UsedTokenRecord>(db, "used_tokens", feed),
      );
      const invitations = await named(
        "invitations",
        RecordTable.open<InvitationRecord>(db, "invitations", feed),
      );
      const store = new Store(
        db,
        dataDir,
        storageUri,
        meta,
        users,
        workspaces,
        memberships,
        agents,
        apiKeys,
        dataSources,
        documents,
        syncRuns,
        conversations,
        messages,
        usedTokens,
        invitations,
        lock,
        session,
        feed,
        tracked,
      );
      await store.migrate();
      return store;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /** What LanceDB's index and metadata caches hold now (bytes bounded by `cache`). */
  cacheStats(): { bytes: number; items: number } {
    return { bytes: Number(this.session.sizeBytes()), items: this.session.approxNumItems() };
  }

  get schemaVersion(): number {
    return this.meta.get("schema")?.schemaVersion ?? 0;
  }

  /** Forward-only migrations, each recorded once it has run. */
  private async migrate(): Promise<void> {
    for (let v = this.schemaVersion; v < migrations.length; v++) {
      const step = migrations[v];
      if (step) await step(this);
      await this.meta.put({ id: "schema", schemaVersion: v + 1 });
    }
  }

  private recordTables(): Array<RecordTable<{ id: string }>> {
    return [
      this.meta,
      this.users,
      this.workspaces,
      this.memberships,
      this.agents,
      this.apiKeys,
      this.dataSources,
      this.documents,
      this.syncRuns,
      this.conversations,
      this.usedTokens,
      this.invitations,
    ] as unknown as Array<RecordTable<{ id: string }>>;
  }

  /** Merges small fragments of every table; run in the background. `stopping`: go on to no further table. */
  async compact(stopping: () => boolean = () => false): Promise<void> {
    for (const table of this.recordTables()) {
      if (stopping()) return;
      await table.compact();
    }
    if (!stopping()) await this.messages.compact();
  }

  async idle(): Promise<void> {
    await Promise.all(this.recordTables().map((t) => t.idle()));
    await this.messages.idle();
  }

  async close(): Promise<void> {
    await this.idle();
    this.db.close();
    this.lock.release();
  }
}

/**
 * A table that cannot be opened or read at start names itself and says what to do, instead of one raw
 * line from LanceDB naming no table.
 */
export async function named<T>(table: string, opening: Promise<T>): Promise<T> {
  try {
    return await opening;
  } catch (error) {
    throw new Error(
      `The table "${table}" cannot be read (${error instanceof Error ? error.message : String(error)}). Run \`lore doctor\` for the state of every table; to repair, restore a backup (\`lore restore --from DIR\`, docs/operations.md "Backups").`,
    );
  }
}
