import {
  type Citation,
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
import { answerQuestion, resolveSources } from "../answers/answer-question.ts";
import { collectResponse } from "../answers/collect-response.ts";
import { searchResults } from "../answers/search-knowledge.ts";
import { parseWith } from "../errors.ts";
import { agentSources } from "./mcp-resources.ts";
import type { McpCaller, McpDeps } from "./mcp-server.ts";

// The contract's schemas never change: each is converted once, not on every tools/list.
const converted = new Map<string, Tool["inputSchema"]>();
function jsonSchema(name: string, schema: z.ZodType, io: "input" | "output"): Tool["inputSchema"] {
  const key = `${name}:${io}`;
  let json = converted.get(key);
  if (!json) {
    json = z.toJSONSchema(schema, { target: "draft-7", io }) as Tool["inputSchema"];
    converted.set(key, json);
  }
  return json;
}

interface ToolSpec<A extends z.ZodType, O extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  args: A;
  output: O;
  readOnly: boolean;
  run(args: z.output<A>): Promise<{ text: string; structured: z.output<O> }>;
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
      inputSchema: jsonSchema(spec.name, spec.args, "input"),
      outputSchema: jsonSchema(spec.name, spec.output, "output"),
      annotations: { readOnlyHint: spec.readOnly, openWorldHint: false },
    },
    async call(args) {
      const { text, structured } = await spec.run(
        parseWith(spec.args, args ?? {}, "The tool arguments are invalid"),
      );
      return {
        content: [{ type: "text", text }],
        structuredContent: structured as Record<string, unknown>,
      };
    },
  };
}

const score = (s: number) => s.toFixed(2);
const where = (c: Citation) =>
  [c.sourceUrl, c.page != null ? `page ${c.page}` : ""].filter((part) => part !== "").join(", ");
/** A search result for a model: `[rank] title (score) url, page`, then its text. */
function passage(r: Citation): string {
  const head = [`[${r.rank}] ${r.title}`, `(score ${score(r.score)})`, where(r)].filter(Boolean).join(" ");
  return `${head}\n${r.content}`;
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
        const text =
          found.results.length === 0 ? "No passage matches." : found.results.map(passage).join("\n\n");
        return { text, structured: found };
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
        const cited = answer.sources.map((s) => `[${s.rank}] ${s.title} ${where(s)}`.trimEnd());
        const text = [
          answer.response,
          cited.length > 0 ? `Sources:\n${cited.join("\n")}` : "",
          `conversationId: ${answer.conversationId} (pass it to ask a follow-up)`,
        ]
          .filter((part) => part !== "")
          .join("\n\n");
        return { text, structured: answer };
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
        const text =
          structured.sources.length === 0
            ? "No data sources are attached."
            : structured.sources
                .map(
                  (s) =>
                    `${s.name} (${s.type}, ${s.status}): ${s.documentCount} documents, ${s.chunkCount} chunks; id ${s.id}`,
                )
                .join("\n");
        return { text, structured };
      },
    }),
  ];
}
