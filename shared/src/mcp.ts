import { z } from "@hono/zod-openapi";
import { queryRequestSchema, searchRequestSchema } from "./answers.ts";
import { dataSourceSchema } from "./sources.ts";

// The agent's MCP server: tool arguments are the REST contract's fields, so both refuse the same input
// (an unknown argument included, as REST refuses an unknown field).

/** `search`: the `/search/` body less `mode` (the agent's mode applies). */
export const mcpSearchArgsSchema = searchRequestSchema
  .pick({ query: true, topK: true, dataSourceIds: true })
  .strict();
export type McpSearchArgs = z.infer<typeof mcpSearchArgsSchema>;

/** `ask`: the `/query/` body, the message named `question`. */
export const mcpAskArgsSchema = z
  .object({
    question: queryRequestSchema.shape.message,
    conversationId: queryRequestSchema.shape.conversationId,
    dataSourceIds: queryRequestSchema.shape.dataSourceIds,
  })
  .strict();
export type McpAskArgs = z.infer<typeof mcpAskArgsSchema>;

export const mcpListSourcesArgsSchema = z.object({}).strict();

/** One source as `list_sources` shows it: no configuration (an API key never reads a source's settings). */
export const mcpSourceSchema = dataSourceSchema.pick({
  id: true,
  name: true,
  type: true,
  status: true,
  documentCount: true,
  chunkCount: true,
  lastSyncedAt: true,
  lastError: true,
});
export const mcpSourcesSchema = z.object({ sources: z.array(mcpSourceSchema) });
export type McpSources = z.infer<typeof mcpSourcesSchema>;

const jsonRpcId = z.union([z.string(), z.number().int()]);

/** One JSON-RPC 2.0 message; the MCP SDK checks the rest (loose: its fields are kept as sent). */
const jsonRpcMessageSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: jsonRpcId.optional(),
  method: z.string().max(200).optional(),
});

/** The body of `POST …/mcp/`: one JSON-RPC message or a batch. */
export const mcpRequestBodySchema = z
  .union([jsonRpcMessageSchema, z.array(jsonRpcMessageSchema).min(1).max(100)])
  .openapi("McpRequest");
export type McpRequest = z.infer<typeof mcpRequestBodySchema>;

const jsonRpcResponseSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: jsonRpcId.nullable(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/** What `POST …/mcp/` answers a request with: its JSON-RPC response(s). */
export const mcpResponseBodySchema = z
  .union([jsonRpcResponseSchema, z.array(jsonRpcResponseSchema)])
  .openapi("McpResponse");
