import type { Connection, Table } from "@lancedb/lancedb";
import type { AgentAnalytics, AnalyticsQuery } from "@lore/shared";
import { Field, Float64, Schema, Utf8 } from "apache-arrow";
import { z } from "zod";
import { AppError } from "../errors.ts";
import type { AnsweredQuery, DomainEvent, EventBus } from "../events/event-bus.ts";
import type { Lease } from "../jobs/lease.ts";
import type { Logger } from "../log/logger.ts";
import { BatchedLog } from "../store/batched-log.ts";
import type { ChangeFeed } from "../store/change-feed.ts";
import type { StorageHealth } from "../store/storage-health.ts";
import { WriteQueue } from "../store/write-queue.ts";
import {
  Aggregates,
  analyticsKey,
  DAY_MS,
  DayTops,
  dayTopsJsonSchema,
  HourBucket,
  hourBucketJsonSchema,
} from "./aggregates.ts";

/** One raw analytics event: the source of truth the aggregates are rebuilt from. */
type RawRow = {
  seq: number;
  id: string;
  agent_id: string;
  kind: "query" | "feedback" | "handoff";
  at: number;
  data: string;
};

const rawSchema = new Schema([
  new Field("seq", new Float64(), false),
  new Field("id", new Utf8(), false),
  new Field("agent_id", new Utf8(), false),
  new Field("kind", new Utf8(), false),
  new Field("at", new Float64(), false),
  new Field("data", new Utf8(), false),
]);
const aggregateSchema = new Schema([
  new Field("id", new Utf8(), false),
  new Field("data", new Utf8(), false),
]);

// The shapes of the stored JSON, checked as they are read back.
const metaJsonSchema = z.object({ appliedSeq: z.number() });
// Ratings recorded before resolution rates existed carry no conversation.
// `lastFallback`: the conversation's last answer was the fallback then (absent on older rows).
const feedbackJsonSchema = z.object({
  rating: z.enum(["up", "down"]),
  conversationId: z.string().optional(),
  conversationAt: z.number().optional(),
  lastFallback: z.boolean().optional(),
});
const handoffJsonSchema = z.object({
  conversationId: z.string(),
  conversationAt: z.number(),
  lastFallback: z.boolean().optional(),
});
const answeredQueryJsonSchema = z.object({
  agentId: z.string(),
  workspaceId: z.string(),
  conversationId: z.string(),
  messageId: z.string(),
  at: z.string(),
  channel: z.enum(["api", "widget", "console", "openai", "mcp"]),
  streamed: z.boolean(),
  callerId: z.string(),
  question: z.string(),
  newConversation: z.boolean(),
  conversationAt: z.string().optional(),
  afterFallback: z.boolean().optional(),
  answered: z.boolean(),
  error: z.string().nullable(),
  outcome: z.enum(["answered", "uncertain", "fallback"]).nullable().optional(),
  latency: z.number(),
  retrievalTime: z.number(),
  generationTime: z.number(),
  tokensUsed: z.number(),
  cited: z.array(z.object({ documentId: z.string(), title: z.string(), dataSourceId: z.string() })),
}) satisfies z.ZodType<AnsweredQuery>;

/** Parses stored JSON and checks its shape; what fails names the row it came from. */
function decodeJson<T>(schema: z.ZodType<T>, json: string, row: string): T {
  const result = schema.safeParse(JSON.parse(json));
  if (!result.success) throw new Error(`analytics row ${row} is malformed: ${z.prettifyError(result.error)}`);
  return result.data;
}

/** A column of a record batch as plain values (empty when the batch lacks it). */
function column(batch: { getChild(name: string): { toArray(): ArrayLike<unknown> } | null }, name: string) {
  return batch.getChild(name)?.toArray() ?? [];
}

/** A stored row's `lastFallback`, when it has one. */
function lastFallbackOf(row: { lastFallback?: boolean | undefined }): Pick<ConversationRef, "lastFallback"> {
  return row.lastFallback !== undefined ? { lastFallback: row.lastFallback } : {};
}

function rowKind(kind: string): RawRow["kind"] {
  return kind === "feedback" || kind === "handoff" ? kind : "query";
}

