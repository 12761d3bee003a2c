import { mcpRequestBodySchema, mcpResponseBodySchema } from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse } from "../http/route.ts";

export const agentMcp = apiRoute({
  method: "post",
  path: "/agents/{agentId}/mcp/",
  summary:
    "The agent's MCP server (Streamable HTTP, stateless): tools search, ask, list_sources; documents as resources",
  description:
    "A Model Context Protocol endpoint for AI agents: one JSON-RPC message (or a batch) per POST, answered as JSON (`enableJsonResponse`), no session id. GET and DELETE are 405: a stateless server opens no stream and keeps no session. Each `tools/call` of `search` or `ask` is charged as a question (the caller's limit and the agent's per-minute query limit), so a batch of N questions costs N; the calls past the quota get a JSON-RPC error whose `data` is the 429 body, and if not even the first fits the POST is 429. A POST that asks no question (`initialize`, `ping`, `tools/list`, resources, `list_sources`) counts against the caller's request limit only. Tool failures are JSON-RPC errors whose `data` is the REST error body (`{error, message, details}`).",
  tag: "Answers",
  auth: "user-or-key",
  role: "viewer",
  charge: "query",
  request: { body: jsonBody(mcpRequestBodySchema) },
  responses: {
    200: jsonResponse(mcpResponseBodySchema),
    202: { description: "Notifications or responses only: accepted, no body" },
  },
});
