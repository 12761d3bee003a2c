import { apiRoutes } from "@lore/server/api.ts";
import { statusByCode } from "@lore/server/errors.ts";
import { routeErrors } from "@lore/server/http/route.ts";
import { errorCodes } from "@lore/shared";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredApiRoutes, routeShape } from "../helpers/authz.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Doc {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { responses?: Record<string, Json>; security?: Json[] }>>;
  components: Record<string, Record<string, Json>>;
}

let server: TestServer;
let doc: Doc;

beforeAll(async () => {
  server = await startTestServer();
  const res = await server.request<Doc>("GET", "/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => server?.close());

function collectRefs(node: Json, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, out);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else collectRefs(value, out);
    }
  }
  return out;
}

function resolvePointer(root: Json, ref: string): Json | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let node: Json | undefined = root;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!node || typeof node !== "object" || Array.isArray(node)) return undefined;
    node = node[key];
  }
  return node;
}

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI 3.1 document the official JSON schema accepts", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("names this server's API base as its server", () => {
    expect(doc.servers[0]?.url).toBe(server.api);
  });

  it("honours X-Forwarded-Proto/Host for the server URL only behind a trusted proxy", async () => {
    const headers = { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "docs.example.com" };
    const untrusted = await server.request<Doc>("GET", "/openapi.json", { headers });
    expect(untrusted.body.servers[0]?.url).toBe(server.api);
    const proxied = await startTestServer({ LORE_TRUST_PROXY: "true" });
    try {
      const res = await proxied.request<Doc>("GET", "/openapi.json", { headers });
      expect(res.body.servers[0]?.url).toBe("https://docs.example.com/api");
    } finally {
      await proxied.close();
    }
  });

  it("gives every operation a success response and the error body for its error statuses", () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([m, op]) => ({ path, m, op })),
    );
    expect(operations.length).toBe(apiRoutes.length);
    for (const { path, m, op } of operations) {
      const statuses = Object.keys(op.responses ?? {});
      expect(
        statuses.some((s) => s.startsWith("2")),
        `${m} ${path}`,
      ).toBe(true);
      // The OpenAI-compatible routes answer errors in OpenAI's shape, every other route in Lore's.
      const openAi = apiRoutes.some((r) => r.path === path && r.method === m && r.errorFormat === "openai");
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(collectRefs(op.responses?.[status] ?? null), `${m} ${path} ${status}`).toEqual([
          openAi ? "#/components/schemas/OpenAIError" : "#/components/schemas/Error",
        ]);
      }
    }
  });

  it("resolves every $ref", () => {
    const refs = [...new Set(collectRefs(doc as unknown as Json))];
    expect(refs.length).toBeGreaterThan(20);
    const dangling = refs.filter((ref) => resolvePointer(doc as unknown as Json, ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it("marks public routes as needing no credential and the others as bearer-authenticated", () => {
    expect(doc.paths["/auth/login/"]?.post?.security).toEqual([]);
    expect(doc.paths["/agents/{agentId}/api-keys/"]?.post?.security).toEqual([{ userToken: [] }]);
    expect(doc.paths["/agents/{agentId}/query/"]?.post?.security).toEqual([
      { userToken: [] },
      { apiKey: [] },
    ]);
  });

  it("describes the query's SSE alternative and the contract's QueryResponse fields", () => {
    const schemas = doc.components.schemas as Record<string, { required?: string[] }>;
    expect(schemas.QueryResponse?.required).toEqual(
      expect.arrayContaining([
        "response",
        "conversationId",
        "messageId",
        "sources",
        "latency",
        "model",
        "retrievedChunks",
        "metadata",
      ]),
    );
    // The 200 is the JSON body (typed clients type it by default); the stream is its own response.
    const query = doc.paths["/agents/{agentId}/query/"]?.post as {
      responses: Record<string, { content: Record<string, Json> }>;
      "x-stream-response": { $ref: string };
    };
    expect(Object.keys(query.responses["200"]?.content ?? {})).toEqual(["application/json"]);
    expect(query["x-stream-response"]).toEqual({
      $ref: "#/components/responses/postAgentsAgentIdQueryStream",
    });
    const stream = (doc.components.responses as Record<string, { content: Record<string, Json> }>)
      .postAgentsAgentIdQueryStream;
    expect(Object.keys(stream?.content ?? {})).toEqual(["text/event-stream"]);
  });
});

describe("the route declarations", () => {
  it("declare every route the app registers, and the app registers every declared one", () => {
    const declared = apiRoutes.filter((r) => !r.root).map((r) => routeShape(r.method, r.path));
    const registered = registeredApiRoutes(server);
    expect(registered.filter((r) => !declared.includes(r))).toEqual([]);
    expect(declared.filter((r) => !registered.includes(r))).toEqual([]);
  });

  it("declare each endpoint once", () => {
    const shapes = apiRoutes.map((r) => routeShape(r.method, r.path));
    expect(shapes.length).toBe(new Set(shapes).size);
  });

  it("map every error code they name to a status, and every code has one", () => {
    for (const route of apiRoutes)
      for (const code of routeErrors(route)) expect(statusByCode[code]).toBeGreaterThanOrEqual(400);
    expect(Object.keys(statusByCode).sort()).toEqual([...errorCodes].sort());
  });
});
