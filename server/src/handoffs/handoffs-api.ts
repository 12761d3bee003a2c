import {
  handoffListQuerySchema,
  handoffSchema,
  handoffSummarySchema,
  pageSchema,
  updateHandoffRequestSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse } from "../http/route.ts";

export const listHandoffs = apiRoute({
  method: "get",
  path: "/agents/{agentId}/handoffs/",
  summary: "Visitors' contact requests (the widget's handoff form), newest first",
  tag: "Conversations",
  auth: "user-or-key",
  role: "viewer",
  request: { query: handoffListQuerySchema },
  responses: { 200: jsonResponse(pageSchema(handoffSchema).openapi("HandoffPage")) },
  errors: ["validation_error"],
});

export const updateHandoff = apiRoute({
  method: "patch",
  path: "/agents/{agentId}/handoffs/{handoffId}/",
  summary: "Resolve a contact request (or open it again)",
  tag: "Conversations",
  auth: "user-or-key",
  role: "editor",
  request: { body: jsonBody(updateHandoffRequestSchema) },
  responses: { 200: jsonResponse(handoffSchema) },
});

export const handoffSummary = apiRoute({
  method: "get",
  path: "/handoffs/summary/",
  summary:
    "Open contact requests by agent, across the caller's workspaces, and whether owners get them by e-mail",
  tag: "Conversations",
  auth: "user",
  responses: { 200: jsonResponse(handoffSummarySchema) },
});
