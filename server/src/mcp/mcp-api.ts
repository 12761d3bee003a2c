import { mcpRequestBodySchema, mcpResponseBodySchema } from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse } from "../http/route.ts";

export const agentMcp = apiRoute({
  method: "post",
  path: "/agents/{agentId}/mcp/",
  summary:
    "The agent's MCP server (Streamable HTTP, stateless): tools search, ask, list_sources; documents as resources",
  description:
    "A Model Context Protocol endpoint for AI agents: one JSON-RPC message (or a batch) per POST, answered as JSON (`enableJsonResponse`), no session id. GET and DELETE are 405: a stateless server opens no stream and keeps no session. Each `tools/call` of `search` or `ask` is charged as a question (the caller's limit and the agent's per-minute query limit), so a batch of N questions costs N; the calls past the quota get a JSON-RPC error whose `data` is the 429 body, and if not even the first fits the POST is 429. A POST that asks no question (`initialize`, `ping`, `tools/list`, resources, `list_sources`) counts against the caller's request limit only. A request with an `Origin` header is refused with 403 `origin_not_allowed` unless the origin is in the agent's `allowedOrigins` (requests without one, from server-side clients, pass). A tool's failure (invalid or unknown arguments, a source not attached to the agent, an unknown conversation) is a tool result with `isError: true` whose `structuredContent` is the REST error body (`{error, message, details}`); an unknown tool or a failed resource read is a JSON-RPC error whose `data` is that body. A tool's text block is a one-line summary, a blank line, then the JSON of its `structuredContent`.",
  tag: "Answers",
  auth: "user-or-key",
  role: "viewer",
  charge: "query",
  errors: ["origin_not_allowed"],
  request: { body: jsonBody(mcpRequestBodySchema) },
  responses: {
    200: jsonResponse(mcpResponseBodySchema),
    202: { description: "Notifications or responses only: accepted, no body" },
  },
});
