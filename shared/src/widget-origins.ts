import { z } from "@hono/zod-openapi";
import { originInputSchema } from "./agents.ts";

/** A page origin the widget was refused on: no visitor data, only the site and when. */
export const refusedOriginSchema = z
  .object({
    origin: z.string(),
    firstSeenAt: z.string(),
    lastSeenAt: z.string(),
    count: z.number().int().nonnegative().openapi({ description: "refused widget requests from it" }),
  })
  .openapi("RefusedOrigin");
export type RefusedOrigin = z.infer<typeof refusedOriginSchema>;

export const allowedOriginActivitySchema = z
  .object({
    origin: z.string(),
    lastSeenAt: z
      .string()
      .nullable()
      .openapi({ description: "the last widget load on a page of this origin; null: none yet" }),
  })
  .openapi("AllowedOriginActivity");
export type AllowedOriginActivity = z.infer<typeof allowedOriginActivitySchema>;

/** `GET /agents/{agentId}/widget-origins/`: where the widget loads, and where it was refused. */
export const widgetOriginsSchema = z
  .object({
    allowed: z.array(allowedOriginActivitySchema),
    refused: z.array(refusedOriginSchema),
  })
  .openapi("WidgetOrigins");
export type WidgetOrigins = z.infer<typeof widgetOriginsSchema>;

export const originRequestSchema = z.object({ origin: originInputSchema }).strict().openapi("OriginRequest");
export type OriginRequest = z.infer<typeof originRequestSchema>;
