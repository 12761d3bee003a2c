import {
  conversationDetailSchema,
  citationSchema,
  documentSchema,
  pageQuerySchema,
  queryResponseSchema,
  searchResponseSchema,
  syncRunSchema,
} from "@lore/shared";
import { z } from "@hono/zod-openapi";

/*
 * Schemas the OpenAPI document needs that `@lore/shared` does not (yet) export: request shapes
 * declared inside route files, and the shapes of capabilities still being built (analytics,
 * webhooks) as DESIGN.md and the issues describe them. When a capability exports its own schema
 * from shared/, the routes table should import that one and the twin here should go.
 */

const id = z.string().uuid();

export const listAgentsQuerySchema = pageQuerySchema.extend({
  workspace_id: id.optional().openapi({ description: "only this workspace's agents" }),
});

export const listDataSourcesQuerySchema = pageQuerySchema.extend({
  workspace_id: id.optional(),
  type: z.enum(["file", "web", "notion", "text"]).optional(),
  status: z.enum(["queued", "syncing", "ready", "failed"]).optional(),
});

export const createFileSourceFormSchema = z
  .object({
    name: z.string().min(1).max(200),
    type: z.literal("file"),
    workspaceId: id.optional(),
    files: z.array(z.string().openapi({ format: "binary" })).min(1),
  })
  .openapi("CreateFileSourceForm");

export const uploadFilesFormSchema = z
  .object({ files: z.array(z.string().openapi({ format: "binary" })).min(1) })
  .openapi("UploadFilesForm");

export const uploadFilesResponseSchema = z
  .object({ documents: z.array(documentSchema), syncRun: syncRunSchema })
  .openapi("UploadFilesResponse");

export const conversationWithMessagesSchema = conversationDetailSchema.openapi("ConversationDetail");
export const searchResultSchema = searchResponseSchema.openapi("SearchResponse");

export const chatCompletionResponseSchema = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion"),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal("assistant"), content: z.string() }),
        finish_reason: z.string(),
      }),
    ),
    usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
    sources: z.array(citationSchema).openapi({ description: "Lore extra: the citations of the answer" }),
    conversationId: id,
  })
  .openapi("ChatCompletion");

export const widgetQueryResponseSchema = queryResponseSchema
  .extend({ visitorToken: z.string().openapi({ description: "send it back to continue the conversation" }) })
  .openapi("WidgetQueryResponse");

// --- Analytics (issue 6; provisional) -----------------------------------------------------------

export const analyticsQuerySchema = z.object({
  from: z.string().optional().openapi({ description: "ISO date or timestamp; default 30 days before `to`" }),
  to: z.string().optional().openapi({ description: "ISO date or timestamp; default now" }),
  interval: z.enum(["hour", "day", "week"]).default("day"),
});

const counters = {
  queries: z.number().int(),
  conversations: z.number().int(),
  callers: z.number().int(),
  tokensUsed: z.number().int(),
  streamed: z.number().int(),
  widget: z.number().int(),
  api: z.number().int(),
  errors: z.number().int(),
  unanswered: z.number().int(),
  feedbackUp: z.number().int(),
  feedbackDown: z.number().int(),
};
const latencyStats = z.object({ p50: z.number(), p95: z.number(), avg: z.number() });

export const analyticsSchema = z
  .object({
    agentId: id,
    from: z.string(),
    to: z.string(),
    interval: z.enum(["hour", "day", "week"]),
    totals: z.object(counters),
    latency: z.object({ total: latencyStats, retrieval: latencyStats, generation: latencyStats }),
    timeseries: z.array(z.object({ start: z.string(), ...counters })),
    topSources: z.array(z.object({ documentId: z.string(), title: z.string(), dataSourceName: z.string(), citations: z.number().int() })),
    topQuestions: z.array(z.object({ question: z.string(), count: z.number().int() })),
    unansweredQuestions: z.array(z.object({ question: z.string(), count: z.number().int(), lastAskedAt: z.string() })),
  })
  .openapi("AgentAnalytics");

// --- Webhooks (issue 6; provisional) ------------------------------------------------------------

export const webhookEventSchema = z.enum([
  "data_source.sync.completed",
  "data_source.sync.failed",
  "agent.ready",
  "message.feedback",
]);

export const webhookSchema = z
  .object({
    id,
    workspaceId: id,
    url: z.string().url(),
    events: z.array(webhookEventSchema),
    active: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Webhook");

export const createdWebhookSchema = webhookSchema
  .extend({ secret: z.string().openapi({ description: "HMAC-SHA256 signing secret, shown once" }) })
  .openapi("CreatedWebhook");

export const createWebhookRequestSchema = z
  .object({ url: z.string().url().max(2000), events: z.array(webhookEventSchema).min(1), active: z.boolean().optional() })
  .openapi("CreateWebhook");

export const updateWebhookRequestSchema = createWebhookRequestSchema.partial().openapi("UpdateWebhook");

export const webhookDeliverySchema = z
  .object({
    id,
    webhookId: id,
    event: webhookEventSchema,
    status: z.enum(["pending", "succeeded", "failed"]),
    attempts: z.number().int(),
    responseStatus: z.number().int().nullable(),
    error: z.string().nullable(),
    createdAt: z.string(),
    deliveredAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
  })
  .openapi("WebhookDelivery");
