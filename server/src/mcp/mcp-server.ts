import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { AnswerDeps } from "../answers/answer-question.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../log/logger.ts";
import type { SourcesService } from "../sources/sources-service.ts";
import type { AgentRecord } from "../store/records.ts";
import { rpcError, toAppError, toolError, toRpcError } from "./mcp-errors.ts";
import { documentTemplates, listDocuments, readDocument } from "./mcp-resources.ts";
import { agentTools } from "./mcp-tools.ts";
import { isQuestion } from "./question-tools.ts";

export interface McpDeps {
  answerDeps: AnswerDeps;
  sources: SourcesService;
  logger: Logger;
}

/** Who asks, through which agent: one request's worth (the server is stateless). */
export interface McpCaller {
  agent: AgentRecord;
  callerId: string;
  requestId: string;
  signal: AbortSignal;
  /** Before a question (`search`, `ask`) runs: spends one the request was charged for, or throws its 429. */
  takeQuestion(): void;
}

/** A Lore agent as an MCP server for one HTTP request: its tools, and its documents as resources. */
export function createMcpServer(deps: McpDeps, caller: McpCaller): Server {
  const { agent } = caller;
  const server = new Server(
    {
      name: `lore-${agent.name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`,
      title: agent.name,
      version: "1.0.0",
    },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: `Knowledge base of "${agent.name}"${agent.description ? `: ${agent.description}` : ""}. Use \`ask\` for a grounded answer with citations, \`search\` for raw ranked passages, \`list_sources\` for what it covers; documents are readable as resources.`,
    },
  );
  const tools = agentTools(deps, caller);
  // Resource failures leave as JSON-RPC errors carrying the contract's error body.
  const guarded =
    <A, R>(handle: (request: A) => R | Promise<R>) =>
    async (request: A): Promise<R> => {
      try {
        return await handle(request);
      } catch (error) {
        throw toRpcError(error, caller.requestId, deps.logger);
      }
    };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => t.definition) }));
  server.setRequestHandler(
    CallToolRequestSchema,
    guarded(async (request) => {
      const tool = tools.find((t) => t.definition.name === request.params.name);
      // An unknown tool is a protocol error (the client asked for something the server never offered)…
      if (!tool) {
        throw rpcError(
          new AppError("validation_error", `No tool named ${request.params.name}`, {
            fields: { name: [`one of ${tools.map((t) => t.definition.name).join(", ")}`] },
          }),
        );
      }
      // A question past the request's charged quota is a JSON-RPC error carrying the 429 body.
      if (isQuestion(tool.definition.name)) caller.takeQuestion();
      // …a tool's own failure (its arguments, an unknown source or conversation) is its result, so the
      // model sees the contract's error and can correct itself.
      try {
        return await tool.call(request.params.arguments);
      } catch (error) {
        return toolError(toAppError(error, caller.requestId, deps.logger));
      }
    }),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: documentTemplates(agent),
  }));
  server.setRequestHandler(
    ListResourcesRequestSchema,
    guarded((request) => listDocuments(deps.sources, agent, request.params?.cursor)),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    guarded((request) => readDocument(deps, agent, request.params.uri)),
  );
  return server;
}
