import { describe, expect, it } from "vitest";
import type { AnsweredQuery } from "../events/event-bus.ts";
import {
  Aggregates,
  DayTops,
  dayTopsJsonSchema,
  HourBucket,
  hourBucketJsonSchema,
  intervalStarts,
} from "./aggregates.ts";
import { denseHistogram, percentile, SparseHistogram, sparseHistogramJsonSchema } from "./histogram.ts";
import { DistinctAccumulator, DistinctCounter, hashCaller } from "./hyperloglog.ts";
import { normalizeQuestion } from "./normalize-question.ts";

const AGENT = "agent-1";

function query(at: string, over: Partial<AnsweredQuery> = {}): AnsweredQuery {
  return {
    agentId: AGENT,
    workspaceId: "ws",
    conversationId: "c",
    messageId: crypto.randomUUID(),
    at,
    channel: "api",
    streamed: false,
    callerId: "caller-1",
    question: "How do I reset my password?",
    newConversation: true,
    answered: true,
    error: null,
    latency: 100,
    retrievalTime: 20,
    generationTime: 80,
    tokensUsed: 10,
    cited: [],
    ...over,
  };
}

function exactPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1] ?? Number.NaN;
}

describe("latency histograms", () => {
  it("give p50 and p95 within 2.5% of the exact nearest-rank values", () => {
    const values = Array.from({ length: 1000 }, (_, i) => 5 + ((i * 7919) % 997) * 1.3);
    const h = new SparseHistogram();
    for (const v of values) h.add(v);
    const dense = denseHistogram();
    h.mergeInto(dense);
    for (const p of [0.5, 0.95]) {
      const exact = exactPercentile(values, p);
      expect(Math.abs((percentile(dense, p) ?? 0) - exact) / exact).toBeLessThan(0.025);
    }
  });

  it("merge buckets so a range's percentiles are those of all its values", () => {
    const agg = new Aggregates();
    const latencies = [10, 20, 30, 40, 50, 60, 70, 80, 90, 1000];
    for (const [i, latency] of latencies.entries()) {
      agg.addQuery(query(`2025-03-0${1 + (i % 3)}T0${i % 10}:00:00Z`, { latency }));
    }
    const report = agg.report(AGENT, { from: "2025-03-01", to: "2025-03-03", interval: "day", limit: 10 });
    expect(Math.abs((report.latency.total.p50 ?? 0) - 50) / 50).toBeLessThan(0.025);
    expect(Math.abs((report.latency.total.p95 ?? 0) - 1000) / 1000).toBeLessThan(0.025);
    expect(report.latency.total.avg).toBe(145);
  });

  it("report null latency for a range without queries", () => {
    const report = new Aggregates().report(AGENT, {
      from: "2025-03-01",
      to: "2025-03-01",
      interval: "day",
      limit: 10,
    });
    expect(report.latency.total).toEqual({ p50: null, p95: null, avg: null });
    expect(report.timeseries).toEqual([
      expect.objectContaining({ start: "2025-03-01T00:00:00.000Z", queries: 0, latencyP50: null }),
    ]);
  });
});

