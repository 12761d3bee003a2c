import { z } from "@hono/zod-openapi";
import { themeSchema } from "./agents.ts";
import { queryRequestSchema } from "./answers.ts";

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
export const widgetQueryRequestSchema = queryRequestSchema
  .omit({ dataSourceIds: true })
  .extend({ visitorToken: z.string().max(4000).optional() })
  .openapi("WidgetQueryRequest");
export type WidgetQueryRequest = z.infer<typeof widgetQueryRequestSchema>;
