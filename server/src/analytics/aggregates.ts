import type { AgentAnalytics, AnalyticsInterval, AnalyticsPoint } from "@lore/shared";
import { z } from "zod";
import type { AnsweredQuery } from "../events/event-bus.ts";
import { denseHistogram, percentile, SparseHistogram, sparseHistogramJsonSchema } from "./histogram.ts";
import {
  DistinctAccumulator,
  DistinctCounter,
  distinctCounterJsonSchema,
  hashCaller,
} from "./hyperloglog.ts";
import { normalizeQuestion } from "./normalize-question.ts";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** Entries kept per agent and day in each top list; the rest are approximate (least-counted dropped). */
export const TOP_PER_DAY = 500;

/** The counters of one agent in one UTC hour. */
export interface HourCounters {
  queries: number;
  conversations: number;
  tokensUsed: number;
  streamed: number;
  widget: number;
  api: number;
  errors: number;
  unanswered: number;
  feedbackUp: number;
  feedbackDown: number;
  latencySum: number;
  retrievalSum: number;
  generationSum: number;
  /** Answers given with a doubt (outcome `uncertain`). */
  uncertain: number;
  /** Answers the visitor stopped. */
  cancelled: number;
  /** Contact requests (handoffs), in the hour they were sent. */
  handoffs: number;
  /** Conversations with a handoff or a thumbs-down, in the hour the conversation began. */
  unresolved: number;
}

const COUNTER_KEYS = [
  "queries",
  "conversations",
  "tokensUsed",
  "streamed",
  "widget",
  "api",
  "errors",
  "unanswered",
  "feedbackUp",
  "feedbackDown",
  "latencySum",
  "retrievalSum",
  "generationSum",
  // Appended: buckets stored before these existed read them as 0.
  "uncertain",
  "cancelled",
  "handoffs",
  "unresolved",
] as const satisfies ReadonlyArray<keyof HourCounters>;

function zeroCounters(): HourCounters {
  return {
    queries: 0,
    conversations: 0,
    tokensUsed: 0,
    streamed: 0,
    widget: 0,
    api: 0,
    errors: 0,
    unanswered: 0,
    feedbackUp: 0,
    feedbackDown: 0,
    latencySum: 0,
    retrievalSum: 0,
    generationSum: 0,
    uncertain: 0,
    cancelled: 0,
    handoffs: 0,
    unresolved: 0,
  };
}

export class HourBucket {
  counters = zeroCounters();
  latency = new SparseHistogram();
  retrieval = new SparseHistogram();
  generation = new SparseHistogram();
  callers = new DistinctCounter();

  toJSON(): HourBucketJson {
    return {
      c: COUNTER_KEYS.map((k) => this.counters[k]),
      l: this.latency.toJSON(),
      r: this.retrieval.toJSON(),
      g: this.generation.toJSON(),
      v: this.callers.toJSON(),
    };
  }

  static fromJSON(data: HourBucketJson): HourBucket {
    const b = new HourBucket();
    COUNTER_KEYS.forEach((k, i) => {
      b.counters[k] = data.c[i] ?? 0;
    });
    b.latency = SparseHistogram.fromJSON(data.l);
    b.retrieval = SparseHistogram.fromJSON(data.r);
    b.generation = SparseHistogram.fromJSON(data.g);
    b.callers = DistinctCounter.fromJSON(data.v);
    return b;
  }
}

/** An hour bucket as stored: counters in COUNTER_KEYS order, three histograms, the callers' sketch. */
export const hourBucketJsonSchema = z.object({
  c: z.array(z.number()),
  l: sparseHistogramJsonSchema,
  r: sparseHistogramJsonSchema,
  g: sparseHistogramJsonSchema,
  v: distinctCounterJsonSchema,
});
export type HourBucketJson = z.infer<typeof hourBucketJsonSchema>;

// One string object per distinct question or document id, shared by every day: merging days then
// compares keys by identity instead of by content.
const pool = new Map<string, string>();
function intern(key: string): string {
  const found = pool.get(key);
  if (found !== undefined) return found;
  if (pool.size >= 500_000) pool.clear();
  pool.set(key, key);
  return key;
}

interface Counted {
  count: number;
  last: number;
}
interface CitedDoc {
  title: string;
  dataSourceId: string;
  count: number;
}