const RAW_TABLE = "analytics_events";
const AGGREGATE_TABLE = "analytics_aggregates";
/** Flushes of the buckets between two optimisations of their table. */
const FLUSHES_PER_OPTIMIZE = 30;
/** Widest range one request may ask for, and the widest with hourly points. */
export const MAX_RANGE_DAYS = 400;
export const MAX_HOURLY_RANGE_DAYS = 31;

export interface AnalyticsOptions {
  logger: Logger;
  events?: EventBus;
  /** How often dirty buckets are written (ms). */
  flushMs?: number;
  /** "Now", for the default range. */
  now?: () => number;
  /**
   * Shared mode: every replica appends to the one raw log and folds the others' rows as the feed
   * announces them, so each holds the fleet's analytics; `replicaNumber` (unique per process start)
   * keeps sequence numbers distinct across replicas.
   */
  shared?: { feed: ChangeFeed; replicaNumber: number; lease: Lease };
  /** The data directory's disk: while it cannot be written, the log and buckets wait; they catch up when it can. */
  storage?: Pick<StorageHealth, "writable" | "noteFailure" | "onRecovered">;
}

/** Shared mode: sequence numbers are `replicaNumber × 2^36 + n`, exact in a float64 for 131,072 starts. */
const REPLICA_SEQ_SPAN = 2 ** 36;

interface Rating {
  agentId: string;
  rating: "up" | "down";
  at: number;
}

/**
 * The conversation a rating, handoff or answer belongs to, and when it began (ms); `lastFallback`:
 * whether its last answer was the fallback just before (the conversations' own record says it, so it
 * holds across restarts; absent: what this process saw).
 */
interface ConversationRef {
  id: string;
  at: number;
  lastFallback?: boolean;
}

/** Why a conversation is not resolved: its thumbs-down answers, its handoffs, its last answer the fallback. */
interface Flags {
  agentId: string;
  at: number;
  downs: Set<string>;
  handoffs: number;
  fallback: boolean;
}

const unresolved = (f: Flags) => f.downs.size + f.handoffs > 0 || f.fallback;

/**
 * Analytics recording and reading. Every answer is appended to a raw log (group commit, off the
 * answer's path) and folded at once into per-agent hourly buckets in memory (counters, latency
 * histograms, distinct-caller sketches) and daily top lists. Buckets are written every few seconds
 * with the log sequence number they include; on start, log rows past that number are replayed,
 * so nothing the log holds is lost or counted twice. Reads merge at most a few hundred buckets.
 */
export class AnalyticsService {
  private seq = 0;
  /** Shared mode: per replica number, the highest sequence number folded here (its rows arrive in order). */
  private readonly folded = new Map<number, number>();
  private readonly ratings = new Map<string, Rating>();
  /** Conversations with a thumbs-down, a handoff or the fallback as last answer (the unresolved ones), by id. */
  private readonly flags = new Map<string, Flags>();
  private flushing: Promise<void> | null = null;
  private readonly aggregateQueue = new WriteQueue();
  private readonly timers: NodeJS.Timeout[] = [];
  /** Rows whose commit failed (the disk full or read-only), retried by `retryTimer`. */
  private readonly unwritten: RawRow[] = [];
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelayMs = 0;
  private lastAppendWarning = 0;
  /** Starts at the threshold: the first compaction also optimises what an earlier process left. */
  private flushesSinceOptimize = FLUSHES_PER_OPTIMIZE;
  private stopped = false;

  private constructor(
    private readonly aggregates: Aggregates,
    private readonly log: BatchedLog<RawRow>,
    private readonly table: Table,
    private readonly options: AnalyticsOptions,
  ) {}

