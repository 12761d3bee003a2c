import { z } from "@hono/zod-openapi";
import { themeSchema } from "./agents.ts";

export const widgetConfigSchema = z
  .object({
    widgetId: z.string(),
    name: z.string(),
    welcomeMessage: z.string(),
    suggestedQuestions: z.array(z.string()),
    theme: themeSchema,
    status: z.enum(["ready", "processing"]),
  })
  .openapi("WidgetConfig");
export type WidgetConfig = z.infer<typeof widgetConfigSchema>;

/** The widget's query: the agent query body, plus the visitor token that continues a conversation. */
export const widgetQueryRequestSchema = z.object({
  message: z.string(),
  conversationId: z.string().uuid().optional(),
  visitorToken: z.string().max(2000).optional(),
});
export type WidgetQueryRequest = z.infer<typeof widgetQueryRequestSchema>;