describe("counting", () => {
  const agg = new Aggregates();
  agg.addQuery(query("2025-03-01T09:15:00Z", { channel: "widget", streamed: true, callerId: "v1" }));
  agg.addQuery(
    query("2025-03-01T09:45:00Z", {
      newConversation: false,
      callerId: "v1",
      answered: false,
      question: "Where is the moon?",
    }),
  );
  agg.addQuery(
    query("2025-03-03T23:59:59Z", {
      channel: "openai",
      callerId: "k1",
      error: "upstream_error",
      answered: false,
    }),
  );
  agg.addQuery(query("2025-03-03T10:00:00Z", { error: "cancelled", answered: false, callerId: "v2" }));
  agg.addQuery(query("2025-03-04T00:00:00Z", { callerId: "v3" }));

  it("totals queries, conversations, visitors, shares, errors and fallbacks in the range", () => {
    const r = agg.report(AGENT, { from: "2025-03-01", to: "2025-03-03", interval: "day", limit: 10 });
    expect(r.totals).toEqual({
      queries: 4,
      conversations: 3,
      visitors: 3,
      tokensUsed: 40,
      streamedShare: 0.25,
      widgetShare: 0.25,
      apiShare: 0.75,
      errors: 1,
      unanswered: 1,
      feedbackUp: 0,
      feedbackDown: 0,
      // Judged: the answer and the fallback (the error and the stopped answer are not).
      answered: 1,
      uncertain: 0,
      answeredRate: 0.5,
      uncertainRate: 0,
      fallbackRate: 0.5,
      handoffs: 0,
      unresolvedConversations: 0,
      resolutionRate: 1,
    });
    expect(r.unansweredQuestions).toEqual([
      { question: "where is the moon", count: 1, lastAskedAt: "2025-03-01T09:45:00.000Z" },
    ]);
  });

  it("zero-fills days without queries and puts each query on its own day", () => {
    const r = agg.report(AGENT, { from: "2025-02-28", to: "2025-03-04", interval: "day", limit: 10 });
    expect(r.timeseries.map((p) => [p.start.slice(0, 10), p.queries])).toEqual([
      ["2025-02-28", 0],
      ["2025-03-01", 2],
      ["2025-03-02", 0],
      ["2025-03-03", 2],
      ["2025-03-04", 1],
    ]);
  });

  it("splits hours at the hour and leaves out what falls outside from/to", () => {
    const r = agg.report(AGENT, { from: "2025-03-01", to: "2025-03-01", interval: "hour", limit: 10 });
    expect(r.timeseries).toHaveLength(24);
    expect(r.timeseries[9]).toMatchObject({
      start: "2025-03-01T09:00:00.000Z",
      queries: 2,
      unanswered: 1,
      visitors: 1,
    });
    expect(r.timeseries.reduce((n, p) => n + p.queries, 0)).toBe(2);
    const only4th = agg.report(AGENT, { from: "2025-03-04", to: "2025-03-04", interval: "day", limit: 10 });
    expect(only4th.totals.queries).toBe(1);
  });

  it("cuts weeks on Mondays, the first point starting at from", () => {
    // 2025-03-01 is a Saturday, 2025-03-03 a Monday.
    const r = agg.report(AGENT, { from: "2025-03-01", to: "2025-03-16", interval: "week", limit: 10 });
    expect(r.timeseries.map((p) => [p.start.slice(0, 10), p.queries])).toEqual([
      ["2025-03-01", 2],
      ["2025-03-03", 3],
      ["2025-03-10", 0],
    ]);
  });

  it("counts a rating once, and moves it when it changes", () => {
    const a = new Aggregates();
    a.addFeedback(AGENT, Date.parse("2025-03-01T10:00:00Z"), "up", 1);
    a.addFeedback(AGENT, Date.parse("2025-03-01T10:00:00Z"), "up", -1);
    a.addFeedback(AGENT, Date.parse("2025-03-02T10:00:00Z"), "down", 1);
    const r = a.report(AGENT, { from: "2025-03-01", to: "2025-03-02", interval: "day", limit: 10 });
    expect(r.totals).toMatchObject({ feedbackUp: 0, feedbackDown: 1 });
    expect(r.timeseries.map((p) => p.feedbackDown)).toEqual([0, 1]);
  });
});

describe("day rollups", () => {
  it("reflect an answer recorded after the day was first read", () => {
    const agg = new Aggregates();
    const range = { from: "2025-03-01", to: "2025-03-07", interval: "week" as const, limit: 10 };
    agg.addQuery(query("2025-03-01T10:00:00Z", { latency: 10 }));
    expect(agg.report(AGENT, range).totals.queries).toBe(1);
    agg.addQuery(query("2025-03-01T23:00:00Z", { latency: 30, callerId: "late" }));
    const again = agg.report(AGENT, range);
    expect(again.totals).toMatchObject({ queries: 2, visitors: 2 });
    expect(again.latency.total.avg).toBe(20);
  });
});

describe("top lists", () => {
  it("group questions that differ only in case and punctuation", () => {
    const agg = new Aggregates();
    for (const q of [
      "How do I reset my password?",
      "how do i reset my PASSWORD",
      "  How do I reset   my password!!",
      "What's Lore?",
    ]) {
      agg.addQuery(query("2025-03-01T10:00:00Z", { question: q }));
    }
    const r = agg.report(AGENT, { from: "2025-03-01", to: "2025-03-01", interval: "day", limit: 10 });
    expect(r.topQuestions).toEqual([
      { question: "how do i reset my password", count: 3 },
      { question: "whats lore", count: 1 },
    ]);
    expect(normalizeQuestion("Prix: 10€ — ÉTÉ?")).toBe("prix 10 été");
  });

  it("rank the most cited documents over the range", () => {
    const agg = new Aggregates();
    const doc = (n: number) => ({ documentId: `d${n}`, title: `Doc ${n}`, dataSourceId: "s1" });
    agg.addQuery(query("2025-03-01T10:00:00Z", { cited: [doc(1), doc(2)] }));
    agg.addQuery(query("2025-03-02T10:00:00Z", { cited: [doc(2)] }));
    agg.addQuery(query("2025-03-05T10:00:00Z", { cited: [doc(3), doc(3)] }));
    const r = agg.report(AGENT, { from: "2025-03-01", to: "2025-03-02", interval: "day", limit: 10 });
    expect(r.topSources).toEqual([
      { documentId: "d2", title: "Doc 2", dataSourceId: "s1", citations: 2 },
      { documentId: "d1", title: "Doc 1", dataSourceId: "s1", citations: 1 },
    ]);
  });
});

