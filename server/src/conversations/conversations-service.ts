import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Table } from "@lancedb/lancedb";
import type {
  Conversation,
  ConversationDetail,
  ConversationListQuery,
  FeedbackReason,
  Handoff,
  Message,
} from "@lore/shared";
import { AppError, notFound } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { Logger } from "../log/logger.ts";
import { type FragmentRead, readByFragment } from "../store/fragments.ts";
import { GroupCommit } from "../store/group-commit.ts";
import { Journal } from "../store/journal.ts";
import { readRecords } from "../store/record-table.ts";
import type { AgentRecord, ConversationRecord, MessageRecord } from "../store/records.ts";
import type { MessageRow, Store } from "../store/store.ts";
import { countMessages, type ReviewCounts, ReviewIndex, upgradeMessage } from "./review-index.ts";

const HISTORY_CACHE_SIZE = 5_000;
/** A tombstone whose delete failed is forgotten after this long (a completed delete drops its own at once). */
const TOMBSTONE_MS = 60 * 60_000;
/** Conversations removed in one LanceDB delete at most. */
const REMOVE_BATCH = 500;
const UUID = /^[0-9a-f-]{36}$/i;
const MESSAGE_COLUMNS = ["id", "conversation_id", "agent_id", "seq", "data"];

/** What the message table holds when a query cannot read it whole: the readable fragments' rows. */
interface ReadableMessages extends FragmentRead {
  /** The table version this was read at: a later commit reads it again. */
  version: number;
  /** Conversations with rows in a damaged data file (where that file's ids could still be read). */
  conversations: Set<string>;
  /** Whether a damaged file's rows could not even say their conversation. */
  unknownRows: boolean;
}

/** 500 for one conversation whose stored messages cannot all be read; every other one reads as before. */
function storageDamaged(conversationId?: string): AppError {
  return new AppError(
    "internal_error",
    "This conversation's messages cannot be read: a data file of the message table is damaged. Other conversations are not affected; run `lore doctor`, and restore a backup to repair it.",
    { reason: "storage_damaged", table: "messages", ...(conversationId ? { conversationId } : {}) },
  );
}

/** A conversation's contact requests (kept by the handoffs service), for review lists. */
export interface HandoffCounts {
  handoffs: number;
  openHandoffs: number;
}
const NO_HANDOFFS: HandoffCounts = Object.freeze({ handoffs: 0, openHandoffs: 0 });

