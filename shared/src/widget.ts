import { z } from "@hono/zod-openapi";
import { themeSchema } from "./agents.ts";
import {
  deviceClassSchema,
  feedbackRequestSchema,
  pageUrlSchema,
  queryRequestSchema,
  queryResponseSchema,
} from "./answers.ts";
import { handoffSettingSchema } from "./handoffs.ts";

export const widgetConfigSchema = z
  .object({
    widgetId: z.string(),
    name: z.string(),
    welcomeMessage: z.string(),
    suggestedQuestions: z.array(z.string()),
    theme: themeSchema,
    handoff: handoffSettingSchema,
    status: z.enum(["ready", "processing"]),
  })
  .openapi("WidgetConfig");
export type WidgetConfig = z.infer<typeof widgetConfigSchema>;

/** The widget's query: the agent query body, plus the visitor token that continues a conversation. */
export const widgetQueryRequestSchema = queryRequestSchema
  .omit({ dataSourceIds: true, stream: true, channel: true })
  .extend({
    visitorToken: z
      .string()
      .max(4000)
      .optional()
      .openapi({ description: "from an earlier answer; required to continue a conversation" }),
    pageUrl: pageUrlSchema.optional().openapi({
      description:
        "the host page (`location.href` without its fragment); recorded when the message starts a conversation",
    }),
    device: deviceClassSchema.optional().openapi({
      description: "coarse device class; recorded when the message starts a conversation",
    }),
  })
  .openapi("WidgetQueryRequest");
export type WidgetQueryRequest = z.infer<typeof widgetQueryRequestSchema>;

export const widgetQueryResponseSchema = queryResponseSchema
  .extend({ visitorToken: z.string().openapi({ description: "send it back to continue the conversation" }) })
  .openapi("WidgetQueryResponse");
export type WidgetQueryResponse = z.infer<typeof widgetQueryResponseSchema>;

export const widgetFeedbackRequestSchema = feedbackRequestSchema
  .extend({
    visitorToken: z.string().min(1).max(4000).openapi({ description: "from the widget's query response" }),
  })
  .openapi("WidgetFeedbackRequest");
export type WidgetFeedbackRequest = z.infer<typeof widgetFeedbackRequestSchema>;
