// The agent's MCP server driven by the official MCP TypeScript SDK client, unmodified, over its own
// Streamable HTTP transport: every tool, every error path as the SDK reports it, the Origin check,
// and what a reconnecting client costs the agent's question quota.

import {
  type Agent,
  type DataSource,
  mcpSourcesSchema,
  queryResponseSchema,
  searchResponseSchema,
} from "@lore/shared";
import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

const ALLOWED = "https://shop.example";

let server: TestServer;
let token: string;
let shop: DataSource;
let agent: Agent;
let apiKey: string;
const open: Client[] = [];

/** The SDK's client of an agent's MCP URL, with the headers a client would configure. */
async function connect(
  target: TestServer,
  agentId: string,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: "lore-clients-test", version: "1.0.0" });
  const url = new URL(`${target.api}/agents/${agentId}/mcp/`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  open.push(client);
  return client;
}
const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });

/** The text block: a one-line summary, a blank line, then the JSON of structuredContent. */
function textParts(result: CallToolResult): { summary: string; json: unknown } {
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  const at = text.indexOf("\n\n");
  return { summary: text.slice(0, at), json: JSON.parse(text.slice(at + 2)) };
}

/** A tool's failure: an isError result whose structuredContent is the contract's error body. */
async function failure(c: Client, name: string, args: Record<string, unknown>) {
  const result = (await c.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  const { summary, json } = textParts(result);
  expect(json).toEqual(result.structuredContent);
  const body = result.structuredContent as { error: string; message: string; details: unknown };
  expect(summary).toBe(`Error ${body.error}: ${body.message}`);
  return body;
}

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  agent = await createAgent(server, token, {
    name: "Shop assistant",
    dataSourceIds: [shop.id],
    allowedOrigins: [ALLOWED],
  });
  const key = await call<{ key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, {
    name: "mcp",
  });
  apiKey = key.body.key;
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await server?.close();
});