describe("distinct callers", () => {
  it("are exact while few and within 5% when many", () => {
    const small = new DistinctAccumulator();
    for (let i = 0; i < 50; i++) small.add(hashCaller(`v${i % 40}`));
    expect(small.estimate()).toBe(40);

    const buckets = Array.from({ length: 24 }, () => new DistinctCounter());
    for (let i = 0; i < 60_000; i++) buckets[i % 24]?.add(hashCaller(`visitor-${i % 20_000}`));
    const acc = new DistinctAccumulator();
    for (const b of buckets) DistinctCounter.fromJSON(b.toJSON()).mergeInto(acc);
    expect(Math.abs(acc.estimate() - 20_000) / 20_000).toBeLessThan(0.05);
  });
});

describe("interval starts", () => {
  it("cover the range in whole hours, days or Monday weeks", () => {
    const from = Date.parse("2025-03-05T00:00:00Z"); // a Wednesday
    expect(intervalStarts(from, from + 86_400_000, "hour")).toHaveLength(24);
    const weeks = intervalStarts(from, from + 14 * 86_400_000, "week").map((t) =>
      new Date(t).toISOString().slice(0, 10),
    );
    expect(weeks).toEqual(["2025-03-05", "2025-03-10", "2025-03-17"]);
  });
});

describe("stored buckets", () => {
  it("come back from their JSON through the schemas unchanged", () => {
    const agg = new Aggregates();
    agg.addQuery(
      query("2025-03-05T10:00:00Z", { cited: [{ documentId: "d1", title: "Doc 1", dataSourceId: "s1" }] }),
    );
    agg.addQuery(query("2025-03-05T10:30:00Z", { answered: false, latency: 2_500, callerId: "caller-2" }));
    const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value));
    for (const bucket of agg.hours.get(AGENT)?.values() ?? []) {
      const decoded = HourBucket.fromJSON(hourBucketJsonSchema.parse(roundTrip(bucket)));
      expect(decoded.toJSON()).toEqual(bucket.toJSON());
    }
    for (const tops of agg.days.get(AGENT)?.values() ?? []) {
      expect(DayTops.fromJSON(dayTopsJsonSchema.parse(roundTrip(tops))).toJSON()).toEqual(tops.toJSON());
    }
    expect(agg.hours.get(AGENT)?.size).toBe(1);
  });

  it("are refused when their shape is wrong", () => {
    expect(sparseHistogramJsonSchema.safeParse([[1, 2], [5]]).success).toBe(false);
    expect(hourBucketJsonSchema.safeParse({ c: [1], l: [[], []], r: [[], []], g: [[], []] }).success).toBe(
      false,
    );
    expect(dayTopsJsonSchema.safeParse({ q: [["hi", "1", 2]], u: [], s: [] }).success).toBe(false);
  });
});

describe("the console's Try-it questions", () => {
  it("are left out of a report unless it includes them, hourly and daily, top lists too", () => {
    const agg = new Aggregates();
    agg.addQuery(query("2025-05-01T10:00:00Z", { channel: "widget", question: "Where is my order?" }));
    agg.addQuery(query("2025-05-01T11:00:00Z", { channel: "console", question: "Owner testing a question" }));
    agg.addFeedback(`${AGENT}+console`, Date.parse("2025-05-01T11:00:00Z"), "down", 1);
    for (const interval of ["hour", "day", "week"] as const) {
      const range = { from: "2025-05-01", to: "2025-05-01", interval, limit: 10 };
      const visitors = agg.report(AGENT, range);
      expect(visitors.totals).toMatchObject({ queries: 1, conversations: 1, feedbackDown: 0 });
      expect(visitors.topQuestions.map((q) => q.question)).toEqual(["where is my order"]);
      const all = agg.report(AGENT, { ...range, includeConsole: true });
      expect(all.totals).toMatchObject({ queries: 2, conversations: 2, feedbackDown: 1 });
      expect(all.topQuestions).toHaveLength(2);
    }
  });
});
