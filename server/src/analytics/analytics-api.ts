import { analyticsQuerySchema, analyticsSchema } from "@lore/shared";
import { apiRoute, jsonResponse } from "../http/route.ts";

export const agentAnalytics = apiRoute({
  method: "get",
  path: "/analytics/agents/{agentId}/",
  summary: "Usage and answer quality of an agent over a period",
  tag: "Analytics",
  auth: "user-or-key",
  role: "viewer",
  request: { query: analyticsQuerySchema },
  responses: { 200: jsonResponse(analyticsSchema) },
  errors: ["validation_error"],
});