/** The top lists of one agent in one UTC day, bounded to TOP_PER_DAY entries each. */
export class DayTops {
  questions = new Map<string, Counted>();
  unanswered = new Map<string, Counted>();
  sources = new Map<string, CitedDoc>();

  addQuestion(map: Map<string, Counted>, question: string, at: number): void {
    const key = intern(question);
    const entry = map.get(key);
    if (entry) {
      entry.count += 1;
      if (at > entry.last) entry.last = at;
    } else {
      map.set(key, { count: 1, last: at });
      if (map.size > 2 * TOP_PER_DAY) prune(map);
    }
  }

  addSource(id: string, title: string, dataSourceId: string): void {
    const documentId = intern(id);
    const entry = this.sources.get(documentId);
    if (entry) {
      entry.count += 1;
      entry.title = title;
    } else {
      this.sources.set(documentId, { title, dataSourceId, count: 1 });
      if (this.sources.size > 2 * TOP_PER_DAY) prune(this.sources);
    }
  }

  toJSON(): DayTopsJson {
    return {
      q: [...this.questions].map(([k, v]) => [k, v.count, v.last]),
      u: [...this.unanswered].map(([k, v]) => [k, v.count, v.last]),
      s: [...this.sources].map(([k, v]) => [k, v.title, v.dataSourceId, v.count]),
    };
  }

  static fromJSON(data: DayTopsJson): DayTops {
    const d = new DayTops();
    for (const [k, count, last] of data.q) d.questions.set(intern(k), { count, last });
    for (const [k, count, last] of data.u) d.unanswered.set(intern(k), { count, last });
    for (const [k, title, dataSourceId, count] of data.s)
      d.sources.set(intern(k), { title, dataSourceId, count });
    return d;
  }
}

const countedJsonSchema = z.array(z.tuple([z.string(), z.number(), z.number()]));

/** A day's top lists as stored: [question, count, last] and [documentId, title, dataSourceId, count]. */
export const dayTopsJsonSchema = z.object({
  q: countedJsonSchema,
  u: countedJsonSchema,
  s: z.array(z.tuple([z.string(), z.string(), z.string(), z.number()])),
});
export type DayTopsJson = z.infer<typeof dayTopsJsonSchema>;

// Keeps the most counted half: a question that fell out can come back, its earlier count lost.
function prune<V extends { count: number }>(map: Map<string, V>): void {
  const keep = [...map].sort((a, b) => b[1].count - a[1].count).slice(0, TOP_PER_DAY);
  map.clear();
  for (const [k, v] of keep) map.set(k, v);
}

/** An error that counts: a visitor pressing Stop is not one. */
export function isError(q: Pick<AnsweredQuery, "error">): boolean {
  return q.error !== null && q.error !== "cancelled";
}

/** Given with a doubt: the closest passage and articles that may help. */
export function isUncertain(q: Pick<AnsweredQuery, "outcome" | "error">): boolean {
  return q.outcome === "uncertain" && q.error === null;
}

/** Fell back to the fallback message (not an error). */
export function isUnanswered(q: Pick<AnsweredQuery, "answered" | "error">): boolean {
  return !q.answered && q.error === null;
}

/** A whole day's buckets merged: reused by day and week views until one of its hours changes. */
interface DayRollup {
  counters: HourCounters;
  latency: Float64Array;
  retrieval: Float64Array;
  generation: Float64Array;
  callers: DistinctAccumulator;
}

const MAX_CACHED_ROLLUPS = 20_000;

/**
 * The key an answer is counted under: the agent's, or for the console's Try-it questions (asked with
 * an owner's session) a separate one, so visitor analytics leave them out unless asked to include them.
 */
export function analyticsKey(agentId: string, channel: AnsweredQuery["channel"]): string {
  return channel === "console" ? `${agentId}+console` : agentId;
}

/** Per-agent hour buckets and day top lists, all in memory; persistence is the caller's. */
export class Aggregates {
  readonly hours = new Map<string, Map<number, HourBucket>>();
  private readonly rollups = new Map<string, DayRollup>();
  readonly days = new Map<string, Map<number, DayTops>>();
  readonly dirtyHours = new Set<string>();
  readonly dirtyDays = new Set<string>();

