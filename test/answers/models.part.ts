// GET /models/ (what an agent's model may name, whether embeddings exist) and the retrieval mode
// agents and searches report: the one they actually run in, not only the one they are set to.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Agent, ModelsResponse, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { call, search } from "../ingestion/source-helpers.ts";

const ENTRIES = [
  { title: "Returns", content: "Unopened items can be returned within thirty days for a full refund." },
  { title: "Shipping", content: "Standard shipping takes three to five business days." },
];

describe("without a model server or an embedding model (the defaults)", () => {
  let server: TestServer;
  let token: string;
  let agent: Agent;

  beforeAll(async () => {
    // No translation dictionaries either (a folder with none compiled).
    ({ server, token, agent } = await startServerWithAgent({
      env: {
        LORE_DICTIONARIES_DIR: mkdtempSync(join(tmpdir(), "lore-no-dictionaries-")),
      },
      source: { name: "Shop FAQ", entries: ENTRIES },
      agent: { name: "Shop" },
    }));
  });
  afterAll(() => server?.close());

  it("lists only the built-in model and says embeddings do not exist", async () => {
    const res = await call<ModelsResponse>(server, "GET", "/models/", token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      defaultModel: "extractive",
      chat: [{ id: "extractive", provider: "builtin" }],
      modelServer: "none",
      embeddings: { available: false, model: null },
      translation: { dictionaries: [], missing: [] },
    });
  });

  it("names the languages visitors asked in that no dictionary translates (issue #53)", async () => {
    const asked = await call<QueryResponse>(server, "POST", `/agents/${agent.id}/query/`, token, {
      message: "¿Cuánto tarda el envío estándar?",
    });
    expect(asked.status).toBe(200);
    const res = await call<ModelsResponse>(server, "GET", "/models/", token);
    expect(res.body.translation).toEqual({ dictionaries: [], missing: ["es"] });
  });

  it("reports a hybrid agent as keyword, as its searches run", async () => {
    expect(agent.retrieval.mode).toBe("hybrid");
    expect(agent.effectiveRetrievalMode).toBe("keyword");
    const fetched = await call<Agent>(server, "GET", `/agents/${agent.id}/`, token);
    expect(fetched.body.effectiveRetrievalMode).toBe("keyword");
    const listed = await call<{ results: Agent[] }>(server, "GET", "/agents/", token);
    expect(listed.body.results.find((a) => a.id === agent.id)?.effectiveRetrievalMode).toBe("keyword");

    const semantic = await search(server, token, agent.id, "how long does shipping take", {
      mode: "semantic",
    });
    const keyword = await search(server, token, agent.id, "how long does shipping take", { mode: "keyword" });
    expect(semantic.mode).toBe("keyword");
    // The same search ran: what the agent reports is what a visitor gets.
    expect(semantic.results.map((r) => [r.title, r.score])).toEqual(
      keyword.results.map((r) => [r.title, r.score]),
    );
  });

  it("keeps the setting while reporting the effective mode, and refuses the read-only field", async () => {
    const patched = await call<Agent>(server, "PATCH", `/agents/${agent.id}/`, token, {
      retrieval: { mode: "semantic" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.retrieval.mode).toBe("semantic");
    expect(patched.body.effectiveRetrievalMode).toBe("keyword");
    const refused = await call<{ details: { fields: Record<string, string[]> } }>(
      server,
      "PATCH",
      `/agents/${agent.id}/`,
      token,
      { effectiveRetrievalMode: "hybrid" },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.details.fields).toEqual({ effectiveRetrievalMode: ["unknown field"] });
  });

  it("answers a signed-in user only: 401 without a token, 403 for an API key", async () => {
    expect((await call(server, "GET", "/models/")).status).toBe(401);
    const key = await call<{ key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, {
      name: "ci",
    });
    const res = await call<{ error: string }>(server, "GET", "/models/", key.body.key);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("permission_denied");
  });
});

describe("with an OpenAI-compatible model server and an embedding model", () => {
  let fake: FakeOpenAI;
  let server: TestServer;
  let token: string;
  let agent: Agent;

  beforeAll(async () => {
    fake = await startFakeOpenAI({
      models: ["fake-chat", "fake-embed", "llama-3.1-8b", "text-embedding-3-small", "whisper-1"],
    });
    ({ server, token, agent } = await startServerWithAgent({
      env: {
        LORE_OPENAI_BASE_URL: fake.url,
        LORE_CHAT_MODEL: "openai:fake-chat",
        LORE_EMBEDDING_MODEL: "hashed",
      },
      source: { name: "Shop FAQ", entries: ENTRIES },
      agent: { name: "Shop" },
    }));
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it("lists the server's chat models, leaving out embedding and speech models", async () => {
    const res = await call<ModelsResponse>(server, "GET", "/models/", token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      defaultModel: "openai:fake-chat",
      chat: [
        { id: "extractive", provider: "builtin" },
        { id: "openai:fake-chat", provider: "openai" },
        { id: "openai:llama-3.1-8b", provider: "openai" },
      ],
      modelServer: "listed",
      embeddings: { available: true, model: "hashed" },
      translation: { dictionaries: expect.any(Array), missing: [] },
    });
  });

  it("asks the model server once, not on every request", async () => {
    const before = fake.requests.filter((r) => r.path.endsWith("/models")).length;
    await call(server, "GET", "/models/", token);
    await call(server, "GET", "/models/", token);
    expect(fake.requests.filter((r) => r.path.endsWith("/models")).length).toBe(before);
  });

  it("reports the agent's set mode as effective, and searches run in it", async () => {
    expect(agent.effectiveRetrievalMode).toBe("hybrid");
    const semantic = await search(server, token, agent.id, "how long does shipping take", {
      mode: "semantic",
    });
    const keyword = await search(server, token, agent.id, "how long does shipping take", { mode: "keyword" });
    expect(semantic.mode).toBe("semantic");
    expect(keyword.mode).toBe("keyword");
    expect(semantic.results.map((r) => r.score)).not.toEqual(keyword.results.map((r) => r.score));
  });
});

describe("with a model server that does not answer", () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    server = await startTestServer({
      LORE_OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      LORE_CHAT_MODEL: "openai:gpt-4o-mini",
    });
    token = (await server.login()).access;
  });
  afterAll(() => server?.close());

  it("still lists the configured models and says the server is unreachable", async () => {
    const res = await call<ModelsResponse>(server, "GET", "/models/", token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      defaultModel: "openai:gpt-4o-mini",
      chat: [
        { id: "extractive", provider: "builtin" },
        { id: "openai:gpt-4o-mini", provider: "openai" },
      ],
      modelServer: "unreachable",
      embeddings: { available: false, model: null },
      translation: { dictionaries: expect.any(Array), missing: [] },
    });
  });
});
