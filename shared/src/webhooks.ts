import { z } from "@hono/zod-openapi";
import { idSchema, pageQuerySchema } from "./common.ts";

export const webhookEventSchema = z.enum([
  "data_source.sync.completed",
  "data_source.sync.failed",
  "agent.ready",
  "message.feedback",
  "conversation.handoff_requested",
]);
export type WebhookEventType = z.infer<typeof webhookEventSchema>;

export const webhookSchema = z
  .object({
    id: idSchema,
    workspaceId: idSchema,
    url: z.string().url(),
    events: z.array(webhookEventSchema),
    active: z.boolean(),
    description: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Webhook");
export type Webhook = z.infer<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema
  .extend({
    secret: z.string().openapi({ description: "HMAC-SHA256 signing secret (`whsec_…`), shown once" }),
  })
  .openapi("CreatedWebhook");
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;

const events = z
  .array(webhookEventSchema)
  .min(1, "subscribe to at least one event")
  .transform((list) => [...new Set(list)]);

export const createWebhookRequestSchema = z
  .object({
    url: z.string().url().max(2000),
    events,
    active: z.boolean().optional(),
    description: z.string().max(500).optional(),
  })
  .strict()
  .openapi("CreateWebhook");
export type CreateWebhookRequest = z.infer<typeof createWebhookRequestSchema>;

export const updateWebhookRequestSchema = z
  .object({
    url: z.string().url().max(2000),
    events,
    active: z.boolean(),
    description: z.string().max(500),
  })
  .partial()
  .strict()
  .openapi("UpdateWebhook");
export type UpdateWebhookRequest = z.infer<typeof updateWebhookRequestSchema>;

export const webhookDeliveryStatusSchema = z.enum(["pending", "delivered", "failed", "cancelled"]);
export type WebhookDeliveryStatus = z.infer<typeof webhookDeliveryStatusSchema>;

export const webhookAttemptSchema = z.object({
  at: z.string(),
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
});

export const webhookDeliverySchema = z
  .object({
    id: idSchema,
    webhookId: idSchema,
    eventId: idSchema,
    event: webhookEventSchema,
    status: webhookDeliveryStatusSchema,
    attempts: z.number().int(),
    responseStatus: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int().nullable(),
    createdAt: z.string(),
    deliveredAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    history: z.array(webhookAttemptSchema).openapi({ description: "Every attempt, oldest first" }),
  })
  .openapi("WebhookDelivery");
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveriesQuerySchema = pageQuerySchema.extend({
  status: webhookDeliveryStatusSchema.optional(),
});

/** The JSON body POSTed to a subscriber. */
export const webhookPayloadSchema = z.object({
  id: idSchema,
  type: webhookEventSchema,
  createdAt: z.string(),
  workspaceId: idSchema,
  data: z.record(z.string(), z.unknown()),
});
export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;
