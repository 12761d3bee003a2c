import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../errors.ts";
import { type AnsweredQuery, EventBus } from "../events/event-bus.ts";
import { createLogger } from "../log/logger.ts";
import { AnalyticsService } from "./analytics-service.ts";

const AGENT = "0b7c8a52-6c39-4d5e-9d8e-4f3f6f1c2a11";
const logger = createLogger("silent");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb() {
  const dir = mkdtempSync(join(tmpdir(), "lore-analytics-"));
  dirs.push(dir);
  return () => connect(dir);
}

function query(at: string, over: Partial<AnsweredQuery> = {}): AnsweredQuery {
  return {
    agentId: AGENT,
    workspaceId: "ws",
    conversationId: "c",
    messageId: crypto.randomUUID(),
    at,
    channel: "widget",
    streamed: true,
    callerId: "visitor",
    question: "Hello?",
    newConversation: false,
    answered: true,
    error: null,
    latency: 42,
    retrievalTime: 2,
    generationTime: 40,
    tokensUsed: 5,
    cited: [],
    ...over,
  };
}

const range = { from: "2025-05-01", to: "2025-05-02", interval: "day" as const, limit: 10 };

describe("AnalyticsService", () => {
  it("keeps its numbers across a restart", async () => {
    const open = tempDb();
    const a = await AnalyticsService.open(await open(), { logger });
    a.record(query("2025-05-01T08:00:00Z", { answered: false }));
    a.record(query("2025-05-02T08:00:00Z", { callerId: "other" }));
    a.recordFeedback(AGENT, "m1", "up", Date.parse("2025-05-02T09:00:00Z"));
    await a.stop();
    const b = await AnalyticsService.open(await open(), { logger });
    expect(b.report(AGENT, range).totals).toMatchObject({
      queries: 2,
      unanswered: 1,
      visitors: 2,
      feedbackUp: 1,
    });
    await b.stop();
  });

  it("replays logged answers the stored buckets lag behind, without counting any twice", async () => {
    const open = tempDb();
    const a = await AnalyticsService.open(await open(), { logger, flushMs: 3_600_000 });
    a.record(query("2025-05-01T08:00:00Z"));
    a.record(query("2025-05-01T09:00:00Z"));
    await a.durable();
    await a.flush();
    a.record(query("2025-05-02T10:00:00Z", { error: "internal_error", answered: false }));
    a.recordFeedback(AGENT, "m1", "down", Date.parse("2025-05-02T11:00:00Z"));
    await a.durable(); // logged, buckets not written: as if the process died here
    const b = await AnalyticsService.open(await open(), { logger });
    const report = b.report(AGENT, range);
    expect(report.totals).toMatchObject({ queries: 3, errors: 1, feedbackDown: 1 });
    expect(report.timeseries.map((p) => p.queries)).toEqual([2, 1]);
    await b.stop();
    const c = await AnalyticsService.open(await open(), { logger });
    expect(c.report(AGENT, range).totals.queries).toBe(3);
    await c.stop();
  });

  it("counts feedback from the event bus, a changed rating once", async () => {
    const events = new EventBus();
    const a = await AnalyticsService.open(await tempDb()(), { logger, events });
    const feedback = (rating: "up" | "down") =>
      events.emit({
        type: "message.feedback",
        workspaceId: "ws",
        agentId: AGENT,
        conversationId: "c",
        messageId: "m1",
        rating,
        comment: null,
        reason: null,
        conversationCreatedAt: new Date().toISOString(),
        conversationChannel: "widget",
        lastAnswerFallback: false,
      });
    feedback("up");
    feedback("up");
    feedback("down");
    const today = new Date().toISOString().slice(0, 10);
    const totals = () => a.report(AGENT, { from: today, to: today, interval: "day", limit: 10 }).totals;
    // The bus delivers in order after the emitter's turn: the last rating landing settles the count.
    await vi.waitFor(() => expect(totals().feedbackDown).toBe(1));
    expect(totals()).toMatchObject({ feedbackUp: 0, feedbackDown: 1 });
    await a.stop();
  });

  it("counts the answers announced on the event bus", async () => {
    const events = new EventBus();
    const a = await AnalyticsService.open(await tempDb()(), { logger, events });
    const answered = (q: AnsweredQuery) =>
      events.emit({ type: "question.answered", workspaceId: "ws", query: q });
    answered(query("2025-05-01T08:00:00Z"));
    answered(query("2025-05-01T09:00:00Z", { answered: false, outcome: "fallback" }));
    await vi.waitFor(() =>
      expect(a.report(AGENT, range).totals).toMatchObject({ queries: 2, unanswered: 1 }),
    );
    await a.stop();
  });

  it("refuses to load a stored bucket of the wrong shape, naming its row", async () => {
    const open = tempDb();
    const a = await AnalyticsService.open(await open(), { logger });
    a.record(query("2025-05-01T08:00:00Z"));
    await a.stop();
    const db = await open();
    const table = await db.openTable("analytics_aggregates");
    const id = `h:${AGENT}:${Math.floor(Date.parse("2025-05-01T08:00:00Z") / 3_600_000)}`;
    await table.update({ where: `id = '${id}'`, values: { data: JSON.stringify({ c: "lots" }) } });
    await expect(AnalyticsService.open(db, { logger })).rejects.toThrow(`analytics row ${id} is malformed`);
  });

  it("refuses reversed, too long and too finely divided ranges", async () => {
    const a = await AnalyticsService.open(await tempDb()(), {
      logger,
      now: () => Date.parse("2025-06-30T12:00:00Z"),
    });
    const bad = (q: Parameters<AnalyticsService["report"]>[1]) => {
      try {
        a.report(AGENT, q);
        return null;
      } catch (error) {
        return error instanceof AppError ? error.code : "other";
      }
    };
    expect(bad({ from: "2025-05-02", to: "2025-05-01", interval: "day", limit: 10 })).toBe(
      "validation_error",
    );
    expect(bad({ from: "2024-01-01", to: "2025-05-01", interval: "day", limit: 10 })).toBe(
      "validation_error",
    );
    expect(bad({ from: "2025-01-01", to: "2025-05-01", interval: "hour", limit: 10 })).toBe(
      "validation_error",
    );
    expect(bad({ from: "2025-01-01", to: "2025-05-01", interval: "week", limit: 10 })).toBeNull();
    const defaults = a.report(AGENT, { interval: "day", limit: 10 });
    expect([defaults.from, defaults.to, defaults.timeseries.length]).toEqual([
      "2025-06-01",
      "2025-06-30",
      30,
    ]);
    await a.stop();
  });
});

