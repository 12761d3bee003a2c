import {
  type Agent,
  type AgentAnalytics,
  conversationDetailSchema,
  type DataSource,
  type McpSources,
  type QueryResponse,
  queryResponseSchema,
  type SearchResponse,
  searchResponseSchema,
} from "@lore/shared";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { startEarlyInWindow } from "../helpers/rate-window.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let shop: DataSource;
let zoo: DataSource;
let agent: Agent;
let apiKey: string;

/** An MCP client of an agent over real HTTP, with the SDK's own Streamable HTTP transport. */
async function connect(target: TestServer, agentId: string, credential?: string): Promise<Client> {
  const client = new Client({ name: "lore-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${target.api}/agents/${agentId}/mcp/`), {
    requestInit: { headers: credential ? { Authorization: `Bearer ${credential}` } : {} },
  });
  await client.connect(transport);
  return client;
}

const clients: Client[] = [];
async function client(credential = apiKey, agentId = agent.id): Promise<Client> {
  const c = await connect(server, agentId, credential);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  zoo = await readyTextSource(server, token, "Zoo", [
    {
      title: "Penguins",
      content: "The zoo keeps twelve penguins; feeding time is at three in the afternoon.",
    },
  ]);
  agent = await createAgent(server, token, {
    name: "Shop assistant",
    description: "Answers questions about the shop",
    dataSourceIds: [shop.id, zoo.id],
  });
  const key = await call<{ key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, {
    name: "mcp",
  });
  apiKey = key.body.key;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.close();
});

