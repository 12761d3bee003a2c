import { z } from "@hono/zod-openapi";
import {
  citationSchema,
  conversationDetailSchema,
  documentSchema,
  feedbackRequestSchema,
  pageQuerySchema,
  queryResponseSchema,
  searchResponseSchema,
  syncRunSchema,
} from "@lore/shared";

/*
 * Schemas the OpenAPI document needs that `@lore/shared` does not (yet) export: request shapes
 * declared inside route files (list filters, multipart forms, the widget's feedback) and response
 * shapes built inline by handlers. When shared/ exports one of these, import that one instead.
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
    usage: z.object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
    }),
    sources: z.array(citationSchema).openapi({ description: "Lore extra: the citations of the answer" }),
    conversationId: id,
  })
  .openapi("ChatCompletion");

export const widgetQueryResponseSchema = queryResponseSchema
  .extend({ visitorToken: z.string().openapi({ description: "send it back to continue the conversation" }) })
  .openapi("WidgetQueryResponse");

export const widgetFeedbackRequestSchema = feedbackRequestSchema
  .extend({
    visitorToken: z.string().min(1).max(4000).openapi({ description: "from the widget's query response" }),
  })
  .openapi("WidgetFeedbackRequest");
