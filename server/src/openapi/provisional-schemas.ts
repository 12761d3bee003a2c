import { z } from "@hono/zod-openapi";
import {
  citationSchema,
  conversationDetailSchema,
  documentSchema,
  feedbackRequestSchema,
  pageQuerySchema,
  queryRequestSchema,
  queryResponseSchema,
  searchResponseSchema,
  syncRunSchema,
} from "@lore/shared";

/*
 * Schemas the OpenAPI document needs that `@lore/shared` does not export: request shapes declared
 * inside route files (list filters, multipart forms, the widget's query and feedback) and response
 * shapes built inline by handlers. Each mirrors its handler; everything else comes from shared/.
 * When shared/ exports one of these, import that one instead.
 */

const id = z.string().uuid();

export const healthSchema = z.object({ status: z.literal("ok") }).openapi("Health");
export const readinessSchema = z
  .object({
    status: z.literal("ready"),
    schemaVersion: z.number().int().openapi({ description: "the store's migration level" }),
  })
  .openapi("Readiness");

export const listAgentsQuerySchema = pageQuerySchema.extend({
  workspace_id: id.optional().openapi({ description: "only this workspace's agents (404 if not a member)" }),
});

export const listDataSourcesQuerySchema = pageQuerySchema.extend({
  workspace_id: id.optional().openapi({ description: "only this workspace's sources (404 if not a member)" }),
  type: z.enum(["file", "web", "notion", "text"]).optional(),
  status: z.enum(["queued", "syncing", "ready", "failed"]).optional(),
});

export const createFileSourceFormSchema = z
  .object({
    name: z.string().min(1).max(200),
    type: z.literal("file"),
    workspaceId: id.optional(),
    files: z
      .array(z.string().openapi({ format: "binary" }))
      .min(1)
      .openapi({ description: "one part per file (PDF, DOCX, Markdown, HTML, TXT, CSV)" }),
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

const usageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int().openapi({ description: "the answer's `metadata.tokensUsed`" }),
});

export const chatCompletionResponseSchema = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion"),
    created: z.number().int(),
    model: z.string().openapi({ description: "the agent's configured model" }),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal("assistant"), content: z.string() }),
        finish_reason: z.string(),
      }),
    ),
    usage: usageSchema,
    sources: z.array(citationSchema).openapi({ description: "Lore extra: the citations of the answer" }),
    conversationId: id.openapi({ description: "Lore extra: where the exchange was stored" }),
  })
  .openapi("ChatCompletion");

/** One `data:` line of a streamed chat completion (the stream ends with `data: [DONE]`). */
export const chatCompletionChunkSchema = z
  .union([
    z.object({
      id: z.string(),
      object: z.literal("chat.completion.chunk"),
      created: z.number().int(),
      model: z.string(),
      choices: z.array(
        z.object({
          index: z.number().int(),
          delta: z.object({ role: z.literal("assistant").optional(), content: z.string().optional() }),
          finish_reason: z.string().nullable(),
        }),
      ),
      conversationId: id.optional().openapi({ description: "on the first chunk" }),
      sources: z.array(citationSchema).optional().openapi({ description: "on the last chunk" }),
      usage: usageSchema.optional().openapi({ description: "on the last chunk" }),
    }),
    z.object({
      error: z.object({
        message: z.string(),
        type: z.string().openapi({ description: "a Lore error code" }),
      }),
    }),
  ])
  .openapi("ChatCompletionChunk");

/** The widget's query: the agent query without `dataSourceIds`, plus the visitor token. */
export const widgetQueryBodySchema = queryRequestSchema
  .omit({ dataSourceIds: true })
  .extend({
    visitorToken: z
      .string()
      .max(4000)
      .optional()
      .openapi({ description: "from an earlier answer; required to continue a conversation" }),
  })
  .openapi("WidgetQueryRequest");

export const widgetQueryResponseSchema = queryResponseSchema
  .extend({ visitorToken: z.string().openapi({ description: "send it back to continue the conversation" }) })
  .openapi("WidgetQueryResponse");

export const widgetFeedbackRequestSchema = feedbackRequestSchema
  .extend({
    visitorToken: z.string().min(1).max(4000).openapi({ description: "from the widget's query response" }),
  })
  .openapi("WidgetFeedbackRequest");