describe("the MCP endpoint of an agent", () => {
  it("initializes as the agent's server and lists its three tools with descriptions", async () => {
    const c = await client();
    expect(c.getServerVersion()).toMatchObject({ title: "Shop assistant" });
    expect(c.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(c.getInstructions()).toMatch(/ask.*search.*list_sources/s);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask", "list_sources", "search"]);
    for (const tool of tools) {
      expect(tool.description?.length ?? 0).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
    }
    const search = tools.find((t) => t.name === "search");
    expect(search?.inputSchema.required).toEqual(["query"]);
    expect(Object.keys(search?.inputSchema.properties ?? {}).sort()).toEqual([
      "dataSourceIds",
      "query",
      "topK",
    ]);
    expect(tools.find((t) => t.name === "ask")?.description).toMatch(/conversationId/);
  });

  it("searches: ranked passages with title, URL, page and score, as /search/ returns them", async () => {
    const c = await client();
    const result = await c.callTool({ name: "search", arguments: { query: "express shipping", topK: 3 } });
    const found = searchResponseSchema.parse(result.structuredContent);
    expect(found.results.length).toBeGreaterThan(0);
    expect(found.results.length).toBeLessThanOrEqual(3);
    expect(found.results[0]).toMatchObject({ rank: 1, title: "Shipping", dataSourceId: shop.id });
    for (const r of found.results) {
      expect(r.score).toBeGreaterThan(0);
      expect(r).toHaveProperty("sourceUrl");
      expect(r).toHaveProperty("page");
    }
    // A one-line summary, then the structured result as JSON (for clients that read only text).
    const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? "";
    const [summary, json] = text.split("\n\n");
    expect(summary).toBe(`${found.results.length} passages for "express shipping", best first.`);
    expect(JSON.parse(json ?? "")).toEqual(result.structuredContent);
    const rest = await call<SearchResponse>(server, "POST", `/agents/${agent.id}/search/`, apiKey, {
      query: "express shipping",
      topK: 3,
    });
    expect(found.results).toEqual(rest.body.results);
  });

  it("searches only the sources named in dataSourceIds", async () => {
    const c = await client();
    const result = await c.callTool({
      name: "search",
      arguments: { query: "penguins shipping", dataSourceIds: [zoo.id] },
    });
    const found = searchResponseSchema.parse(result.structuredContent);
    expect(found.results.map((r) => r.dataSourceId)).toEqual([zoo.id]);
  });

  it("asks: the same answer and citations as /query/ for the same question", async () => {
    const question = "How long does standard shipping take?";
    const c = await client();
    const viaMcp = queryResponseSchema.parse(
      (await c.callTool({ name: "ask", arguments: { question } })).structuredContent,
    );
    const viaRest = await call<QueryResponse>(server, "POST", `/agents/${agent.id}/query/`, apiKey, {
      message: question,
    });
    expect(viaRest.status).toBe(200);
    expect(viaMcp.response).toMatch(/three to five business days/);
    expect(viaMcp.response).toBe(viaRest.body.response);
    expect(viaMcp.sources).toEqual(viaRest.body.sources);
    expect(viaMcp.model).toBe(viaRest.body.model);
    expect(viaMcp.retrievedChunks).toBe(viaRest.body.retrievedChunks);
  });

  it("answers a follow-up in the same conversation through conversationId", async () => {
    const c = await client();
    const first = queryResponseSchema.parse(
      (await c.callTool({ name: "ask", arguments: { question: "Which payment methods do you accept?" } }))
        .structuredContent,
    );
    const followUp = await c.callTool({
      name: "ask",
      arguments: {
        question: "And within how many days are invoices payable?",
        conversationId: first.conversationId,
      },
    });
    const second = queryResponseSchema.parse(followUp.structuredContent);
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.response).toMatch(/fourteen days/);
    const text = (followUp.content as Array<{ type: string; text: string }>)[0]?.text ?? "";
    expect(text.split("\n")[0]).toContain(`conversationId ${first.conversationId}`);
    const stored = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${first.conversationId}/`, token)).body,
    );
    expect(stored.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("answers with the agent's fallback message when nothing is relevant", async () => {
    const c = await client();
    const answer = queryResponseSchema.parse(
      (
        await c.callTool({
          name: "ask",
          arguments: { question: "What is the airspeed of an unladen swallow?" },
        })
      ).structuredContent,
    );
    expect(answer.response).toBe(agent.fallbackMessage);
    expect(answer.sources).toEqual([]);
  });

  it("lists the agent's sources with status and counts, and no configuration", async () => {
    const c = await client();
    const result = await c.callTool({ name: "list_sources", arguments: {} });
    const { sources } = result.structuredContent as McpSources;
    expect(sources.map((s) => s.name).sort()).toEqual(["Shop FAQ", "Zoo"]);
    expect(sources.find((s) => s.id === shop.id)).toMatchObject({
      type: "text",
      status: "ready",
      documentCount: shopEntries.length,
    });
    expect(sources.every((s) => s.chunkCount > 0 && !("config" in s))).toBe(true);
  });

  it("counts asks in the agent's analytics", async () => {
    const before = await call<AgentAnalytics>(server, "GET", `/analytics/agents/${agent.id}/`, token);
    const c = await client();
    await c.callTool({ name: "ask", arguments: { question: "How long is the warranty?" } });
    await until(
      async () =>
        (await call<AgentAnalytics>(server, "GET", `/analytics/agents/${agent.id}/`, token)).body.totals
          .queries ===
        before.body.totals.queries + 1,
      { what: "the MCP ask to reach analytics" },
    );
  });
});

describe("documents as resources", () => {
  it("lists the indexed documents and reads one by its URI", async () => {
    const c = await client();
    const { resources, nextCursor } = await c.listResources();
    expect(nextCursor).toBeUndefined();
    expect(resources).toHaveLength(shopEntries.length + 1);
    const returns = resources.find((r) => r.name === "Returns");
    expect(returns?.uri).toMatch(new RegExp(`^lore://agents/${agent.id}/documents/[0-9a-f-]{36}$`));
    const read = await c.readResource({ uri: returns?.uri ?? "" });
    const content = read.contents[0] as { text: string; mimeType: string; _meta?: Record<string, unknown> };
    expect(content.mimeType).toBe("text/markdown");
    expect(content.text).toMatch(/^# Returns/);
    expect(content.text).toContain("within 30 days of delivery");
    expect(content._meta).toMatchObject({ page: 1, pageCount: 1 });
    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe(`lore://agents/${agent.id}/documents/{documentId}{?page}`);
  });

  it("refuses a URI of another agent, an unknown document or a page past the end", async () => {
    const c = await client();
    const { resources } = await c.listResources();
    const uri = resources[0]?.uri ?? "";
    for (const bad of [
      uri.replace(agent.id, crypto.randomUUID()),
      `lore://agents/${agent.id}/documents/${crypto.randomUUID()}`,
      `${uri}?page=2`,
      "https://example.com/",
    ]) {
      await expect(c.readResource({ uri: bad })).rejects.toMatchObject({
        code: -32002,
        data: { error: "not_found", details: { resource: "document", id: bad } },
      });
    }
  });

  it("pages long lists with a cursor and long documents with ?page=", async () => {
    const longText = Array.from(
      { length: 1000 },
      (_, i) =>
        `Paragraph ${i + 1} explains catalogue item number ${i + 1}, which ships in box size ${(i % 7) + 1}.`,
    ).join("\n\n");
    const catalog = await readyTextSource(server, token, "Catalog", [
      { title: "Long manual", content: longText },
      ...Array.from({ length: 104 }, (_, i) => ({
        title: `Item ${i + 1}`,
        content: `Item ${i + 1} is blue.`,
      })),
    ]);
    const catalogAgent = await createAgent(server, token, { name: "Catalog", dataSourceIds: [catalog.id] });
    const c = await client(token, catalogAgent.id);
    const first = await c.listResources();
    expect(first.resources).toHaveLength(100);
    expect(first.nextCursor).toBeDefined();
    const second = await c.listResources({ cursor: first.nextCursor });
    expect(second.resources).toHaveLength(5);
    expect(second.nextCursor).toBeUndefined();
    const all = [...first.resources, ...second.resources];
    expect(new Set(all.map((r) => r.uri)).size).toBe(105);

    const manual = all.find((r) => r.name === "Long manual");
    const pages: string[] = [];
    let next: string | undefined = manual?.uri;
    while (next) {
      const content = (await c.readResource({ uri: next })).contents[0] as {
        text: string;
        _meta?: { page: number; pageCount: number; next?: string };
      };
      pages.push(content.text);
      next = content._meta?.next;
    }
    expect(pages.length).toBeGreaterThan(2);
    const whole = pages.join("\n");
    // Every paragraph exactly once: chunk overlaps are not repeated, nothing is lost between pages.
    const counts = Array.from(
      { length: 1000 },
      (_, i) => whole.split(`Paragraph ${i + 1} explains`).length - 1,
    );
    expect(counts.filter((n) => n !== 1)).toEqual([]);
  });
});

describe("errors", () => {
  it("refuses a caller without a credential (401) or with another agent's key (403)", async () => {
    await expect(connect(server, agent.id)).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining("not_authenticated"),
    });
    const other = await createAgent(server, token, { name: "Other" });
    await expect(connect(server, other.id, apiKey)).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining("permission_denied"),
    });
    await expect(connect(server, crypto.randomUUID(), token)).rejects.toMatchObject({ code: 404 });
  });

  /** A tool's failure as MCP has it: a result with isError, the contract's body as structuredContent. */
  async function toolFailure(c: Client, name: string, args: Record<string, unknown>) {
    const result = await c.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? "";
    const [summary, json] = text.split("\n\n");
    expect(JSON.parse(json ?? "")).toEqual(result.structuredContent);
    const body = result.structuredContent as { error: string; message: string };
    expect(summary).toBe(`Error ${body.error}: ${body.message}`);
    return result.structuredContent;
  }

  it("answers bad tool arguments with an isError result carrying the validation error", async () => {
    const c = await client();
    await c.listTools(); // the SDK then checks every structuredContent against the tool's outputSchema
    expect(await toolFailure(c, "search", { query: "shipping", topK: 0 })).toMatchObject({
      error: "validation_error",
      details: { fields: { topK: [expect.any(String)] } },
    });
    expect(await toolFailure(c, "ask", {})).toMatchObject({
      error: "validation_error",
      details: { fields: { question: [expect.any(String)] } },
    });
    expect(await toolFailure(c, "search", { query: "shipping", mode: "keyword", limit: 3 })).toMatchObject({
      error: "validation_error",
      details: { fields: { mode: ["unknown field"], limit: ["unknown field"] } },
    });
    expect(
      await toolFailure(c, "ask", { question: "Hi", conversationId: crypto.randomUUID() }),
    ).toMatchObject({ error: "not_found", details: { resource: "conversation" } });
  });

  it("answers an unknown tool with the JSON-RPC error InvalidParams (a protocol error)", async () => {
    const c = await client();
    await expect(c.callTool({ name: "delete_everything", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      data: { error: "validation_error" },
    });
  });

  it("reports an agent whose sources were never ready as agent_processing in an isError result", async () => {
    // Created through the service: the route would refuse a loopback URL up front; the sync fails on it.
    const never = await server.services.sources.create(agent.workspaceId, {
      name: "Never ready",
      type: "web",
      config: {
        url: "http://127.0.0.1:9/",
        mode: "page",
        maxPages: 1,
        maxDepth: 0,
        include: [],
        exclude: [],
      },
    });
    const waiting = await createAgent(server, token, { name: "Waiting", dataSourceIds: [never.id] });
    const c = await client(token, waiting.id);
    expect(await toolFailure(c, "ask", { question: "Anything?" })).toMatchObject({
      error: "agent_processing",
      details: { agentId: waiting.id, dataSourceIds: [never.id] },
    });
  });

  it("refuses dataSourceIds not attached to the agent, as /query/ does", async () => {
    const c = await client();
    const stranger = crypto.randomUUID();
    expect(await toolFailure(c, "ask", { question: "Shipping?", dataSourceIds: [stranger] })).toMatchObject({
      error: "validation_error",
      details: { fields: { dataSourceIds: [`not attached: ${stranger}`] } },
    });
  });

  it("answers GET and DELETE with 405 in the contract's error body (stateless: no stream, no session)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await call<{ error: string }>(
        server,
        method,
        `/agents/${agent.id}/mcp/`,
        apiKey,
        undefined,
        {
          Accept: "text/event-stream",
        },
      );
      expect({ method, status: res.status, error: res.body.error, allow: res.headers.get("allow") }).toEqual({
        method,
        status: 405,
        error: "method_not_allowed",
        allow: "POST",
      });
    }
  });

  it("lets browser MCP clients send Mcp-Protocol-Version (CORS preflight)", async () => {
    const res = await call(server, "OPTIONS", `/agents/${agent.id}/mcp/`, undefined, undefined, {
      Origin: "https://inspector.example",
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("mcp-protocol-version");
  });

  it("answers a body that is not JSON-RPC, or an unknown protocol version, with 400 validation_error", async () => {
    const mcp = `/agents/${agent.id}/mcp/`;
    const notRpc = await call<{ error: string }>(server, "POST", mcp, apiKey, { hello: "world" });
    expect([notRpc.status, notRpc.body.error]).toEqual([400, "validation_error"]);
    const oldVersion = await call<{ error: string; message: string }>(
      server,
      "POST",
      mcp,
      apiKey,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { "Mcp-Protocol-Version": "1999-01-01" },
    );
    expect([oldVersion.status, oldVersion.body.error]).toEqual([400, "validation_error"]);
    expect(oldVersion.body.message).toMatch(/protocol version/i);
  });

  it("accepts a notification with 202 and no body", async () => {
    const res = await call(server, "POST", `/agents/${agent.id}/mcp/`, apiKey, {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    expect([res.status, res.body]).toEqual([202, ""]);
  });
});

describe("rate limits", () => {
  let limited: TestServer;
  afterAll(() => limited?.close());

  it("charges search and ask calls to the agent's query limit and refuses with 429 past it", async () => {
    limited = await startTestServer({ LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "4" });
    const admin = (await limited.login()).access;
    const source = await readyTextSource(limited, admin, "FAQ", shopEntries.slice(0, 2));
    const limitedAgent = await createAgent(limited, admin, { name: "Limited", dataSourceIds: [source.id] });
    // initialize, notifications/initialized, tools/list and list_sources ask no question: not charged to the agent.
    const c = await connect(limited, limitedAgent.id, admin);
    await c.listTools();
    // The limit counts per clock minute: the charged calls must not straddle a minute's end.
    await startEarlyInWindow();
    for (let i = 0; i < 4; i++) {
      await c.callTool({ name: "ask", arguments: { question: "How long does standard shipping take?" } });
      await c.callTool({ name: "list_sources", arguments: {} });
    }
    const refused = await c
      .callTool({ name: "search", arguments: { query: "shipping" } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 429, message: expect.stringContaining("rate_limited") });
    await c.close();
  });
});
