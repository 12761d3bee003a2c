// Issue #29's answer contract end to end on a small shop knowledge base built here: one question is
// answered, one offered with a doubt (the closest passage, up to three articles), one falls back,
// through /query/ JSON, the SSE `done` event, MCP `ask` and /chat/completions/; the agent's
// answerPolicy moves the outcome; an OpenAI-compatible model (the local fake) that declines falls back.
import { type Agent, type AnswerPolicy, type QueryResponse, queryResponseSchema } from "@lore/shared";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outcomeFor } from "../../server/src/generation/confidence.ts";
import { fittedConfidence } from "../../server/src/generation/confidence-weights.generated.ts";
import { uncertainNotices } from "../../server/src/text/messages.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { call, createAgent, readyTextSource, streamQuery } from "../ingestion/source-helpers.ts";
import { ENTRIES } from "./outcomes-kb.ts";

const ANSWERED = "How long do refunds take?";
const UNCERTAIN = "Do you ship to Canada?";
const FALLBACK_QUESTION = "Do you have a store in Paris?";

let server: TestServer;
let token: string;
let agent: Agent;

beforeAll(async () => {
  ({ server, token, agent } = await startServerWithAgent({
    source: { name: "Shop", entries: ENTRIES },
    agent: { name: "Shop" },
  }));
});
afterAll(async () => {
  await server?.close();
});

const ask = async (message: string, agentId = agent.id) => {
  const res = await call<QueryResponse>(server, "POST", `/agents/${agentId}/query/`, token, { message });
  expect(res.status).toBe(200);
  return res.body;
};
const setPolicy = async (answerPolicy: AnswerPolicy) => {
  const res = await call<Agent>(server, "PATCH", `/agents/${agent.id}/`, token, { answerPolicy });
  expect(res.status).toBe(200);
  expect(res.body.answerPolicy).toBe(answerPolicy);
};

describe("outcomes of the default answerer (balanced policy)", () => {
  it("answers a question the articles answer: cited, confident, no doubt", async () => {
    const body = await ask(ANSWERED);
    expect(agent.answerPolicy).toBe("balanced");
    expect(body.outcome).toBe("answered");
    expect(body.confidence).toBeGreaterThanOrEqual(fittedConfidence.policies.balanced.answer);
    expect(body.response).toMatch(/^Refunds are issued within 14 days/);
    expect(body.response).toContain("[1]");
    expect(body.sources[0]?.title).toBe("Refunds");
  });

  it("offers the closest passage with a doubt, in the visitor's language, and articles that may help", async () => {
    const body = await ask(UNCERTAIN);
    expect(body.outcome).toBe("uncertain");
    expect(body.confidence).toBeLessThan(fittedConfidence.policies.balanced.answer);
    expect(body.response.startsWith(uncertainNotices.en)).toBe(true);
    expect(body.response).toContain("Standard shipping takes 5 to 7 business days");
    expect(body.sources.length).toBeGreaterThan(0);
    expect(new Set(body.sources.map((s) => s.documentId)).size).toBeLessThanOrEqual(3);
    expect(body.sources[0]?.title).toBe("Shipping");
  });

  it("sends the fallback message, with no sources, when nothing matches", async () => {
    const body = await ask(FALLBACK_QUESTION);
    expect(body).toMatchObject({ outcome: "fallback", confidence: 0, sources: [] });
    expect(body.response).toBe(agent.fallbackMessage);
  });

  it("gives the same outcome and confidence in the SSE done event, after tokens that read the same", async () => {
    for (const message of [ANSWERED, UNCERTAIN, FALLBACK_QUESTION]) {
      const json = await ask(message);
      const { events } = await streamQuery(`${server.api}/agents/${agent.id}/query/`, token, { message });
      const done = events.map((e) => e.event).find((e) => e.type === "done");
      const text = events.map((e) => (e.event.type === "token" ? e.event.token : "")).join("");
      expect(done, message).toMatchObject({ outcome: json.outcome, confidence: json.confidence });
      expect(text).toBe(json.response);
    }
  });

  it("gives the same outcome through MCP ask and /chat/completions/", async () => {
    const key = await call<{ key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, {
      name: "mcp",
    });
    const client = new Client({ name: "lore-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.api}/agents/${agent.id}/mcp/`), {
        requestInit: { headers: { Authorization: `Bearer ${key.body.key}` } },
      }),
    );
    try {
      for (const [question, outcome] of [
        [ANSWERED, "answered"],
        [UNCERTAIN, "uncertain"],
        [FALLBACK_QUESTION, "fallback"],
      ] as const) {
        const viaMcp = queryResponseSchema.parse(
          (await client.callTool({ name: "ask", arguments: { question } })).structuredContent,
        );
        expect(viaMcp.outcome, question).toBe(outcome);
        const chat = await call<{ outcome: string; confidence: number }>(
          server,
          "POST",
          `/agents/${agent.id}/chat/completions/`,
          token,
          { messages: [{ role: "user", content: question }] },
        );
        expect(chat.body.outcome, question).toBe(outcome);
        expect(chat.body.confidence).toBe(viaMcp.confidence);
      }
    } finally {
      await client.close();
    }
  });

  it("says it is not sure in the agent's language", async () => {
    const res = await call<Agent>(server, "PATCH", `/agents/${agent.id}/`, token, { language: "de" });
    expect(res.status).toBe(200);
    try {
      const body = await ask(UNCERTAIN);
      expect(body.outcome).toBe("uncertain");
      expect(body.response).toMatch(/^Ich bin nicht sicher/);
    } finally {
      await call<Agent>(server, "PATCH", `/agents/${agent.id}/`, token, { language: null });
    }
  });
});