  static async open(db: Connection, options: AnalyticsOptions): Promise<AnalyticsService> {
    const log = await BatchedLog.open<RawRow>(db, RAW_TABLE, rawSchema);
    const names = await db.tableNames();
    const table = names.includes(AGGREGATE_TABLE)
      ? await db.openTable(AGGREGATE_TABLE)
      : await db.createEmptyTable(AGGREGATE_TABLE, aggregateSchema, { mode: "create", existOk: true });
    const service = new AnalyticsService(new Aggregates(), log, table, options);
    const shared = options.shared;
    if (shared) {
      service.seq = shared.replicaNumber * REPLICA_SEQ_SPAN;
      await service.replay(null);
      shared.feed.on(RAW_TABLE, (seqs) => service.replay(seqs));
    } else await service.load();
    options.events?.subscribe((event) => service.onEvent(event));
    // While the disk cannot be written the buckets stay dirty in memory; the same failure is logged once a minute.
    const storage = options.storage;
    const warnedAt = new Map<string, number>();
    const warn = (what: string) => (e: unknown) => {
      storage?.noteFailure(e);
      const now = Date.now();
      if (now - (warnedAt.get(what) ?? 0) < 60_000) return;
      warnedAt.set(what, now);
      options.logger.warn(`analytics ${what} failed; retrying`, { error: String(e) });
    };
    const flushNow = () => void service.flush().catch(warn("flush"));
    const compactNow = () => void service.compact().catch(warn("compaction"));
    const flush = setInterval(() => {
      if (storage?.writable !== false) flushNow();
    }, options.flushMs ?? 2000);
    const compact = setInterval(() => {
      if (storage?.writable !== false) compactNow();
    }, 60_000);
    storage?.onRecovered(() => {
      if (service.stopped) return;
      void service.retryUnwritten();
      flushNow();
      compactNow();
    });
    for (const t of [flush, compact]) {
      t.unref();
      service.timers.push(t);
    }
    return service;
  }

  /**
   * Shared mode: folds the raw log's rows with these sequence numbers (other replicas' answers and
   * ratings), or every row not folded yet (at start, after missed signals). Buckets are not stored in
   * shared mode: the raw log, shared by all replicas, is the one record.
   */
  private async replay(seqs: readonly string[] | null): Promise<void> {
    const numbers = seqs?.map(Number).filter(Number.isSafeInteger) ?? null;
    if (numbers?.length === 0) return;
    const own = this.options.shared?.replicaNumber;
    const rows: RawRow[] = [];
    const where = numbers ? `seq IN (${numbers.join(", ")})` : null;
    const query = this.log.table.query().select(["seq", "id", "agent_id", "kind", "at", "data"]);
    if (where) query.where(where);
    for await (const batch of query) {
      const [seq, id, agent, kind, at, data] = ["seq", "id", "agent_id", "kind", "at", "data"].map((c) =>
        column(batch, c),
      );
      for (let i = 0; i < (seq?.length ?? 0); i++) {
        rows.push({
          seq: Number(seq?.[i]),
          id: String(id?.[i]),
          agent_id: String(agent?.[i]),
          kind: rowKind(String(kind?.[i])),
          at: Number(at?.[i]),
          data: String(data?.[i]),
        });
      }
    }
    // Ratings in the order they were given: a changed rating withdraws the earlier one.
    rows.sort((a, b) => a.at - b.at || a.seq - b.seq);
    // Each replica's rows once: this one's were folded as they were recorded, and a full read (after
    // missed signals) also returns rows whose own announcement is still on its way.
    const fresh = rows.filter((row) => {
      const replica = Math.floor(row.seq / REPLICA_SEQ_SPAN);
      return replica !== own && row.seq > (this.folded.get(replica) ?? -1);
    });
    for (const row of fresh) {
      const replica = Math.floor(row.seq / REPLICA_SEQ_SPAN);
      this.folded.set(replica, Math.max(row.seq, this.folded.get(replica) ?? -1));
    }
    for (const row of fresh) {
      if (row.kind === "query") {
        const q = decodeJson(answeredQueryJsonSchema, row.data, `query ${row.seq}`);
        this.aggregates.addQuery(q);
        this.applyAnswer(q, true);
      } else this.applyRow(row, true);
    }
    this.aggregates.dirtyHours.clear();
    this.aggregates.dirtyDays.clear();
  }

