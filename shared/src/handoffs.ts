import { z } from "@hono/zod-openapi";
import { idSchema, pageQuerySchema } from "./common.ts";

/** A way out of the chat for the visitor: nothing, a link (a page or `mailto:`), or a contact form. */
export const handoffModeSchema = z.enum(["none", "link", "form"]);
export type HandoffMode = z.infer<typeof handoffModeSchema>;

const linkSchema = z
  .string()
  .max(2000)
  .regex(/^(https?:\/\/\S+|mailto:\S+)$/i, "must be an http(s):// or mailto: URL");

export const handoffSettingSchema = z
  .object({
    mode: handoffModeSchema,
    url: linkSchema.nullable().openapi({ description: "`link` only: where the visitor is sent" }),
  })
  .superRefine((value, ctx) => {
    if (value.mode === "link" && !value.url)
      ctx.addIssue({ code: "custom", path: ["url"], message: "required for mode link" });
  })
  .openapi("HandoffSetting");
export type HandoffSetting = z.infer<typeof handoffSettingSchema>;

export const HANDOFF_MESSAGE_MAX = 4000;

/** `POST /widget/{widgetId}/conversations/{conversationId}/handoff/`: the visitor asks for a person. */
export const widgetHandoffRequestSchema = z
  .object({
    visitorToken: z.string().min(1).max(4000).openapi({ description: "from the widget's query response" }),
    email: z.string().trim().max(254).email("must be an e-mail address"),
    name: z.string().trim().max(200).optional(),
    message: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(HANDOFF_MESSAGE_MAX, `at most ${HANDOFF_MESSAGE_MAX} characters`),
  })
  .strict()
  .openapi("WidgetHandoffRequest");
export type WidgetHandoffRequest = z.infer<typeof widgetHandoffRequestSchema>;

/**
 * `POST /widget/{widgetId}/handoff/`: the visitor asks for a person before asking anything; the
 * request starts their conversation. A visitor token from an earlier conversation keeps them the same visitor.
 */
export const widgetFirstHandoffRequestSchema = widgetHandoffRequestSchema
  .extend({
    visitorToken: z.string().min(1).max(4000).optional().openapi({ description: "when the visitor has one" }),
  })
  .strict()
  .openapi("WidgetFirstHandoffRequest");
export type WidgetFirstHandoffRequest = z.infer<typeof widgetFirstHandoffRequestSchema>;

export const handoffStatusSchema = z.enum(["open", "resolved"]);
export type HandoffStatus = z.infer<typeof handoffStatusSchema>;

export const handoffSchema = z
  .object({
    id: idSchema,
    agentId: idSchema,
    conversationId: idSchema,
    email: z.string(),
    name: z.string().nullable(),
    message: z.string(),
    status: handoffStatusSchema,
    createdAt: z.string(),
    resolvedAt: z.string().nullable(),
  })
  .openapi("Handoff");
export type Handoff = z.infer<typeof handoffSchema>;

/** What the visitor is told back: the request is stored (no contact data echoed). */
export const widgetHandoffResponseSchema = z
  .object({ id: idSchema, status: handoffStatusSchema, createdAt: z.string() })
  .openapi("WidgetHandoff");
export type WidgetHandoffResponse = z.infer<typeof widgetHandoffResponseSchema>;

/** A request that started a conversation: the widget continues it with the token. */
export const widgetFirstHandoffResponseSchema = widgetHandoffResponseSchema
  .extend({ conversationId: idSchema, visitorToken: z.string() })
  .openapi("WidgetFirstHandoff");
export type WidgetFirstHandoffResponse = z.infer<typeof widgetFirstHandoffResponseSchema>;

export const handoffListQuerySchema = pageQuerySchema.extend({
  status: handoffStatusSchema.optional().openapi({ description: "only open or only resolved requests" }),
});

export const updateHandoffRequestSchema = z
  .object({ status: handoffStatusSchema })
  .strict()
  .openapi("UpdateHandoff");
export type UpdateHandoffRequest = z.infer<typeof updateHandoffRequestSchema>;

/** `GET /handoffs/summary/`: the open contact requests of every agent the caller can read. */
export const handoffSummarySchema = z
  .object({
    open: z
      .array(z.object({ agentId: idSchema, count: z.number().int().positive() }))
      .openapi({ description: "agents with at least one open request; the others are left out" }),
    emailNotices: z.boolean().openapi({
      description: "the server e-mails each new request to the workspace's owners (LORE_SMTP_URL is set)",
    }),
  })
  .openapi("HandoffSummary");
export type HandoffSummary = z.infer<typeof handoffSummarySchema>;