describe("AnalyticsService honesty figures", () => {
  const at = (t: string) => Date.parse(`2025-05-01T${t}:00Z`);
  const started = (id: string) => ({ id, at: at("08:00") });

  it("reports outcome rates, handoffs and the share of conversations resolved, across restarts", async () => {
    const open = tempDb();
    const a = await AnalyticsService.open(await open(), { logger, flushMs: 3_600_000 });
    for (const [i, outcome] of (["answered", "answered", "uncertain", "fallback"] as const).entries()) {
      a.record(
        query("2025-05-01T08:00:00Z", {
          conversationId: `c${i}`,
          newConversation: true,
          question: `Question ${i}?`,
          outcome,
          answered: outcome !== "fallback",
        }),
      );
    }
    a.record(query("2025-05-01T08:30:00Z", { error: "cancelled", answered: false, outcome: null }));
    // c0: rated down then up again (resolved after all); c1: a handoff; c2: down; c3: its only
    // answer the fallback.
    a.recordFeedback(AGENT, "m0", "down", at("09:00"), started("c0"));
    a.recordFeedback(AGENT, "m0", "up", at("09:05"), started("c0"));
    a.recordHandoff(AGENT, "h1", started("c1"), at("09:10"));
    a.recordFeedback(AGENT, "m2", "down", at("09:20"), started("c2"));
    const expected = {
      queries: 5,
      conversations: 4,
      answered: 2,
      uncertain: 1,
      unanswered: 1,
      answeredRate: 0.5,
      uncertainRate: 0.25,
      fallbackRate: 0.25,
      handoffs: 1,
      unresolvedConversations: 3,
      resolutionRate: 0.25,
    };
    expect(a.report(AGENT, range).totals).toMatchObject(expected);
    // The uncertain and the fallback question are both "unanswered questions".
    expect(
      a
        .report(AGENT, range)
        .unansweredQuestions.map((q) => q.question)
        .sort(),
    ).toEqual(["question 2", "question 3"]);
    await a.durable();
    await a.flush();
    // After the buckets were stored: a rating that resolves c2 again, logged but not in the buckets.
    a.recordFeedback(AGENT, "m2", "up", at("10:00"), started("c2"));
    await a.durable();
    const b = await AnalyticsService.open(await open(), { logger });
    expect(b.report(AGENT, range).totals).toMatchObject({
      ...expected,
      unresolvedConversations: 2,
      resolutionRate: 0.5,
    });
    await b.stop();
  });

  it("counts a conversation whose last answer is the fallback as unresolved until a later answer is not (issue #52)", async () => {
    const open = tempDb();
    const a = await AnalyticsService.open(await open(), { logger, flushMs: 3_600_000 });
    const ask = (time: string, conversationId: string, outcome: "answered" | "fallback", after?: boolean) =>
      a.record(
        query(`2025-05-01T${time}:00Z`, {
          conversationId,
          newConversation: after === undefined,
          conversationAt: "2025-05-01T08:00:00.000Z",
          ...(after === undefined ? {} : { afterFallback: after }),
          outcome,
          answered: outcome === "answered",
        }),
      );
    const totals = (s: AnalyticsService) => s.report(AGENT, range).totals;
    // f1: the fallback, then an answer; f2: an answer, then the fallback; f3: only the fallback.
    ask("08:00", "f1", "fallback");
    ask("08:01", "f2", "answered");
    ask("08:02", "f3", "fallback");
    expect(totals(a)).toMatchObject({ conversations: 3, unresolvedConversations: 2 });
    ask("08:10", "f1", "answered", true);
    ask("08:11", "f2", "fallback", false);
    expect(totals(a)).toMatchObject({ unresolvedConversations: 2 });
    // A thumbs-down on f3 (already unresolved) changes nothing; a handoff on f2 neither.
    a.recordFeedback(AGENT, "m3", "down", Date.parse("2025-05-01T08:20:00Z"), {
      id: "f3",
      at: Date.parse("2025-05-01T08:00:00Z"),
      lastFallback: true,
    });
    a.recordHandoff(AGENT, "h2", { id: "f2", at: Date.parse("2025-05-01T08:00:00Z"), lastFallback: true });
    expect(totals(a)).toMatchObject({ unresolvedConversations: 2, resolutionRate: 0.3333 });
    await a.durable();
    await a.flush();
    // After a restart the answers' own record says f3's last answer was the fallback: the thumbs-down
    // taken back leaves it unresolved, and an answer resolves it.
    await a.stop();
    const b = await AnalyticsService.open(await open(), { logger, flushMs: 3_600_000 });
    expect(totals(b)).toMatchObject({ unresolvedConversations: 2 });
    b.recordFeedback(AGENT, "m3", "up", Date.parse("2025-05-01T09:00:00Z"), {
      id: "f3",
      at: Date.parse("2025-05-01T08:00:00Z"),
      lastFallback: true,
    });
    expect(totals(b)).toMatchObject({ unresolvedConversations: 2 });
    b.record(
      query("2025-05-01T09:05:00Z", {
        conversationId: "f3",
        conversationAt: "2025-05-01T08:00:00.000Z",
        afterFallback: true,
        outcome: "answered",
      }),
    );
    expect(totals(b)).toMatchObject({ unresolvedConversations: 1 });
    // Logged but not in the stored buckets (b never flushed): replayed in order on the next start,
    // with the same result.
    await b.durable();
    const c = await AnalyticsService.open(await open(), { logger });
    expect(totals(c)).toMatchObject({ conversations: 3, unresolvedConversations: 1, resolutionRate: 0.6667 });
    await c.stop();
    await b.stop();
  });
});
