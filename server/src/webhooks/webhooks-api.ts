import {
  createdWebhookSchema,
  createWebhookRequestSchema,
  pageQuerySchema,
  pageSchema,
  updateWebhookRequestSchema,
  webhookDeliveriesQuerySchema,
  webhookDeliverySchema,
  webhookSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent } from "../http/route.ts";

export const listWebhooks = apiRoute({
  method: "get",
  path: "/workspaces/{workspaceId}/webhooks/",
  summary: "List webhook subscriptions",
  tag: "Webhooks",
  auth: "user",
  role: "admin",
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(pageSchema(webhookSchema).openapi("WebhookPage")) },
  errors: ["validation_error"],
});

export const createWebhook = apiRoute({
  method: "post",
  path: "/workspaces/{workspaceId}/webhooks/",
  summary: "Subscribe a URL to events (the signing secret is shown once)",
  tag: "Webhooks",
  auth: "user",
  role: "admin",
  request: { body: jsonBody(createWebhookRequestSchema) },
  responses: { 201: jsonResponse(createdWebhookSchema) },
});

export const getWebhook = apiRoute({
  method: "get",
  path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
  summary: "Get a webhook subscription",
  tag: "Webhooks",
  auth: "user",
  role: "admin",
  responses: { 200: jsonResponse(webhookSchema) },
});

export const updateWebhook = apiRoute({
  method: "patch",
  path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
  summary: "Update a webhook subscription (url, events, active)",
  tag: "Webhooks",
  auth: "user",
  role: "admin",
  request: { body: jsonBody(updateWebhookRequestSchema) },
  responses: { 200: jsonResponse(webhookSchema) },
});

export const deleteWebhook = apiRoute({
  method: "delete",
  path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
  summary: "Delete a webhook subscription",
  tag: "Webhooks",
  auth: "user",
  role: "admin",
  responses: { 204: noContent },
});

export const listDeliveries = apiRoute({
  method: "get",
  path: "/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/",
  summary: "The delivery log of a subscription (filter by `status`)",
  tag: "Webhooks",
  auth: "user",
  role: "admin",
  request: { query: webhookDeliveriesQuerySchema },
  responses: { 200: jsonResponse(pageSchema(webhookDeliverySchema).openapi("WebhookDeliveryPage")) },
  errors: ["validation_error"],
});
