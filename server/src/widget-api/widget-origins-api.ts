import { agentSchema, originRequestSchema, widgetOriginsSchema } from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent } from "../http/route.ts";

// The owner's side of the widget's origin check: where the widget loads and where it was refused.

export const listWidgetOrigins = apiRoute({
  method: "get",
  path: "/agents/{agentId}/widget-origins/",
  summary: "Where the agent's widget loaded lately and which sites it was refused on",
  description:
    "`allowed`: each of `allowedOrigins` with the last widget load from a page of it (`*` stands for every origin it admitted). `refused`: origins whose pages asked for the widget and were refused (`403 origin_not_allowed`), newest first, at most 50 (the least recently seen go first); only origins and times are kept, nothing about visitors. Loads are written every few seconds: another replica's show within about five seconds.",
  tag: "Agents",
  auth: "user-or-key",
  role: "viewer",
  responses: { 200: jsonResponse(widgetOriginsSchema) },
});

export const allowWidgetOrigin = apiRoute({
  method: "post",
  path: "/agents/{agentId}/widget-origins/allow/",
  summary: "Adds an origin (or a bare host) to the agent's allowedOrigins and clears its refused entry",
  description:
    "Idempotent: an origin already allowed is left as it is. An API key cannot add origins to its agent (`403 permission_denied`). Returns the updated agent.",
  tag: "Agents",
  auth: "user-or-key",
  role: "editor",
  request: { body: jsonBody(originRequestSchema) },
  responses: { 200: jsonResponse(agentSchema) },
  errors: ["validation_error"],
});

export const dismissWidgetOrigin = apiRoute({
  method: "post",
  path: "/agents/{agentId}/widget-origins/dismiss/",
  summary: "Removes an origin from the refused list without allowing it",
  description: "It comes back if pages of that origin ask for the widget again.",
  tag: "Agents",
  auth: "user-or-key",
  role: "editor",
  request: { body: jsonBody(originRequestSchema) },
  responses: { 204: noContent },
  errors: ["validation_error"],
});