  hour(agentId: string, hour: number): HourBucket {
    let perAgent = this.hours.get(agentId);
    if (!perAgent) {
      perAgent = new Map();
      this.hours.set(agentId, perAgent);
    }
    let bucket = perAgent.get(hour);
    if (!bucket) {
      bucket = new HourBucket();
      perAgent.set(hour, bucket);
    }
    this.dirtyHours.add(`${agentId}:${hour}`);
    this.rollups.delete(`${agentId}:${Math.floor((hour * HOUR_MS) / DAY_MS)}`);
    return bucket;
  }

  /** The merged buckets of one UTC day (cached; any write to the day drops the cache entry). */
  rollup(agentId: string, day: number): DayRollup | null {
    const key = `${agentId}:${day}`;
    const cached = this.rollups.get(key);
    if (cached) return cached;
    const hours = this.hours.get(agentId);
    if (!hours) return null;
    let rollup: DayRollup | null = null;
    const first = (day * DAY_MS) / HOUR_MS;
    for (let h = first; h < first + 24; h++) {
      const bucket = hours.get(h);
      if (!bucket) continue;
      rollup ??= {
        counters: zeroCounters(),
        latency: denseHistogram(),
        retrieval: denseHistogram(),
        generation: denseHistogram(),
        callers: new DistinctAccumulator(),
      };
      for (const k of COUNTER_KEYS) rollup.counters[k] += bucket.counters[k];
      bucket.latency.mergeInto(rollup.latency);
      bucket.retrieval.mergeInto(rollup.retrieval);
      bucket.generation.mergeInto(rollup.generation);
      bucket.callers.mergeInto(rollup.callers);
    }
    if (rollup) {
      if (this.rollups.size >= MAX_CACHED_ROLLUPS) this.rollups.clear();
      this.rollups.set(key, rollup);
    }
    return rollup;
  }

  day(agentId: string, day: number): DayTops {
    let perAgent = this.days.get(agentId);
    if (!perAgent) {
      perAgent = new Map();
      this.days.set(agentId, perAgent);
    }
    let tops = perAgent.get(day);
    if (!tops) {
      tops = new DayTops();
      perAgent.set(day, tops);
    }
    this.dirtyDays.add(`${agentId}:${day}`);
    return tops;
  }

  addQuery(q: AnsweredQuery): void {
    const at = Date.parse(q.at);
    if (!Number.isFinite(at)) return;
    const key = analyticsKey(q.agentId, q.channel);
    const b = this.hour(key, Math.floor(at / HOUR_MS));
    const c = b.counters;
    c.queries += 1;
    if (q.newConversation) c.conversations += 1;
    c.tokensUsed += q.tokensUsed;
    if (q.streamed) c.streamed += 1;
    if (q.channel === "widget") c.widget += 1;
    else c.api += 1;
    if (isError(q)) c.errors += 1;
    if (q.error === "cancelled") c.cancelled += 1;
    const unanswered = isUnanswered(q);
    if (unanswered) c.unanswered += 1;
    const uncertain = isUncertain(q);
    if (uncertain) c.uncertain += 1;
    c.latencySum += q.latency;
    c.retrievalSum += q.retrievalTime;
    c.generationSum += q.generationTime;
    b.latency.add(q.latency);
    b.retrieval.add(q.retrievalTime);
    b.generation.add(q.generationTime);
    b.callers.add(hashCaller(q.callerId));

    const tops = this.day(key, Math.floor(at / DAY_MS));
    const question = normalizeQuestion(q.question);
    if (question) {
      tops.addQuestion(tops.questions, question, at);
      // Not answered as known: the fallback, or an answer given with a doubt.
      if (unanswered || uncertain) tops.addQuestion(tops.unanswered, question, at);
    }
    for (const doc of q.cited) tops.addSource(doc.documentId, doc.title, doc.dataSourceId);
  }

  /** Adds (+1) or withdraws (-1) a counter of the hour holding `at` (handoffs, unresolved conversations). */
  addCount(agentId: string, at: number, key: "handoffs" | "unresolved", sign: 1 | -1): void {
    const c = this.hour(agentId, Math.floor(at / HOUR_MS)).counters;
    c[key] = Math.max(0, c[key] + sign);
  }

  /** Adds (+1) or withdraws (-1) a rating given at `at`. */
  addFeedback(agentId: string, at: number, rating: "up" | "down", sign: 1 | -1): void {
    const c = this.hour(agentId, Math.floor(at / HOUR_MS)).counters;
    if (rating === "up") c.feedbackUp = Math.max(0, c.feedbackUp + sign);
    else c.feedbackDown = Math.max(0, c.feedbackDown + sign);
  }

