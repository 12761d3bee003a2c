import type { ErrorCode, McpRequest } from "@lore/shared";
import type { Context } from "hono";
import { callerId } from "../auth/principal.ts";
import { AppError } from "../errors.ts";
import type { AppEnv, QuestionQuota } from "../http/principal.ts";
import { endpoint, type RouteInput } from "../http/route.ts";
import type { Services } from "../services.ts";
import type { AgentRecord } from "../store/records.ts";
import * as api from "./mcp-api.ts";
import { isQuestion } from "./question-tools.ts";

/**
 * The contract code for an HTTP-level refusal of the MCP transport (its own body is JSON-RPC): 400
 * for a message the SDK's schema refuses or an unsupported `Mcp-Protocol-Version`. Accept, content
 * type, body size and sessions are settled before the transport sees the request.
 */
const codeByTransportStatus: Record<number, ErrorCode> = {
  400: "validation_error",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/** The transport's answer as the contract has it: success as it is, a refusal as `{error, message, details}`. */
async function contractResponse(res: Response): Promise<Response> {
  if (res.status < 400) return res;
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  const message = body?.error?.message ?? "The MCP request was refused";
  const code = codeByTransportStatus[res.status] ?? "internal_error";
  throw new AppError(code, message, code === "validation_error" ? { fields: { body: [message] } } : {});
}

/**
 * The request as the transport reads it. Responses are always JSON here (stateless, no stream),
 * so a client that accepts JSON is served even if it forgot `text/event-stream`.
 */
function transportRequest(raw: Request): Request {
  const headers = new Headers(raw.headers);
  headers.set("accept", "application/json, text/event-stream");
  return new Request(raw.url, { method: "POST", headers, signal: raw.signal });
}

/**
 * MCP's guard against DNS rebinding: a browser's request names its page in `Origin`, which must be one
 * of the agent's allowed origins (exact, or `*`). Server-side clients send no Origin and pass.
 */
function checkOrigin(c: Context<AppEnv>, agent: AgentRecord): void {
  const origin = c.req.header("origin");
  if (origin === undefined) return;
  const page = origin.toLowerCase();
  if (agent.allowedOrigins.some((allowed) => allowed === "*" || allowed === page)) return;
  throw new AppError("origin_not_allowed", "This origin may not use this agent's MCP server", { origin });
}

/** How many messages of a body ask a question (`tools/call` of `search` or `ask`, with an id to answer). */
function questionCount(body: McpRequest): number {
  return (Array.isArray(body) ? body : [body]).filter(
    (m) => m.method === "tools/call" && m.id !== undefined && isQuestion(toolName(m.params)),
  ).length;
}

/**
 * The MCP SDK (with the JSON-schema packages it brings) and Lore's server on it, loaded with the
 * first MCP request rather than at every start of a server that may never get one.
 */
let sdk:
  | Promise<
      [
        typeof import("./mcp-server.ts"),
        typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      ]
    >
  | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import("./mcp-server.ts"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
  ]));

const toolName = (params: unknown): unknown =>
  typeof params === "object" && params !== null && "name" in params ? params.name : undefined;

/** Spends one of the request's charged questions; past them, throws the 429 the charge met. */
function questionTaker(quota: QuestionQuota | undefined): () => void {
  let left = quota?.charged ?? 0;
  return () => {
    if (left > 0) {
      left -= 1;
      return;
    }
    throw (
      quota?.refusal ??
      new AppError("rate_limited", "Rate limit exceeded; retry after the delay in Retry-After")
    );
  };
}

/** `POST /agents/{agentId}/mcp/`: a fresh stateless MCP server and transport per request. */
export function mcpRoutes({
  access,
  answerDeps,
  sources,
  logger,
}: Pick<Services, "access" | "answerDeps" | "sources" | "logger">) {
  // Also what the request is charged to: a refused Origin never spends the agent's query limit.
  const agentOf = (c: Context<AppEnv>, input: { id(name: "agentId"): string }) => {
    const agent = access.agent(c.get("principal"), input.id("agentId"), "query");
    checkOrigin(c, agent);
    return agent;
  };
  // Access first, then the body: one question per search/ask call; a POST that asks none is an ordinary request.
  const chargeOf = async (c: Context<AppEnv>, input: RouteInput<typeof api.agentMcp>) => ({
    id: agentOf(c, input).id,
    questions: questionCount(await input.json()),
  });

  return [
    endpoint(
      api.agentMcp,
      async (c, input) => {
        const agent = agentOf(c, input);
        const body = await input.json();
        const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await loadSdk();
        const server = createMcpServer(
          { answerDeps, sources, logger },
          {
            agent,
            callerId: callerId(c.get("principal"), c.get("clientIp")),
            requestId: c.get("requestId"),
            signal: c.req.raw.signal,
            takeQuestion: questionTaker(c.get("questions")),
          },
        );
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await server.connect(transport);
        try {
          return await contractResponse(
            await transport.handleRequest(transportRequest(c.req.raw), { parsedBody: body }),
          );
        } finally {
          await server.close();
        }
      },
      { queryAgent: chargeOf },
    ),
  ];
}