describe("the MCP SDK client", () => {
  it("calls every tool and gets results that match the declared output schemas", async () => {
    const c = await connect(server, agent.id, bearer(apiKey));
    // After tools/list the SDK checks every structuredContent against the tool's outputSchema.
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask", "list_sources", "search"]);
    for (const tool of tools) expect(tool.inputSchema.additionalProperties).toBe(false);

    const search = (await c.callTool({
      name: "search",
      arguments: { query: "express shipping" },
    })) as CallToolResult;
    const found = searchResponseSchema.parse(search.structuredContent);
    expect(found.results[0]?.title).toBe("Shipping");
    expect(textParts(search)).toEqual({
      summary: `${found.results.length} passages for "express shipping", best first.`,
      json: search.structuredContent,
    });

    const ask = (await c.callTool({
      name: "ask",
      arguments: { question: "How long does standard shipping take?" },
    })) as CallToolResult;
    const answer = queryResponseSchema.parse(ask.structuredContent);
    expect(answer.response).toMatch(/three to five business days/);
    expect(textParts(ask).summary).toContain(`pass conversationId ${answer.conversationId}`);
    expect(textParts(ask).json).toEqual(ask.structuredContent);
    const followUp = (await c.callTool({
      name: "ask",
      arguments: { question: "And express?", conversationId: answer.conversationId },
    })) as CallToolResult;
    expect(queryResponseSchema.parse(followUp.structuredContent).conversationId).toBe(answer.conversationId);

    const sources = (await c.callTool({ name: "list_sources", arguments: {} })) as CallToolResult;
    expect(mcpSourcesSchema.parse(sources.structuredContent).sources.map((s) => s.id)).toEqual([shop.id]);
    expect(textParts(sources).summary).toBe("1 data source is attached.");

    await expect(c.ping()).resolves.toEqual({});
    const { resources } = await c.listResources();
    expect(resources.length).toBe(shopEntries.length);
    const read = await c.readResource({ uri: resources[0]?.uri ?? "" });
    expect(read.contents[0]).toMatchObject({ mimeType: "text/markdown" });
  });

  it("gets every argument and business error as an isError result with the contract's body", async () => {
    const c = await connect(server, agent.id, bearer(apiKey));
    await c.listTools();
    expect(await failure(c, "search", { query: "shipping", topK: 0 })).toMatchObject({
      error: "validation_error",
      details: { fields: { topK: [expect.any(String)] } },
    });
    expect(await failure(c, "search", { query: "   " })).toMatchObject({
      error: "validation_error",
      details: { fields: { query: ["must not be blank"] } },
    });
    expect(await failure(c, "ask", {})).toMatchObject({
      error: "validation_error",
      details: { fields: { question: [expect.any(String)] } },
    });
    expect(await failure(c, "ask", { question: "Hi", stream: true })).toMatchObject({
      error: "validation_error",
      details: { fields: { stream: ["unknown field"] } },
    });
    expect(await failure(c, "list_sources", { verbose: true })).toMatchObject({
      error: "validation_error",
      details: { fields: { verbose: ["unknown field"] } },
    });
    const stranger = crypto.randomUUID();
    expect(await failure(c, "search", { query: "shipping", dataSourceIds: [stranger] })).toMatchObject({
      error: "validation_error",
      details: { fields: { dataSourceIds: [`not attached: ${stranger}`] } },
    });
    expect(await failure(c, "ask", { question: "Hi", conversationId: stranger })).toMatchObject({
      error: "not_found",
      details: { resource: "conversation", id: stranger },
    });
  });

  it("gets protocol errors as JSON-RPC errors: an unknown tool, an unknown resource, an undeclared method", async () => {
    const c = await connect(server, agent.id, bearer(apiKey));
    await expect(c.callTool({ name: "delete_everything", arguments: {} })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      data: { error: "validation_error" },
    });
    const uri = `lore://agents/${agent.id}/documents/${crypto.randomUUID()}`;
    await expect(c.readResource({ uri })).rejects.toMatchObject({
      code: -32002,
      data: { error: "not_found", details: { resource: "document", id: uri } },
    });
    // No prompts capability is declared; the SDK client refuses to send it, so ask over the wire.
    const res = await call<{ error?: { code: number } }>(
      server,
      "POST",
      `/agents/${agent.id}/mcp/`,
      apiKey,
      {
        jsonrpc: "2.0",
        id: 7,
        method: "prompts/list",
      },
      { Accept: "application/json, text/event-stream" },
    );
    expect(res.body.error?.code).toBe(ErrorCode.MethodNotFound);
  });

  it("is refused at connect without a credential (401), with another agent's key (403), for an unknown agent (404)", async () => {
    await expect(connect(server, agent.id)).rejects.toMatchObject({ code: 401 });
    const other = await createAgent(server, token, { name: "Other" });
    await expect(connect(server, other.id, bearer(apiKey))).rejects.toMatchObject({ code: 403 });
    await expect(connect(server, crypto.randomUUID(), bearer(token))).rejects.toMatchObject({ code: 404 });
  });

  it("answers a bad key with a 401 naming the RFC 9728 resource metadata, which the SDK discovers", async () => {
    const badKey = `${apiKey.slice(0, -4)}xxxx`;
    const refused = await connect(server, agent.id, bearer(badKey)).catch((e: unknown) => e);
    // The SDK reports the API-key problem as the server said it.
    expect(refused).toMatchObject({ code: 401, message: expect.stringContaining("invalid_api_key") });
    const raw = await fetch(`${server.api}/agents/${agent.id}/mcp`, {
      method: "POST",
      headers: {
        ...bearer(badKey),
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    const metadataUrl = `${server.url}/.well-known/oauth-protected-resource/api/agents/${agent.id}/mcp/`;
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toBe(
      `Bearer realm="lore", error="invalid_token", resource_metadata="${metadataUrl}"`,
    );
    const mcpUrl = new URL(`${server.api}/agents/${agent.id}/mcp/`);
    const metadata = await discoverOAuthProtectedResourceMetadata(mcpUrl);
    expect(metadata).toMatchObject({ resource: mcpUrl.href, bearer_methods_supported: ["header"] });
    expect(await (await fetch(metadataUrl)).json()).toEqual(metadata);
  });

  it("refuses a browser Origin the agent does not allow (403 origin_not_allowed) and serves an allowed one", async () => {
    await expect(
      connect(server, agent.id, { ...bearer(apiKey), Origin: "http://evil.example" }),
    ).rejects.toMatchObject({ code: 403, message: expect.stringContaining("origin_not_allowed") });
    await expect(connect(server, agent.id, { ...bearer(apiKey), Origin: "null" })).rejects.toMatchObject({
      code: 403,
    });
    const fromPage = await connect(server, agent.id, { ...bearer(apiKey), Origin: ALLOWED });
    expect((await fromPage.listTools()).tools).toHaveLength(3);
    // The refusal is the contract's body.
    const raw = await call<{ error: string; details: { origin: string } }>(
      server,
      "POST",
      `/agents/${agent.id}/mcp/`,
      apiKey,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { Origin: "http://evil.example", Accept: "application/json, text/event-stream" },
    );
    expect([raw.status, raw.body.error, raw.body.details.origin]).toEqual([
      403,
      "origin_not_allowed",
      "http://evil.example",
    ]);
  });
});

describe("the agent's question quota", () => {
  let limited: TestServer;
  afterAll(() => limited?.close());

  // Needs the `watchdog` branch (only tools/call of search and ask is charged as a question).
  it("is untouched by initialize, ping and tools/list: REST /query/ still answers after many reconnects", async () => {
    limited = await startTestServer({ LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "2" });
    const admin = (await limited.login()).access;
    const source = await readyTextSource(limited, admin, "FAQ", shopEntries.slice(0, 2));
    const quota = await createAgent(limited, admin, { name: "Quota", dataSourceIds: [source.id] });
    for (let i = 0; i < 4; i++) {
      const c = await connect(limited, quota.id, bearer(admin));
      await c.ping();
      await c.listTools();
      await c.close();
    }
    const res = await call(limited, "POST", `/agents/${quota.id}/query/`, admin, {
      message: "How long does standard shipping take?",
    });
    expect(res.status).toBe(200);
  });
});
