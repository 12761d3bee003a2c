import {
  errorBodySchema,
  mcpAskArgsSchema,
  mcpListSourcesArgsSchema,
  mcpSearchArgsSchema,
  mcpSourceSchema,
  mcpSourcesSchema,
  queryResponseSchema,
  searchResponseSchema,
} from "@lore/shared";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { answerQuestion } from "../answers/answer-question.ts";
import { collectResponse } from "../answers/collect-response.ts";
import { resolveSources } from "../answers/prepare-conversation.ts";
import { searchResults } from "../answers/search-knowledge.ts";
import { parseWith } from "../errors.ts";
import { agentSources } from "./mcp-resources.ts";
import type { McpCaller, McpDeps } from "./mcp-server.ts";

// The contract's schemas never change: each is converted once, not on every tools/list.
const converted = new Map<string, Tool["inputSchema"]>();
function jsonSchema(key: string, convert: () => z.ZodType, io: "input" | "output"): Tool["inputSchema"] {
  let json = converted.get(key);
  if (!json) {
    json = z.toJSONSchema(convert(), { target: "draft-7", io }) as Tool["inputSchema"];
    converted.set(key, json);
  }
  return json;
}

/**
 * A tool's output schema: its result, or the contract's error body (a result with `isError`), since
 * clients (the MCP SDK's among them) check every `structuredContent` against it. MCP wants an object.
 */
function outputSchema(name: string, output: z.ZodType): Tool["inputSchema"] {
  const union = jsonSchema(`${name}:output`, () => z.union([output, errorBodySchema]), "output");
  return { ...union, type: "object" };
}

interface ToolSpec<A extends z.ZodType, O extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  args: A;
  output: O;
  readOnly: boolean;
  /** The result, and its summary in one line (the text block is that line, then the result's JSON). */
  run(args: z.output<A>): Promise<{ summary: string; structured: z.output<O> }>;
}

export interface McpTool {
  definition: Tool;
  call(args: unknown): Promise<CallToolResult>;
}

/** A tool whose arguments and result are the contract's zod schemas (listed as JSON Schema). */
function defineTool<A extends z.ZodType, O extends z.ZodType>(spec: ToolSpec<A, O>): McpTool {
  return {
    definition: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: jsonSchema(`${spec.name}:input`, () => spec.args, "input"),
      outputSchema: outputSchema(spec.name, spec.output),
      annotations: { readOnlyHint: spec.readOnly, openWorldHint: false },
    },
    async call(args) {
      const { summary, structured } = await spec.run(
        parseWith(spec.args, args ?? {}, "The tool arguments are invalid"),
      );
      // Clients that show or pass on only the text still get the whole result.
      return {
        content: [{ type: "text", text: `${summary}\n\n${JSON.stringify(structured)}` }],
        structuredContent: structured as Record<string, unknown>,
      };
    },
  };
}

/** The agent's tools; their descriptions tell a model which one fits. */
export function agentTools({ answerDeps, sources }: McpDeps, caller: McpCaller): McpTool[] {
  const { agent } = caller;
  // The agent's own description (up to 2000 characters) says what it knows; a line of it is enough here.
  const about = agent.description ? agent.description.slice(0, 200) : "a Lore agent";
  return [
    defineTool({
      name: "search",
      title: `Search ${agent.name}'s knowledge base`,
      description: `Find passages in the knowledge base of "${agent.name}" (${about}). Returns ranked passages with title, source URL, page, relevance score (0..1) and text, without composing an answer. Use it to look things up yourself: to compare or quote several sources, or to check what the knowledge base says before you answer. For one ready answer with citations, use \`ask\` instead.`,
      args: mcpSearchArgsSchema,
      output: searchResponseSchema,
      readOnly: true,
      async run(args) {
        const sourceIds = resolveSources(answerDeps, agent, args.dataSourceIds);
        const found = await searchResults(answerDeps, agent, {
          query: args.query,
          sourceIds,
          topK: args.topK,
          signal: caller.signal,
        });
        const n = found.results.length;
        const summary =
          n === 0
            ? `No passage matches "${args.query}".`
            : `${n} passage${n === 1 ? "" : "s"} for "${args.query}", best first.`;
        return { summary, structured: found };
      },
    }),
    defineTool({
      name: "ask",
      title: `Ask ${agent.name}`,
      description: `Ask "${agent.name}" a question and get its grounded answer, citing its sources as [n] — the same answer its chat and REST API give. Use it when you want a direct answer from this knowledge base. To ask a follow-up in the same context, pass the \`conversationId\` of the previous answer. When nothing relevant is found it says so (its fallback message) rather than guessing. To read raw passages instead, use \`search\`.`,
      args: mcpAskArgsSchema,
      output: queryResponseSchema,
      readOnly: false,
      async run(args) {
        const answer = await collectResponse(
          answerQuestion(answerDeps, {
            agent,
            message: args.question,
            conversationId: args.conversationId,
            dataSourceIds: args.dataSourceIds,
            channel: "mcp",
            streamed: false,
            callerId: caller.callerId,
            signal: caller.signal,
          }),
        );
        const n = answer.sources.length;
        const summary = `Answer citing ${n} source${n === 1 ? "" : "s"}; pass conversationId ${answer.conversationId} to ask a follow-up.`;
        return { summary, structured: answer };
      },
    }),
    defineTool({
      name: "list_sources",
      title: `List ${agent.name}'s sources`,
      description: `List the data sources "${agent.name}" answers from, with their sync status (queued, syncing, ready, failed), document and chunk counts and last sync time. Use it to see what the knowledge base covers, to pick \`dataSourceIds\` that narrow \`search\` or \`ask\`, or to find out why an answer is missing (a source still syncing or failed).`,
      args: mcpListSourcesArgsSchema,
      output: mcpSourcesSchema,
      readOnly: true,
      async run() {
        const structured = { sources: agentSources(sources, agent).map((s) => mcpSourceSchema.parse(s)) };
        const n = structured.sources.length;
        const summary =
          n === 0
            ? "No data sources are attached."
            : `${n} data source${n === 1 ? " is" : "s are"} attached.`;
        return { summary, structured };
      },
    }),
  ];
}