  /** Loads the stored buckets, then replays the raw log past the sequence number they include. */
  private async load(): Promise<void> {
    let appliedSeq = 0;
    for await (const batch of this.table.query().select(["id", "data"])) {
      const [ids, data] = [column(batch, "id"), column(batch, "data")];
      for (let i = 0; i < ids.length; i++) {
        const id = String(ids[i]);
        const json = String(data[i]);
        if (id === "meta") appliedSeq = decodeJson(metaJsonSchema, json, id).appliedSeq;
        else if (id.startsWith("h:")) {
          const [, agentId = "", hour = "0"] = id.split(":");
          const bucket = HourBucket.fromJSON(decodeJson(hourBucketJsonSchema, json, id));
          this.agentHours(agentId).set(Number(hour), bucket);
        } else if (id.startsWith("d:")) {
          const [, agentId = "", day = "0"] = id.split(":");
          this.agentDays(agentId).set(Number(day), DayTops.fromJSON(decodeJson(dayTopsJsonSchema, json, id)));
        }
      }
    }
    let maxSeq = appliedSeq;
    let replayed = 0;
    // Ratings and handoffs (few) are all read back: a changed rating must withdraw the earlier one,
    // and a conversation's flags decide whether a later rating changes its resolution. Answers past
    // the buckets are read too, and everything is applied in the order it was logged: an answer
    // changes a conversation's resolution (its last answer the fallback or not) like a rating does.
    const rows: RawRow[] = [];
    for await (const batch of this.log.table
      .query()
      .where(`kind = 'feedback' OR kind = 'handoff' OR (kind = 'query' AND seq > ${appliedSeq})`)
      .select(["seq", "id", "agent_id", "kind", "at", "data"])) {
      const [seqs, ids, agents, kinds, ats, data] = [
        column(batch, "seq"),
        column(batch, "id"),
        column(batch, "agent_id"),
        column(batch, "kind"),
        column(batch, "at"),
        column(batch, "data"),
      ];
      for (let i = 0; i < seqs.length; i++) {
        rows.push({
          seq: Number(seqs[i]),
          id: String(ids[i]),
          agent_id: String(agents[i]),
          kind: rowKind(String(kinds[i])),
          at: Number(ats[i]),
          data: String(data[i]),
        });
      }
    }
    rows.sort((a, b) => a.seq - b.seq);
    for (const row of rows) {
      maxSeq = Math.max(maxSeq, row.seq);
      if (row.kind === "query") {
        const q = decodeJson(answeredQueryJsonSchema, row.data, `query ${row.seq}`);
        this.aggregates.addQuery(q);
        this.applyAnswer(q, true);
      } else {
        // Rows the stored buckets include rebuild the state only; later ones count too.
        this.applyRow(row, row.seq > appliedSeq);
      }
      if (row.seq > appliedSeq) replayed += 1;
    }
    this.seq = maxSeq;
    if (replayed > 0) {
      this.options.logger.info("analytics replayed from the raw log", { rows: replayed });
      await this.flush();
    } else {
      this.aggregates.dirtyHours.clear();
      this.aggregates.dirtyDays.clear();
    }
  }

  private agentHours(agentId: string): Map<number, HourBucket> {
    let m = this.aggregates.hours.get(agentId);
    if (!m) {
      m = new Map();
      this.aggregates.hours.set(agentId, m);
    }
    return m;
  }

  private agentDays(agentId: string): Map<number, DayTops> {
    let m = this.aggregates.days.get(agentId);
    if (!m) {
      m = new Map();
      this.aggregates.days.set(agentId, m);
    }
    return m;
  }

  /** Once per stored answer (its `question.answered` event): folds it in memory now, durable in the next group commit. */
  record(query: AnsweredQuery): void {
    try {
      this.aggregates.addQuery(query);
      this.applyAnswer(query, true);
      this.seq += 1;
      this.append({
        seq: this.seq,
        id: query.messageId,
        agent_id: query.agentId,
        kind: "query",
        at: Date.parse(query.at) || Date.now(),
        data: JSON.stringify(query),
      });
    } catch (error) {
      this.options.logger.warn("analytics record failed", { error: String(error) });
    }
  }

