import { z } from "@hono/zod-openapi";
import { includeConsoleSchema } from "./answers.ts";
import { idSchema } from "./common.ts";

export const analyticsIntervalSchema = z.enum(["hour", "day", "week"]);
export type AnalyticsInterval = z.infer<typeof analyticsIntervalSchema>;

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date like 2025-01-31")
  .refine(
    (s) =>
      !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    "not a valid date",
  );

/** `from`/`to` are whole UTC days, both inclusive; default the last 30 days ending today. */
export const analyticsQuerySchema = z.object({
  from: isoDate.optional().openapi({ description: "First UTC day (inclusive); default 29 days before `to`" }),
  to: isoDate.optional().openapi({ description: "Last UTC day (inclusive); default today" }),
  interval: analyticsIntervalSchema.default("day"),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .openapi({ description: "Entries in each top list" }),
  includeConsole: includeConsoleSchema,
});
export type AnalyticsQuery = z.infer<typeof analyticsQuerySchema>;

const latencyStatsSchema = z.object({
  /** Null when the range holds no queries. */
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  avg: z.number().nullable(),
});

export const analyticsTotalsSchema = z.object({
  queries: z.number().int(),
  conversations: z.number().int(),
  visitors: z
    .number()
    .int()
    .openapi({ description: "Distinct callers (HyperLogLog estimate, ±3% above a few dozen)" }),
  tokensUsed: z.number().int(),
  streamedShare: z.number().min(0).max(1),
  widgetShare: z.number().min(0).max(1),
  apiShare: z.number().min(0).max(1),
  errors: z.number().int(),
  unanswered: z.number().int(),
  feedbackUp: z.number().int(),
  feedbackDown: z.number().int(),
  answered: z.number().int().openapi({ description: "answers stated from the sources (outcome `answered`)" }),
  uncertain: z.number().int().openapi({ description: "answers given with a doubt (outcome `uncertain`)" }),
  answeredRate: z.number().min(0).max(1).openapi({
    description:
      "`answered` over the answers judged (answered + uncertain + fallback; not failed or stopped)",
  }),
  uncertainRate: z.number().min(0).max(1),
  fallbackRate: z
    .number()
    .min(0)
    .max(1)
    .openapi({ description: "`unanswered` (the fallback) over the answers judged" }),
  handoffs: z.number().int().openapi({ description: "contact requests visitors sent (the handoff form)" }),
  unresolvedConversations: z.number().int().openapi({
    description:
      "conversations begun in the range with a handoff, a thumbs-down, or the fallback as their last answer",
  }),
  resolutionRate: z.number().min(0).max(1).openapi({
    description:
      "share of the conversations begun in the range that are resolved: no handoff, no thumbs-down, and their last answer not the fallback",
  }),
});

export const analyticsPointSchema = z.object({
  start: z
    .string()
    .openapi({ description: "Start of the interval (UTC); it runs to the next point's start" }),
  queries: z.number().int(),
  conversations: z.number().int(),
  visitors: z.number().int(),
  errors: z.number().int(),
  unanswered: z.number().int(),
  tokensUsed: z.number().int(),
  feedbackUp: z.number().int(),
  feedbackDown: z.number().int(),
  uncertain: z.number().int(),
  handoffs: z.number().int(),
  latencyP50: z.number().nullable(),
  latencyP95: z.number().nullable(),
});
export type AnalyticsPoint = z.infer<typeof analyticsPointSchema>;

export const analyticsSchema = z
  .object({
    agentId: idSchema,
    from: z.string(),
    to: z.string(),
    interval: analyticsIntervalSchema,
    totals: analyticsTotalsSchema,
    latency: z.object({
      total: latencyStatsSchema,
      retrieval: latencyStatsSchema,
      generation: latencyStatsSchema,
    }),
    timeseries: z.array(analyticsPointSchema),
    topSources: z.array(
      z.object({
        documentId: z.string(),
        title: z.string(),
        dataSourceId: z.string(),
        citations: z.number().int(),
      }),
    ),
    topQuestions: z.array(z.object({ question: z.string(), count: z.number().int() })),
    unansweredQuestions: z
      .array(z.object({ question: z.string(), count: z.number().int(), lastAskedAt: z.string() }))
      .openapi({ description: "questions answered with the fallback or with a doubt (`uncertain`)" }),
  })
  .openapi("AgentAnalytics");
export type AgentAnalytics = z.infer<typeof analyticsSchema>;
