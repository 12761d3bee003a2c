import {
  agentSchema,
  apiKeySchema,
  createAgentRequestSchema,
  createApiKeyRequestSchema,
  createdApiKeySchema,
  listAgentsQuerySchema,
  pageSchema,
  previewGrantSchema,
  suggestedQuestionsCheckSchema,
  updateAgentRequestSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent } from "../http/route.ts";

export const listAgents = apiRoute({
  method: "get",
  path: "/agents/",
  summary: "List agents of the caller's workspaces (an API key sees its own agent)",
  tag: "Agents",
  auth: "user-or-key",
  request: { query: listAgentsQuerySchema },
  responses: { 200: jsonResponse(pageSchema(agentSchema).openapi("AgentPage")) },
  errors: ["validation_error", "not_found"],
});

export const createAgent = apiRoute({
  method: "post",
  path: "/agents/",
  summary: "Create an agent (in `workspaceId`, default the caller's personal workspace)",
  tag: "Agents",
  auth: "user",
  role: "editor",
  request: { body: jsonBody(createAgentRequestSchema) },
  responses: { 201: jsonResponse(agentSchema) },
  errors: ["not_found"],
});

export const getAgent = apiRoute({
  method: "get",
  path: "/agents/{agentId}/",
  summary: "Get an agent",
  tag: "Agents",
  auth: "user-or-key",
  role: "viewer",
  responses: { 200: jsonResponse(agentSchema) },
});

export const updateAgent = apiRoute({
  method: "patch",
  path: "/agents/{agentId}/",
  summary: "Update an agent (partial)",
  description:
    "An API key may remove its agent's data sources and origins but not add any: that is `403 permission_denied`, details naming what it tried to add.",
  tag: "Agents",
  auth: "user-or-key",
  role: "editor",
  request: { body: jsonBody(updateAgentRequestSchema) },
  responses: { 200: jsonResponse(agentSchema) },
});

export const deleteAgent = apiRoute({
  method: "delete",
  path: "/agents/{agentId}/",
  summary: "Delete an agent with its keys and conversations",
  tag: "Agents",
  auth: "user",
  role: "editor",
  responses: { 204: noContent },
});

export const listApiKeys = apiRoute({
  method: "get",
  path: "/agents/{agentId}/api-keys/",
  summary: "List an agent's API keys (never the secret)",
  tag: "API keys",
  auth: "user",
  role: "admin",
  responses: { 200: jsonResponse(pageSchema(apiKeySchema).openapi("ApiKeyPage")) },
});

export const createApiKey = apiRoute({
  method: "post",
  path: "/agents/{agentId}/api-keys/",
  summary: "Create an API key (`key` is shown once)",
  tag: "API keys",
  auth: "user",
  role: "admin",
  request: { body: jsonBody(createApiKeyRequestSchema.openapi("CreateApiKey")) },
  responses: { 201: jsonResponse(createdApiKeySchema) },
});

export const revokeApiKey = apiRoute({
  method: "delete",
  path: "/agents/{agentId}/api-keys/{keyId}/",
  summary: "Revoke an API key",
  tag: "API keys",
  auth: "user",
  role: "admin",
  responses: { 204: noContent },
});

export const createPreview = apiRoute({
  method: "post",
  path: "/agents/{agentId}/preview/",
  summary: "A short-lived link that shows the agent's widget on this server's demo page",
  description:
    "The grant in `url` lets the demo page embed this agent and lets that page's widget talk to it for an hour, whatever `allowedOrigins` says; nothing else does.",
  tag: "Agents",
  auth: "user",
  role: "viewer",
  responses: { 201: jsonResponse(previewGrantSchema) },
});

export const checkSuggestedQuestions = apiRoute({
  method: "post",
  path: "/agents/{agentId}/suggested-questions/check/",
  summary: "Answer each suggested question without storing anything; flags fallback and weak answers",
  tag: "Agents",
  auth: "user-or-key",
  role: "editor",
  responses: { 200: jsonResponse(suggestedQuestionsCheckSchema) },
  errors: ["agent_processing"],
});