  /** Records many answers at once (imports, benchmarks): one log commit per 20,000 rows. */
  async ingest(queries: AnsweredQuery[]): Promise<void> {
    const rows: RawRow[] = [];
    for (const q of queries) {
      this.aggregates.addQuery(q);
      this.applyAnswer(q, true);
      this.seq += 1;
      rows.push({
        seq: this.seq,
        id: q.messageId,
        agent_id: q.agentId,
        kind: "query",
        at: Date.parse(q.at),
        data: JSON.stringify(q),
      });
    }
    for (let i = 0; i < rows.length; i += 20_000) {
      const chunk = rows.slice(i, i + 20_000);
      await this.log.write((table) => table.add(chunk));
      await this.options.shared?.feed.publish({ table: RAW_TABLE, ids: chunk.map((r) => String(r.seq)) });
    }
  }

  /** A rating of an answer; a changed rating replaces the earlier one. */
  recordFeedback(
    agentId: string,
    messageId: string,
    rating: "up" | "down",
    at = Date.now(),
    conversation?: ConversationRef,
  ): void {
    if (this.ratings.get(messageId)?.rating === rating) return;
    this.applyFeedback(agentId, messageId, rating, at, conversation, true);
    this.seq += 1;
    this.append({
      seq: this.seq,
      id: messageId,
      agent_id: agentId,
      kind: "feedback",
      at,
      data: JSON.stringify({
        rating,
        ...(conversation ? { conversationId: conversation.id, conversationAt: conversation.at } : {}),
        ...(conversation?.lastFallback !== undefined ? { lastFallback: conversation.lastFallback } : {}),
      }),
    });
  }

  /** A visitor's contact request (handoff) on a conversation. */
  recordHandoff(agentId: string, handoffId: string, conversation: ConversationRef, at = Date.now()): void {
    this.applyHandoff(agentId, conversation, at, true);
    this.seq += 1;
    this.append({
      seq: this.seq,
      id: handoffId,
      agent_id: agentId,
      kind: "handoff",
      at,
      data: JSON.stringify({
        conversationId: conversation.id,
        conversationAt: conversation.at,
        ...(conversation.lastFallback !== undefined ? { lastFallback: conversation.lastFallback } : {}),
      }),
    });
  }

  /** A stored rating or handoff row: `count` false rebuilds state the stored buckets already include. */
  private applyRow(row: RawRow, count: boolean): void {
    if (row.kind === "handoff") {
      const h = decodeJson(handoffJsonSchema, row.data, `handoff ${row.seq}`);
      const ref = { id: h.conversationId, at: h.conversationAt, ...lastFallbackOf(h) };
      this.applyHandoff(row.agent_id, ref, row.at, count);
      return;
    }
    const f = decodeJson(feedbackJsonSchema, row.data, `feedback ${row.seq}`);
    const conversation =
      f.conversationId !== undefined && f.conversationAt !== undefined
        ? { id: f.conversationId, at: f.conversationAt, ...lastFallbackOf(f) }
        : undefined;
    this.applyFeedback(row.agent_id, row.id, f.rating, row.at, conversation, count);
  }

  private applyFeedback(
    agentId: string,
    messageId: string,
    rating: "up" | "down",
    at: number,
    conversation: ConversationRef | undefined,
    count: boolean,
  ): void {
    const previous = this.ratings.get(messageId);
    if (previous?.rating === rating) return;
    if (count) {
      if (previous) this.aggregates.addFeedback(previous.agentId, previous.at, previous.rating, -1);
      this.aggregates.addFeedback(agentId, at, rating, 1);
    }
    this.ratings.set(messageId, { agentId, rating, at });
    if (conversation) {
      this.flag(agentId, conversation, count, (f) => {
        if (rating === "down") f.downs.add(messageId);
        else f.downs.delete(messageId);
      });
    }
  }

  /**
   * An answer: its conversation is unresolved while this (now its last answer) is the fallback. An
   * answer logged before conversations' start times were is skipped: its hour is not known.
   */
  private applyAnswer(q: AnsweredQuery, count: boolean): void {
    const at = Date.parse(q.conversationAt ?? (q.newConversation ? q.at : ""));
    if (!Number.isFinite(at)) return;
    const lastFallback = q.afterFallback ?? (q.newConversation ? false : undefined);
    const ref = { id: q.conversationId, at, ...(lastFallback !== undefined ? { lastFallback } : {}) };
    this.flag(analyticsKey(q.agentId, q.channel), ref, count, (f) => {
      f.fallback = q.outcome === "fallback";
    });
  }