describe("the agent's answer policy", () => {
  const questions = [
    ANSWERED,
    UNCERTAIN,
    FALLBACK_QUESTION,
    "Do refunds include shipping?",
    "Is there a phone number?",
    "Can I get express delivery?",
    "Is shipping free?",
  ];

  it("moves the outcome by its thresholds; the confidence stays the same", async () => {
    const seen: Record<string, Record<string, { outcome: string; confidence: number }>> = {};
    try {
      for (const policy of ["strict", "lenient", "always"] as const) {
        await setPolicy(policy);
        for (const q of questions) {
          const body = await ask(q);
          seen[q] ??= {};
          seen[q][policy] = { outcome: body.outcome, confidence: body.confidence };
          const expected = body.sources.length === 0 ? "fallback" : outcomeFor(body.confidence, policy);
          expect(body.outcome, `${policy}: ${q} (${body.confidence})`).toBe(expected);
        }
      }
    } finally {
      await setPolicy("balanced");
    }
    for (const q of questions) expect(seen[q]?.strict?.confidence).toBe(seen[q]?.lenient?.confidence);
    // Some question is stated under `lenient` but not under `strict`.
    expect(questions.some((q) => seen[q]?.strict?.outcome !== seen[q]?.lenient?.outcome)).toBe(true);
    // `always` never falls back while a source matches.
    for (const q of questions) if (seen[q]?.always?.outcome === "fallback") expect(q).toBe(FALLBACK_QUESTION);
  });
});

describe("with an OpenAI-compatible chat model", () => {
  let fake: FakeOpenAI;
  let modelServer: TestServer;
  let modelAgent: Agent;
  let modelToken: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    modelServer = await startTestServer({ LORE_OPENAI_BASE_URL: fake.url, LORE_OPENAI_TIMEOUT_MS: "1500" });
    modelToken = (await modelServer.login()).access;
    const source = await readyTextSource(modelServer, modelToken, "Shop", ENTRIES);
    modelAgent = await createAgent(modelServer, modelToken, {
      name: "Shop (model)",
      model: "openai:fake-chat",
      dataSourceIds: [source.id],
    });
  });
  afterAll(async () => {
    await modelServer?.close();
    await fake?.close();
  });

  const askModel = async (message: string) => {
    const res = await call<QueryResponse>(
      modelServer,
      "POST",
      `/agents/${modelAgent.id}/query/`,
      modelToken,
      {
        message,
      },
    );
    expect(res.status).toBe(200);
    return res.body;
  };

  it("falls back when the model says the sources don't hold the answer", async () => {
    fake.setBehaviour({ answer: "I couldn't find anything about that in the provided sources." });
    const body = await askModel("How long do refunds take?");
    expect(body.outcome).toBe("fallback");
    expect(body.sources).toEqual([]);
    expect(body.confidence).toBeGreaterThanOrEqual(0);
    expect(body.confidence).toBeLessThanOrEqual(1);
  });

  it("states a cited answer the retrieval supports, with the confidence the evidence gives", async () => {
    fake.setBehaviour({ answer: "Refunds are issued within 14 days of purchase [1]." });
    const body = await askModel("How long do refunds take?");
    expect(body.outcome).toBe("answered");
    expect(body.confidence).toBeGreaterThanOrEqual(fittedConfidence.policies.balanced.answer);
    expect(body.sources[0]?.title).toBe("Refunds");
  });
});