  report(agentId: string, range: ReportRange): AgentAnalytics {
    return buildReport(this, agentId, range);
  }
}

export interface ReportRange {
  /** First day (YYYY-MM-DD, UTC, inclusive). */
  from: string;
  /** Last day (inclusive). */
  to: string;
  interval: AnalyticsInterval;
  limit: number;
  /** Also count the console's Try-it questions. */
  includeConsole?: boolean;
}

/** Point starts (ms) covering [fromMs, endMs): hours, days, or ISO weeks (Monday) clipped to the range. */
export function intervalStarts(fromMs: number, endMs: number, interval: AnalyticsInterval): number[] {
  const starts: number[] = [];
  if (interval === "hour") for (let t = fromMs; t < endMs; t += HOUR_MS) starts.push(t);
  else if (interval === "day") for (let t = fromMs; t < endMs; t += DAY_MS) starts.push(t);
  else {
    starts.push(fromMs);
    const weekday = (new Date(fromMs).getUTCDay() + 6) % 7; // Monday = 0
    for (let t = fromMs + (7 - weekday) * DAY_MS; t < endMs; t += 7 * DAY_MS) starts.push(t);
  }
  return starts;
}

const r1 = (n: number | null): number | null => (n === null ? null : Math.round(n * 10) / 10);
const share = (part: number, whole: number): number =>
  whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;

function buildReport(agg: Aggregates, agentId: string, range: ReportRange): AgentAnalytics {
  const keys = range.includeConsole ? [agentId, analyticsKey(agentId, "console")] : [agentId];
  const fromMs = Date.parse(`${range.from}T00:00:00Z`);
  const endMs = Date.parse(`${range.to}T00:00:00Z`) + DAY_MS;
  const starts = intervalStarts(fromMs, endMs, range.interval);
  const pointCounters = starts.map(() => zeroCounters());
  const pointLatency = starts.map(() => denseHistogram());
  const pointCallers = starts.map(() => new DistinctAccumulator());
  const totals = zeroCounters();
  const latency = denseHistogram();
  const retrieval = denseHistogram();
  const generation = denseHistogram();
  const callers = new DistinctAccumulator();

  const add = (
    point: number,
    counters: HourCounters,
    merge: (pl: Float64Array, pv: DistinctAccumulator) => void,
  ) => {
    const pc = pointCounters[point];
    const pl = pointLatency[point];
    const pv = pointCallers[point];
    if (!pc || !pl || !pv) return;
    for (const k of COUNTER_KEYS) pc[k] += counters[k];
    merge(pl, pv);
  };
  for (const key of keys) {
    const hours = agg.hours.get(key);
    if (hours && range.interval === "hour") {
      for (let h = fromMs / HOUR_MS, point = 0; h < endMs / HOUR_MS; h++, point++) {
        const bucket = hours.get(h);
        if (!bucket) continue;
        add(point, bucket.counters, (pl, pv) => {
          bucket.latency.mergeInto(pl);
          bucket.retrieval.mergeInto(retrieval);
          bucket.generation.mergeInto(generation);
          bucket.callers.mergeInto(pv);
        });
      }
    } else if (hours) {
      // Day and week points are sums of whole days: merge cached day rollups, not 24 buckets each.
      let point = 0;
      for (let d = fromMs / DAY_MS; d < endMs / DAY_MS; d++) {
        while (point + 1 < starts.length && (starts[point + 1] ?? Number.POSITIVE_INFINITY) <= d * DAY_MS)
          point += 1;
        const day = agg.rollup(key, d);
        if (!day) continue;
        add(point, day.counters, (pl, pv) => {
          addDense(pl, day.latency);
          addDense(retrieval, day.retrieval);
          addDense(generation, day.generation);
          pv.mergeAccumulator(day.callers);
        });
      }
    }
  }
  for (const [i, pc] of pointCounters.entries()) {
    for (const k of COUNTER_KEYS) totals[k] += pc[k];
    const pl = pointLatency[i];
    const pv = pointCallers[i];
    if (pl) addDense(latency, pl);
    if (pv) callers.mergeAccumulator(pv);
  }

  const timeseries: AnalyticsPoint[] = starts.map((start, i) => {
    const c = pointCounters[i] ?? zeroCounters();
    const l = pointLatency[i] ?? denseHistogram();
    return {
      start: new Date(start).toISOString(),
      queries: c.queries,
      conversations: c.conversations,
      visitors: pointCallers[i]?.estimate() ?? 0,
      errors: c.errors,
      unanswered: c.unanswered,
      tokensUsed: c.tokensUsed,
      feedbackUp: c.feedbackUp,
      feedbackDown: c.feedbackDown,
      uncertain: c.uncertain,
      handoffs: c.handoffs,
      latencyP50: r1(percentile(l, 0.5)),
      latencyP95: r1(percentile(l, 0.95)),
    };
  });

  const avg = (sum: number) => (totals.queries === 0 ? null : r1(sum / totals.queries));
  const stats = (dense: Float64Array, sum: number) => ({
    p50: r1(percentile(dense, 0.5)),
    p95: r1(percentile(dense, 0.95)),
    avg: avg(sum),
  });

  const tops = topLists(agg, keys, fromMs, endMs, range.limit);
  return {
    agentId,
    from: range.from,
    to: range.to,
    interval: range.interval,
    totals: {
      queries: totals.queries,
      conversations: totals.conversations,
      visitors: callers.estimate(),
      tokensUsed: totals.tokensUsed,
      streamedShare: share(totals.streamed, totals.queries),
      widgetShare: share(totals.widget, totals.queries),
      apiShare: share(totals.api, totals.queries),
      errors: totals.errors,
      unanswered: totals.unanswered,
      feedbackUp: totals.feedbackUp,
      feedbackDown: totals.feedbackDown,
      ...outcomeTotals(totals),
    },
    latency: {
      total: stats(latency, totals.latencySum),
      retrieval: stats(retrieval, totals.retrievalSum),
      generation: stats(generation, totals.generationSum),
    },
    timeseries,
    ...tops,
  };
}