export function toConversation(
  c: ConversationRecord,
  counts: ReviewCounts,
  handoffs: HandoffCounts = NO_HANDOFFS,
): Conversation {
  return {
    id: c.id,
    title: c.title,
    messageCount: c.messageCount,
    pageUrl: c.pageUrl ?? null,
    device: c.device ?? null,
    status: c.status ?? "open",
    channel: c.channel,
    resolvedAt: c.resolvedAt ?? null,
    upvotes: counts.upvotes,
    downvotes: counts.downvotes,
    unanswered: counts.unanswered,
    uncertain: counts.uncertain,
    handoffs: handoffs.handoffs,
    openHandoffs: handoffs.openHandoffs,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function toMessage(m: MessageRecord): Message {
  const { agentId: _a, workspaceId: _w, revision: _r, ...message } = m;
  return message;
}

/** A visitor question as the corrections' examples list it. */
export interface RecentQuestion {
  question: string;
  conversationId: string;
  messageId: string;
  askedAt: string;
  times: number;
}

/** One journal entry: a conversation's new state, a message's new state, or both. */
type Entry = { conversation?: ConversationRecord; message?: MessageRecord; seq?: number };

/**
 * Conversations (in memory, written through) and their messages (a LanceDB table). Writes go to a
 * journal first, so an answer is stored the moment it is complete — a killed process replays the
 * journal on start — and reach LanceDB in batches, off the answer's path.
 */
export class ConversationsService {
  // Recent conversations' messages, so follow-ups don't scan the message table.
  private readonly recent = new Map<string, MessageRecord[]>();
  // Messages journaled but not yet in LanceDB, by conversation.
  private readonly unflushed = new Map<string, Map<string, MessageRecord>>();
  // Rated and fallback answers per conversation, for review queues.
  private readonly review = new ReviewIndex((agentId) => this.agentMessages(agentId));
  // Set once a query of the message table failed on a damaged data file (see `readable`).
  private salvaged: ReadableMessages | null = null;
  private reportedDamage = "";

  private constructor(
    private readonly store: Store,
    private journal: Journal<Entry> | null,
    private readonly events: EventBus | null,
    private readonly logger: Logger | null = null,
  ) {}

  /**
   * `journalDir` defaults to `<dataDir>/journal`; in shared mode on a shared path it sits in the
   * shared storage, so the fleet can replay the journal of a replica that died (`replayJournal`).
   */
  static async open(
    store: Store,
    logger?: Logger,
    events?: EventBus,
    journalDir = join(store.dataDir, "journal"),
  ): Promise<ConversationsService> {
    const service = new ConversationsService(store, null, events ?? null, logger ?? null);
    // Shared mode: another replica's answers and ratings, once in LanceDB, replace the cached history
    // (the record table itself re-reads the conversation rows first).
    store.feed.on("conversations", async (ids) => service.forgetCached(ids));
    service.journal = await Journal.open<Entry>(
      join(journalDir, "conversations"),
      (e, replayed) => service.applyEntries(e, replayed),
      {
        onError: (error) =>
          logger?.error("conversation journal flush failed; will retry", { error: String(error) }),
      },
    );
    return service;
  }

  /**
   * Moves what another (dead) replica journaled into LanceDB; the entries are idempotent upserts,
   * except states older than LanceDB's (see `applyEntries`). Its conversations' cached messages here
   * predate them, so they go.
   */
  async replayJournal(journalDir: string): Promise<void> {
    const journal = await Journal.open<Entry>(join(journalDir, "conversations"), async (entries) => {
      await this.applyEntries(entries, true);
      const ids = entries.map((e) => e.conversation?.id ?? e.message?.conversationId);
      this.forgetCached([...new Set(ids.filter((id) => id !== undefined))]);
    });
    await journal.close();
  }

  private forgetCached(conversationIds: readonly string[] | null): void {
    if (conversationIds === null) {
      this.recent.clear();
      for (const agentId of new Set([...this.store.conversations.all()].map((c) => c.agentId)))
        this.review.forgetAgent(agentId);
      return;
    }
    for (const id of conversationIds) {
      this.recent.delete(id);
      const agentId = this.store.conversations.get(id)?.agentId;
      if (agentId) this.review.forgetAgent(agentId);
    }
  }

  private write(entry: Entry): void {
    if (!this.journal) throw new Error("journal not open");
    this.journal.write(entry);
  }

  /**
   * Idempotent: the last state of each conversation and message, upserted. A replayed journal (a
   * crash's, or a dead replica's) may be older than what another replica stored since: a state with
   * a lower revision than the stored one is left out, so a replay never sets a record back.
   */
  private async applyEntries(entries: Entry[], replayed = false): Promise<void> {
    const conversations = new Map<string, ConversationRecord>();
    const messages = new Map<string, { message: MessageRecord; seq: number }>();
    // Conversations these entries create (revision 1; or without revisions, as journals before them).
    const created = new Set<string>();
    for (const e of entries) {
      if (e.conversation) conversations.set(e.conversation.id, e.conversation);
      if (e.conversation && (e.conversation.revision ?? 1) === 1) created.add(e.conversation.id);
      if (e.message)
        messages.set(e.message.id, {
          message: e.message,
          seq: e.seq ?? messages.get(e.message.id)?.seq ?? 0,
        });
    }
    if (replayed) await this.againstStorage(conversations, messages, created);
    // A conversation deleted meanwhile stays deleted.
    const live = [...conversations.values()].filter((c) => !this.deleted.has(c.id));
    const wanted = [...messages.values()].filter(({ message }) => !this.deleted.has(message.conversationId));
    const rows =
      wanted.length === 0
        ? []
        : await this.store.messages.write(async (t) => {
            // Read in the write's turn: no flush of this process lands between the two.
            const stored = replayed
              ? await this.storedRevisions(
                  t,
                  wanted.map(({ message }) => message.id),
                )
              : null;
            const kept = wanted
              .filter(({ message }) => revisionOf(message) >= (stored?.get(message.id) ?? 0))
              .map(({ message, seq }) => ({
                id: message.id,
                conversation_id: message.conversationId,
                agent_id: message.agentId,
                seq,
                data: JSON.stringify(message),
              }));
            if (kept.length > 0) await this.upsertMessages(t, kept);
            return kept;
          });
    // After the messages: the conversations' commit is what tells other replicas to read them again;
    // a message changed alone (a rating) names its conversation too.
    const committed = replayed
      ? await this.store.conversations.persistUnlessOlder(
          live,
          (row, stored) => revisionOf(row) < revisionOf(stored),
        )
      : await this.store.conversations.persist(live).then(() => live);
    const persisted = new Set(committed.map((c) => c.id));
    const alone = new Set(rows.map((r) => r.conversation_id).filter((id) => !persisted.has(id)));
    await this.store.feed.publish({ table: "conversations", ids: [...alone] });
    for (const { message } of messages.values()) {
      const pending = this.unflushed.get(message.conversationId);
      // Entries come back parsed from the journal file, never the tracked object itself: compare
      // states, so a message rated meanwhile stays pending until its new state lands.
      const tracked = pending?.get(message.id);
      if (tracked && JSON.stringify(tracked) === JSON.stringify(message)) pending?.delete(message.id);
      if (pending?.size === 0) this.unflushed.delete(message.conversationId);
    }
  }

  /**
   * A replay's entries against LanceDB now (changes the maps given). A conversation LanceDB lacks
   * that the entries do not create was deleted since: it and its messages stay gone. One that went
   * on elsewhere (a higher stored revision) stays as stored, except that it counts the replayed
   * messages LanceDB lacks (the replica that went on never saw them), placed after its own: the
   * stored state, one revision on.
   */
  private async againstStorage(
    conversations: Map<string, ConversationRecord>,
    messages: Map<string, { message: MessageRecord; seq: number }>,
    created: ReadonlySet<string>,
  ): Promise<void> {
    const ids = new Set(conversations.keys());
    for (const { message } of messages.values()) ids.add(message.conversationId);
    const stored = await this.store.conversations.stored([...ids]);
    for (const id of ids) if (!stored.has(id) && !created.has(id)) conversations.delete(id);
    for (const [id, { message }] of messages)
      if (!conversations.has(message.conversationId) && !stored.has(message.conversationId))
        messages.delete(id);
    const wentOn = new Map<string, ConversationRecord>();
    for (const c of conversations.values()) {
      const current = stored.get(c.id);
      if (current && revisionOf(c) < revisionOf(current)) wentOn.set(c.id, current);
    }
    if (wentOn.size === 0) return;
    const theirs = [...messages.values()].filter(({ message }) => wentOn.has(message.conversationId));
    const known = await this.storedRevisions(
      this.store.messages.table,
      theirs.map(({ message }) => message.id),
    );
    const unseen = theirs.filter(({ message }) => !known.has(message.id)).sort((a, b) => a.seq - b.seq);
    for (const [id, current] of wentOn) {
      const added = unseen.filter(({ message }) => message.conversationId === id);
      if (added.length === 0) continue;
      for (const [i, entry] of added.entries()) entry.seq = current.messageCount + i;
      // ISO times: the latest sorts last.
      const times = [current.updatedAt, ...added.map(({ message }) => message.createdAt)].sort();
      // As `append`: a new question opens a resolved conversation.
      const reopen = current.status === "resolved" && added.some(({ message }) => message.role === "user");
      conversations.set(id, {
        ...current,
        messageCount: current.messageCount + added.length,
        updatedAt: times.at(-1) ?? current.updatedAt,
        revision: revisionOf(current) + 1,
        ...(reopen ? { status: "open" as const, resolvedAt: null } : {}),
      });
    }
  }

  // Conversations being deleted and since when (insertion order is deletion order, so expiry prunes
  // the head): from `remove` on, nothing is written for them and journaled writes are not applied.
  private readonly deleted = new Map<string, number>();
  // Conversation deletes that arrive while one runs share the next (one message-table delete).
  private readonly removals = new GroupCommit<string>((ids) => this.removeNow(ids), REMOVE_BATCH);

  /** Messages journaled but not yet in LanceDB (0 once `flush` resolves and nothing new came). */
  get unflushedCount(): number {
    let n = 0;
    for (const pending of this.unflushed.values()) n += pending.size;
    return n;
  }

  /**
   * `get` for a conversation another replica may have moved on: in shared mode, one unknown here (or
   * any, while the change feed is down or catching up) is read from the shared table first, so a
   * follow-up never meets a 404 or an old history because a notice was lost or late.
   */
  async load(agentId: string, conversationId: string): Promise<ConversationRecord> {
    const feed = this.store.feed;
    const known = this.store.conversations.get(conversationId) !== undefined;
    const mine = this.unflushed.has(conversationId);
    if (feed.shared && (!known || !feed.live) && !mine && !this.deleted.has(conversationId)) {
      await this.store.conversations.refresh([conversationId]);
      this.forgetCached([conversationId]);
    }
    return this.get(agentId, conversationId);
  }

  get(agentId: string, conversationId: string): ConversationRecord {
    const conversation = this.store.conversations.get(conversationId);
    if (!conversation || conversation.agentId !== agentId) throw notFound("conversation", conversationId);
    return conversation;
  }

  /** The widget visitor a conversation belongs to (null for API conversations, undefined when there is none). */
  visitorOf(conversationId: string): string | null | undefined {
    return this.store.conversations.get(conversationId)?.visitorId;
  }

  listForAgent(agentId: string): ConversationRecord[] {
    return this.store.conversations
      .filter((c) => c.agentId === agentId)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id.localeCompare(a.id));
  }

  /** An agent's conversations, newest activity first, with their review counts and only those the filters keep. */
  async listFiltered(
    agentId: string,
    filters: Omit<ConversationListQuery, "page" | "page_size">,
    handoffsOf: (conversationId: string) => HandoffCounts = () => NO_HANDOFFS,
  ): Promise<Conversation[]> {
    const countsOf = await this.review.countsFor(agentId);
    const text = filters.q?.trim().toLowerCase();
    const matching = text ? await this.conversationsMentioning(agentId, text) : null;
    const out: Conversation[] = [];
    for (const record of this.listForAgent(agentId)) {
      const counts = countsOf(record.id);
      if (filters.feedback === "up" && counts.upvotes === 0) continue;
      if (filters.feedback === "down" && counts.downvotes === 0) continue;
      if (filters.unanswered === true && counts.unanswered === 0) continue;
      if (filters.unanswered === false && counts.unanswered > 0) continue;
      if (filters.outcome === "fallback" && counts.unanswered === 0) continue;
      if (filters.outcome === "uncertain" && counts.uncertain === 0) continue;
      // Answered: nothing in it was the fallback or given with a doubt.
      if (filters.outcome === "answered" && (counts.unanswered > 0 || counts.uncertain > 0)) continue;
      if (filters.status && (record.status ?? "open") !== filters.status) continue;
      // The owner's own Try-it questions are not visitors': out of the queue unless asked for.
      if (record.channel === "console" && filters.includeConsole !== true) continue;
      if (matching && !matching.has(record.id)) continue;
      const handoffs = handoffsOf(record.id);
      if (filters.handoff === "any" && handoffs.handoffs === 0) continue;
      if (filters.handoff === "open" && handoffs.openHandoffs === 0) continue;
      if (filters.handoff === "resolved" && (handoffs.handoffs === 0 || handoffs.openHandoffs > 0)) continue;
      out.push(toConversation(record, counts, handoffs));
    }
    return out;
  }

  /** A conversation with its messages, as the transcript route returns it. */
  async transcript(
    conversation: ConversationRecord,
    handoffRequests: Handoff[] = [],
  ): Promise<ConversationDetail> {
    const messages = await this.messages(conversation.id);
    const handoffs = {
      handoffs: handoffRequests.length,
      openHandoffs: handoffRequests.filter((h) => h.status === "open").length,
    };
    return {
      ...toConversation(conversation, countMessages(messages), handoffs),
      messages: messages.map(toMessage),
      handoffRequests,
    };
  }

  /**
   * An agent's visitors' questions, newest first, one entry per distinct wording (case and spacing
   * aside) with how often it was asked; Try it questions left out. At most `max` wordings.
   */
  async recentQuestions(agentId: string, max: number): Promise<RecentQuestion[]> {
    const asked = [...(await this.agentMessages(agentId))]
      .filter(
        (m) => m.role === "user" && this.store.conversations.get(m.conversationId)?.channel !== "console",
      )
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
    const byText = new Map<string, RecentQuestion>();
    for (const m of asked) {
      const key = m.content.trim().toLowerCase().replace(/\s+/g, " ");
      const known = byText.get(key);
      if (known) known.times++;
      else if (byText.size < max)
        byText.set(key, {
          question: m.content.trim(),
          conversationId: m.conversationId,
          messageId: m.id,
          askedAt: m.createdAt,
          times: 1,
        });
    }
    return [...byText.values()];
  }

  private async conversationsMentioning(agentId: string, lowerText: string): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const m of await this.agentMessages(agentId)) {
      if (m.content.toLowerCase().includes(lowerText)) ids.add(m.conversationId);
    }
    return ids;
  }

  /** Every stored message of an agent, latest state (one scan of the message table plus the journal). */
  private async agentMessages(agentId: string): Promise<Iterable<MessageRecord>> {
    if (!UUID.test(agentId)) return [];
    // Taken before the scan: a flush that lands during it drops messages from `unflushed` that the
    // scan's snapshot may not hold yet.
    const before = this.unflushedOf(agentId);
    const rows = await this.messageRows(`agent_id = '${agentId}'`, (r) => r.agent_id === agentId);
    const byId = new Map<string, MessageRecord>();
    for (const r of rows) {
      const message = this.parse(String(r.data));
      if (revisionOf(message) >= revisionOf(byId.get(message.id) ?? {})) byId.set(message.id, message);
    }
    for (const message of [...before, ...this.unflushedOf(agentId)]) byId.set(message.id, message);
    // With a damaged table, a deleted conversation's rows may outlive it (see `deleteMessages`).
    const gone = (id: string) => this.salvaged !== null && this.store.conversations.get(id) === undefined;
    return [...byId.values()].filter((m) => !this.deleted.has(m.conversationId) && !gone(m.conversationId));
  }

  /**
   * Deletes message rows. A delete scans every row, so a damaged data file fails it: then the rows
   * stay (readers skip rows of conversations that no longer exist) and the conversations still go.
   */
  private async deleteMessages(filter: string): Promise<void> {
    await this.store.messages.write(async (t) => {
      try {
        await t.delete(filter);
      } catch (error) {
        await this.readable(error);
      }
    });
  }

  /**
   * Inserts or replaces message rows. A table with a damaged data file fails the merge (its join reads
   * every row's id): the rows are appended instead, and readers take a message's highest revision.
   */
  private async upsertMessages(t: Table, rows: MessageRow[]): Promise<void> {
    try {
      await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
    } catch (error) {
      await this.readable(error);
      await t.add(rows);
    }
  }

  /** The revisions LanceDB holds for these messages (absent: not stored), from the readable rows when damaged. */
  private async storedRevisions(table: Table, ids: string[]): Promise<Map<string, number>> {
    const wanted = ids.filter((id) => UUID.test(id));
    let stored: MessageRecord[];
    try {
      stored = [...(await readRecords<MessageRecord>(table, wanted)).values()];
    } catch (error) {
      const set = new Set(wanted);
      const rows = (await this.readable(error)).rows.filter((r) => set.has(String(r.id)));
      stored = rows.map((r) => JSON.parse(String(r.data)) as MessageRecord);
    }
    const out = new Map<string, number>();
    for (const m of stored) out.set(m.id, Math.max(out.get(m.id) ?? 0, revisionOf(m)));
    return out;
  }

  /**
   * Rows of the message table: a query with `filter`; when the table cannot be read whole (a damaged
   * data file fails every scan, whatever the filter), the readable fragments' rows that `keep` keeps.
   */
  private async messageRows(
    filter: string,
    keep: (row: Record<string, unknown>) => boolean,
  ): Promise<Array<Record<string, unknown>>> {
    try {
      const rows = await this.store.messages.table.query().where(filter).select(MESSAGE_COLUMNS).toArray();
      return rows as Array<Record<string, unknown>>;
    } catch (error) {
      return (await this.readable(error)).rows.filter(keep);
    }
  }

  /**
   * The message table read fragment by fragment after `cause` (a failed query), once per table
   * version. Logs an error naming the damaged files once. Rethrows `cause` when every fragment reads
   * (the failure was not a damaged file).
   */
  private async readable(cause: unknown): Promise<ReadableMessages> {
    const table = this.store.messages.table;
    const version = await table.version();
    if (this.salvaged?.version === version) return this.salvaged;
    const tableDir = join(this.store.storageUri, `${this.store.messages.name}.lance`);
    const read = await readByFragment(table, MESSAGE_COLUMNS, { keys: ["conversation_id"], tableDir });
    if (read.damaged.length === 0) throw cause;
    const conversations = new Set<string>();
    for (const d of read.damaged)
      for (const key of d.keys ?? []) conversations.add(String(key.conversation_id));
    this.salvaged = {
      ...read,
      version,
      conversations,
      unknownRows: read.damaged.some((d) => d.keys === null),
    };
    const files = read.damaged.map((d) => d.file ?? `fragment ${d.fragment}`).join(", ");
    if (files !== this.reportedDamage) {
      this.reportedDamage = files;
      this.logger?.error(
        "the messages table has a damaged data file: its conversations answer 500 storage_damaged, every other one is served; run `lore doctor`, and restore a backup to repair it",
        {
          table: this.store.messages.name,
          files: read.damaged.map((d) => d.file ?? `fragment ${d.fragment}`),
          rows: read.damaged.reduce((n, d) => n + d.rows, 0),
          error: read.damaged[0]?.error,
        },
      );
    }
    return this.salvaged;
  }

  /**
   * Whether a conversation lost messages to a damaged data file: it had rows there, or (when that
   * file cannot say whose rows it held) fewer of its messages read than its record counts.
   */
  private isDamaged(conversationId: string, messagesRead: number): boolean {
    const salvaged = this.salvaged;
    if (!salvaged) return false;
    if (salvaged.conversations.has(conversationId)) return true;
    const record = this.store.conversations.get(conversationId);
    return salvaged.unknownRows && record !== undefined && messagesRead < record.messageCount;
  }

  private unflushedOf(agentId: string): MessageRecord[] {
    const out: MessageRecord[] = [];
    for (const pending of this.unflushed.values()) {
      for (const message of pending.values()) if (message.agentId === agentId) out.push(message);
    }
    return out;
  }

  private parse(data: string): MessageRecord {
    const stored = JSON.parse(data) as MessageRecord;
    return upgradeMessage(stored, this.store.agents.get(stored.agentId)?.fallbackMessage);
  }

  /** A new conversation's record; `save` stores it. */
  create(input: {
    agentId: string;
    workspaceId: string;
    title: string;
    channel: ConversationRecord["channel"];
    visitorId: string | null;
    startedBy?: string | null;
    pageUrl?: string | null;
    device?: ConversationRecord["device"];
  }): ConversationRecord {
    const now = new Date().toISOString();
    const title = input.title.replace(/\s+/g, " ").trim();
    const record: ConversationRecord = {
      id: randomUUID(),
      agentId: input.agentId,
      workspaceId: input.workspaceId,
      title: title.length > 80 ? `${title.slice(0, 79)}…` : title,
      messageCount: 0,
      channel: input.channel,
      visitorId: input.visitorId,
      startedBy: input.startedBy ?? null,
      pageUrl: input.pageUrl ?? null,
      device: input.device ?? null,
      createdAt: now,
      updatedAt: now,
      revision: 1,
    };
    this.recent.set(record.id, []);
    return record;
  }

  async save(record: ConversationRecord): Promise<ConversationRecord> {
    this.write({ conversation: record });
    this.store.conversations.remember([record]);
    return record;
  }

  /**
   * Stores a message (journaled: durable on return) and bumps the conversation's count and updatedAt.
   * A message for a conversation that is deleted (or being deleted) is dropped: an answer that was
   * streaming when its conversation went must not bring it back.
   */
  async append(message: MessageRecord): Promise<void> {
    if (!this.exists(message.conversationId)) return;
    const list = await this.messages(message.conversationId);
    const current = this.store.conversations.get(message.conversationId);
    // A new question needs a reviewer again: a resolved conversation opens.
    const reopen = message.role === "user" && current?.status === "resolved";
    const conversation = current
      ? {
          ...current,
          messageCount: current.messageCount + 1,
          updatedAt: message.createdAt,
          revision: revisionOf(current) + 1,
          ...(reopen ? { status: "open" as const, resolvedAt: null } : {}),
        }
      : undefined;
    this.write({ message, seq: list.length, ...(conversation ? { conversation } : {}) });
    if (conversation) this.store.conversations.remember([conversation]);
    this.track(message);
    this.review.note(message);
    list.push(message);
    this.remember(message.conversationId, list);
    // The turn is complete with the answer: it carries the question and the conversation with it.
    if (message.role === "assistant") await this.sharedNow();
  }

  /**
   * Shared mode: the next turn of a conversation may reach another replica, so a turn is in LanceDB
   * (and announced) before the request that made it returns. One process: the journal alone.
   */
  private async sharedNow(): Promise<void> {
    if (this.store.feed.shared) await this.flush();
  }

  private track(message: MessageRecord): void {
    const pending = this.unflushed.get(message.conversationId) ?? new Map<string, MessageRecord>();
    pending.set(message.id, message);
    this.unflushed.set(message.conversationId, pending);
  }

  /** Resolves a conversation or opens it again (journaled: durable on return). */
  async setStatus(
    conversation: ConversationRecord,
    status: "open" | "resolved",
  ): Promise<ConversationRecord> {
    const current = this.store.conversations.get(conversation.id);
    if (!current || !this.exists(conversation.id)) throw notFound("conversation", conversation.id);
    if ((current.status ?? "open") === status) return current;
    const updated: ConversationRecord = {
      ...current,
      status,
      resolvedAt: status === "resolved" ? new Date().toISOString() : null,
      revision: revisionOf(current) + 1,
    };
    this.write({ conversation: updated });
    this.store.conversations.remember([updated]);
    await this.sharedNow();
    return updated;
  }

  /** Every message of a conversation, oldest first. */
  async messages(conversationId: string): Promise<MessageRecord[]> {
    const cached = this.recent.get(conversationId);
    if (cached) return cached;
    if (!UUID.test(conversationId)) return [];
    const rows = await this.messageRows(
      `conversation_id = '${conversationId}'`,
      (r) => r.conversation_id === conversationId,
    );
    const byId = new Map<string, { seq: number; message: MessageRecord }>();
    for (const r of rows) {
      const message = this.parse(String(r.data));
      const known = byId.get(message.id)?.message;
      if (!known || revisionOf(message) >= revisionOf(known))
        byId.set(message.id, { seq: Number(r.seq), message });
    }
    let seq = byId.size;
    for (const message of this.unflushed.get(conversationId)?.values() ?? []) {
      const known = byId.get(message.id);
      byId.set(message.id, { seq: known?.seq ?? seq++, message });
    }
    const list = [...byId.values()].sort((a, b) => a.seq - b.seq).map((x) => x.message);
    if (this.isDamaged(conversationId, list.length)) throw storageDamaged(conversationId);
    this.remember(conversationId, list);
    return list;
  }

  async findMessage(agentId: string, messageId: string): Promise<MessageRecord> {
    if (!UUID.test(messageId)) throw notFound("message", messageId);
    const check = (m: MessageRecord) => {
      if (m.agentId !== agentId) throw notFound("message", messageId);
      return m;
    };
    for (const list of this.recent.values()) {
      const hit = list.find((m) => m.id === messageId);
      if (hit) return check(hit);
    }
    for (const pending of this.unflushed.values()) {
      const hit = pending.get(messageId);
      if (hit) return check(hit);
    }
    const rows = await this.messageRows(`id = '${messageId}'`, (r) => r.id === messageId);
    const message = latest(rows.map((r) => this.parse(String(r.data))));
    // It may be one of the damaged file's rows: not "not found" while that cannot be told.
    if (!message && this.salvaged) throw storageDamaged();
    if (!message) throw notFound("message", messageId);
    return check(message);
  }

  /** The visitor's question an answer replied to: the user message just before it. */
  async questionOf(answer: MessageRecord): Promise<string> {
    const list = await this.messages(answer.conversationId);
    const at = list.findIndex((m) => m.id === answer.id);
    const asked = list.slice(0, at < 0 ? list.length : at).findLast((m) => m.role === "user");
    if (!asked || asked.content.trim() === "") {
      throw new AppError("validation_error", "No question precedes this answer; give one", {
        fields: { question: ["required for this message"] },
      });
    }
    return asked.content;
  }

  /** Records a visitor's or caller's rating of an answer (only answers can be rated) and announces it. */
  async rateAnswer(
    agent: AgentRecord,
    message: MessageRecord,
    rating: "up" | "down",
    comment: string | null,
    reason: FeedbackReason | null = null,
  ): Promise<void> {
    if (message.role !== "assistant") {
      throw new AppError("validation_error", "Only answers can be rated", {
        fields: { messageId: ["not an answer"] },
      });
    }
    await this.setFeedback(message, rating, comment, reason);
    const answers = (await this.messages(message.conversationId)).filter((m) => m.role === "assistant");
    this.events?.emit({
      type: "message.feedback",
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      conversationId: message.conversationId,
      messageId: message.id,
      rating,
      comment,
      reason,
      conversationCreatedAt:
        this.store.conversations.get(message.conversationId)?.createdAt ?? message.createdAt,
      conversationChannel: this.store.conversations.get(message.conversationId)?.channel ?? "api",
      lastAnswerFallback: answers.at(-1)?.fallback === true,
    });
  }

  async setFeedback(
    message: MessageRecord,
    rating: "up" | "down",
    comment: string | null,
    reason: FeedbackReason | null = null,
  ): Promise<MessageRecord> {
    if (!this.exists(message.conversationId)) throw notFound("message", message.id);
    const updated: MessageRecord = {
      ...message,
      feedback: rating,
      feedbackComment: comment,
      // A reason only explains a thumbs-down.
      feedbackReason: rating === "down" ? reason : null,
      revision: revisionOf(message) + 1,
    };
    this.write({ message: updated });
    this.track(updated);
    this.review.note(updated);
    const list = this.recent.get(message.conversationId);
    if (list) {
      const i = list.findIndex((m) => m.id === message.id);
      if (i >= 0) list[i] = updated;
    }
    await this.sharedNow();
    return updated;
  }

  /**
   * Deletes a conversation and its messages. Removals that arrive while a delete is running are
   * grouped into the next one (one scan of the message table and two commits for the group):
   * one commit each could not keep up with a busy widget's deletions.
   */
  remove(conversation: ConversationRecord): Promise<void> {
    this.tombstone([conversation.id]);
    this.review.forgetConversation(conversation.agentId, conversation.id);
    return this.removals.add(conversation.id);
  }

  private async removeNow(removed: string[]): Promise<void> {
    const ids = removed.filter((id) => UUID.test(id));
    await this.flush();
    const list = ids.map((id) => `'${id}'`).join(", ");
    if (ids.length > 0) await this.deleteMessages(`conversation_id IN (${list})`);
    await this.store.conversations.delete(ids);
    this.forget(ids);
    // Nothing can be written for them now (`exists` is false), so the tombstones have done their job.
    for (const id of removed) this.deleted.delete(id);
  }

  private exists(conversationId: string): boolean {
    return !this.deleted.has(conversationId) && this.store.conversations.get(conversationId) !== undefined;
  }

  private tombstone(ids: string[]): void {
    const now = Date.now();
    for (const id of ids) {
      this.deleted.delete(id);
      this.deleted.set(id, now);
    }
    for (const [id, at] of this.deleted) {
      if (now - at < TOMBSTONE_MS) break;
      this.deleted.delete(id);
    }
  }

  private forget(ids: string[]): void {
    for (const id of ids) {
      this.recent.delete(id);
      this.unflushed.delete(id);
    }
  }

  /** Deletes every conversation and message of an agent (the agent is being deleted). */
  async removeForAgent(agentId: string): Promise<void> {
    const ids = this.store.conversations.filter((c) => c.agentId === agentId).map((c) => c.id);
    this.tombstone(ids);
    this.review.forgetAgent(agentId);
    await this.flush();
    await this.deleteMessages(`agent_id = '${agentId}'`);
    await this.store.conversations.delete(ids);
    this.forget(ids);
  }

  /** Everything journaled so far is in LanceDB when this resolves. */
  flush(): Promise<void> {
    return this.journal?.flush() ?? Promise.resolve();
  }

  async close(): Promise<void> {
    await this.journal?.close();
  }

  private remember(conversationId: string, list: MessageRecord[]): void {
    this.recent.delete(conversationId);
    this.recent.set(conversationId, list);
    if (this.recent.size > HISTORY_CACHE_SIZE) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
  }
}

/** How many changes a record has had; 0 for one stored before revisions existed. */
function revisionOf(record: { revision?: number }): number {
  return record.revision ?? 0;
}

/** A message's latest stored state (a damaged table may hold older rows beside it); null for none. */
function latest(messages: MessageRecord[]): MessageRecord | null {
  let out: MessageRecord | null = null;
  for (const m of messages) if (!out || revisionOf(m) >= revisionOf(out)) out = m;
  return out;
}