  private applyHandoff(agentId: string, conversation: ConversationRef, at: number, count: boolean): void {
    if (count) this.aggregates.addCount(agentId, at, "handoffs", 1);
    this.flag(agentId, conversation, count, (f) => {
      f.handoffs += 1;
    });
  }

  /** Changes a conversation's flags; one that becomes (or stops being) unresolved counts in the hour it began. */
  private flag(
    agentId: string,
    conversation: ConversationRef,
    count: boolean,
    change: (f: Flags) => void,
  ): void {
    const flags = this.flags.get(conversation.id) ?? {
      agentId,
      at: conversation.at,
      downs: new Set<string>(),
      handoffs: 0,
      fallback: false,
    };
    if (conversation.lastFallback !== undefined) flags.fallback = conversation.lastFallback;
    const before = unresolved(flags);
    change(flags);
    const after = unresolved(flags);
    if (after) this.flags.set(conversation.id, flags);
    else this.flags.delete(conversation.id);
    if (count && before !== after)
      this.aggregates.addCount(flags.agentId, flags.at, "unresolved", after ? 1 : -1);
  }

  private onEvent(event: DomainEvent): void {
    if (event.type === "question.answered") this.record(event.query);
    else if (event.type === "message.feedback") {
      const at = Date.parse(event.conversationCreatedAt);
      // Ratings of Try-it answers count with the console's questions (the key is stored in the row).
      this.recordFeedback(
        analyticsKey(event.agentId, event.conversationChannel),
        event.messageId,
        event.rating,
        Date.now(),
        Number.isFinite(at)
          ? { id: event.conversationId, at, lastFallback: event.lastAnswerFallback }
          : undefined,
      );
    } else if (event.type === "conversation.handoff_requested") {
      const at = Date.parse(event.conversationCreatedAt);
      this.recordHandoff(event.agentId, event.handoff.id, {
        id: event.handoff.conversationId,
        at: Number.isFinite(at) ? at : Date.now(),
        lastFallback: event.lastAnswerFallback,
      });
    }
  }

  // A failed commit is retried until it lands: the row is already counted in memory.
  private append(row: RawRow): void {
    // While the disk is at fault the row waits in memory: a write into a vanished directory would
    // recreate it, and the tables there would not be the data's.
    if (this.options.storage?.writable === false) {
      this.unwritten.push(row);
      return;
    }
    this.log.append(row).then(
      () => this.options.shared?.feed.publish({ table: RAW_TABLE, ids: [String(row.seq)] }),
      (error: unknown) => this.appendFailed(row, error),
    );
  }