/** Outcome rates over the answers that were judged (not failed, not stopped); resolution over conversations. */
function outcomeTotals(t: HourCounters) {
  const fallback = t.unanswered;
  const answered = Math.max(0, t.queries - t.errors - t.cancelled - fallback - t.uncertain);
  const judged = answered + t.uncertain + fallback;
  return {
    answered,
    uncertain: t.uncertain,
    answeredRate: share(answered, judged),
    uncertainRate: share(t.uncertain, judged),
    fallbackRate: share(fallback, judged),
    handoffs: t.handoffs,
    unresolvedConversations: Math.min(t.unresolved, t.conversations),
    resolutionRate:
      t.conversations === 0 ? 0 : share(Math.max(0, t.conversations - t.unresolved), t.conversations),
  };
}

function addDense(into: Float64Array, from: Float64Array): void {
  for (let i = 0; i < from.length; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
}

function topLists(agg: Aggregates, keys: string[], fromMs: number, endMs: number, limit: number) {
  // Plain number maps: a 30-day merge touches tens of thousands of entries and allocates nothing per entry.
  const questions = new Map<string, number>();
  const unanswered = new Map<string, number>();
  const lastAsked = new Map<string, number>();
  const citations = new Map<string, number>();
  const docs = new Map<string, CitedDoc>();
  for (const key of keys) {
    const days = agg.days.get(key);
    if (!days) continue;
    for (let d = fromMs / DAY_MS; d < endMs / DAY_MS; d++) {
      const tops = days.get(d);
      if (!tops) continue;
      for (const [k, v] of tops.questions) questions.set(k, (questions.get(k) ?? 0) + v.count);
      for (const [k, v] of tops.unanswered) {
        unanswered.set(k, (unanswered.get(k) ?? 0) + v.count);
        if (v.last > (lastAsked.get(k) ?? 0)) lastAsked.set(k, v.last);
      }
      for (const [id, doc] of tops.sources) {
        citations.set(id, (citations.get(id) ?? 0) + doc.count);
        docs.set(id, doc);
      }
    }
  }
  const top = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, limit);
  return {
    topSources: top(citations).map(([documentId, count]) => ({
      documentId,
      title: docs.get(documentId)?.title ?? "",
      dataSourceId: docs.get(documentId)?.dataSourceId ?? "",
      citations: count,
    })),
    topQuestions: top(questions).map(([question, count]) => ({ question, count })),
    unansweredQuestions: top(unanswered).map(([question, count]) => ({
      question,
      count,
      lastAskedAt: new Date(lastAsked.get(question) ?? 0).toISOString(),
    })),
  };
}