  /**
   * Rows whose commit failed wait in memory and are retried together, after a growing delay (1 s
   * doubling to 30 s) and at once when the disk recovers; the failure is logged once a minute.
   */
  private appendFailed(row: RawRow, error: unknown): void {
    this.options.storage?.noteFailure(error);
    this.unwritten.push(row);
    const now = Date.now();
    if (now - this.lastAppendWarning >= 60_000) {
      this.lastAppendWarning = now;
      this.options.logger.warn("analytics log append failed; the rows wait in memory and are retried", {
        rows: this.unwritten.length,
        error: String(error),
      });
    }
    if (this.retryTimer || this.stopped) return;
    this.retryDelayMs = Math.min(30_000, Math.max(1000, this.retryDelayMs * 2));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.retryUnwritten();
    }, this.retryDelayMs);
    this.retryTimer.unref();
  }

  /** One attempt at the rows whose commit failed (grouped into one commit); resolves once it settled. */
  private async retryUnwritten(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const rows = this.unwritten.splice(0);
    const results = await Promise.allSettled(rows.map((row) => this.log.append(row)));
    let failed = false;
    results.forEach((result, i) => {
      const row = rows[i];
      if (!row) return;
      if (result.status === "fulfilled") {
        this.options.shared?.feed.publish({ table: RAW_TABLE, ids: [String(row.seq)] });
      } else {
        failed = true;
        this.appendFailed(row, result.reason);
      }
    });
    if (!failed) this.retryDelayMs = 0;
  }

  /** The report for an agent; `query` is validated here (range order and size). */
  report(agentId: string, query: AnalyticsQuery): AgentAnalytics {
    const today = new Date(this.options.now?.() ?? Date.now()).toISOString().slice(0, 10);
    const to = query.to ?? (query.from && query.from > today ? query.from : today);
    const from =
      query.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
    const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
    if (days < 1)
      throw new AppError("validation_error", "`from` must not be after `to`", {
        fields: { from: ["must not be after to"] },
      });
    if (days > MAX_RANGE_DAYS) {
      throw new AppError("validation_error", `The range may span at most ${MAX_RANGE_DAYS} days`, {
        fields: { from: [`at most ${MAX_RANGE_DAYS} days before to`] },
      });
    }
    if (query.interval === "hour" && days > MAX_HOURLY_RANGE_DAYS) {
      throw new AppError("validation_error", `Hourly points cover at most ${MAX_HOURLY_RANGE_DAYS} days`, {
        fields: { interval: [`hour allows at most ${MAX_HOURLY_RANGE_DAYS} days; use day or week`] },
      });
    }
    return this.aggregates.report(agentId, {
      from,
      to,
      interval: query.interval,
      limit: query.limit,
      includeConsole: query.includeConsole === true,
    });
  }

  /** Writes the buckets changed since the last flush, with the log position they include, in one commit. */
  flush(): Promise<void> {
    if (this.options.shared) return Promise.resolve();
    if (this.flushing) return this.flushing.then(() => this.flush());
    const { dirtyHours, dirtyDays } = this.aggregates;
    if (dirtyHours.size === 0 && dirtyDays.size === 0) return Promise.resolve();
    // Serialised synchronously: the snapshot and appliedSeq describe the same moment.
    const rows: Array<{ id: string; data: string }> = [];
    const hours = [...dirtyHours];
    const days = [...dirtyDays];
    dirtyHours.clear();
    dirtyDays.clear();
    for (const key of hours) {
      const [agentId = "", hour = "0"] = key.split(":");
      const bucket = this.aggregates.hours.get(agentId)?.get(Number(hour));
      if (bucket) rows.push({ id: `h:${key}`, data: JSON.stringify(bucket) });
    }
    for (const key of days) {
      const [agentId = "", day = "0"] = key.split(":");
      const tops = this.aggregates.days.get(agentId)?.get(Number(day));
      if (tops) rows.push({ id: `d:${key}`, data: JSON.stringify(tops) });
    }
    rows.push({ id: "meta", data: JSON.stringify({ appliedSeq: this.seq }) });
    const run = this.aggregateQueue
      .run(async () => {
        // One commit: the buckets and the log position they include change together or not at all.
        await this.table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
        this.flushesSinceOptimize += 1;
      })
      .catch((error: unknown) => {
        for (const k of hours) dirtyHours.add(k);
        for (const k of days) dirtyDays.add(k);
        throw error;
      })
      .finally(() => {
        this.flushing = null;
      });
    this.flushing = run;
    return run;
  }

  /** Merges the raw log's small fragments (every minute in the background). */
  async compact(): Promise<void> {
    const shared = this.options.shared;
    if (shared) {
      await shared.lease.runExclusive("analytics-compact", () => this.log.compact());
      return;
    }
    await this.log.compact();
    if (this.flushesSinceOptimize >= FLUSHES_PER_OPTIMIZE) {
      this.flushesSinceOptimize = 0;
      await this.aggregateQueue.run(() =>
        this.table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) }).then(() => undefined),
      );
    }
  }

  /** Resolves once every row recorded so far is committed to the raw log. */
  async durable(): Promise<void> {
    await this.log.idle();
    if (this.unwritten.length > 0) await this.retryUnwritten();
    await this.log.idle();
  }

  /** Makes everything recorded so far durable: the raw log, then the buckets. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    try {
      await this.durable();
      await this.flush();
    } catch (error) {
      // The disk refused: what the log lacks was counted in memory only, and is lost with the process.
      this.options.logger.error("analytics not saved at stop", {
        rows: this.unwritten.length,
        error: String(error),
      });
    }
  }
}
