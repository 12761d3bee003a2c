// Every operation of /api/openapi.json called with openapi-fetch, an unmodified client from npm, and
// every response (and every stream event) checked by ajv against that same document: the document
// is what an OpenAPI tool sees, so it must describe each status and body the server really sends.

import type { QueryResponse } from "@lore/shared";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { EventSourceParserStream } from "eventsource-parser/stream";
import createClient, { type Client } from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { startTestSite, type TestSite } from "../fakes/web-site.ts";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  DEFAULT_PASSWORD,
  startTestServer,
  type TestServer,
} from "../helpers/server.ts";
import { until } from "../helpers/until.ts";

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Method = "get" | "put" | "post" | "delete" | "patch";
interface Operation {
  parameters: {
    path?: Record<string, string>;
    query?: Record<string, string | number>;
    header?: Record<string, string>;
  };
  requestBody?: { content: Record<string, unknown> };
  responses: Record<number, { content: Record<string, unknown> }>;
}
/** The document's paths as openapi-fetch sees them without generated types: any path, any operation. */
type AnyPaths = Record<string, Partial<Record<Method, Operation>>>;

interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        "x-stream-response"?: { $ref: string };
        security?: Array<Record<string, string[]>>;
        requestBody?: { content: Record<string, unknown> };
        responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
      }
    >
  >;
  components: Record<string, unknown>;
}

let server: TestServer;
/** The workspace's model server (a compatible one on loopback) and the website source's site. */
let modelServer: FakeOpenAI;
let site: TestSite;
let api: Client<AnyPaths>;
let root: Client<AnyPaths>;
let doc: OpenApiDoc;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const validators = new Map<string, ReturnType<Ajv2020["compile"]>>();

/** (operationId, status) pairs seen, and every disagreement between a response and the document. */
const covered = new Map<string, Set<number>>();
const mismatches: string[] = [];

const ORIGIN = "https://shop.example";
const QUESTION = "How long does standard shipping take?";

/** The validator of one media type of one response of one operation, `$ref`s resolved in the document. */
function validatorFor(path: string, method: string, status: number, media: string) {
  const key = `${method} ${path} ${status} ${media}`;
  let validate = validators.get(key);
  if (!validate) {
    const op = doc.paths[path]?.[method];
    // A stream is a response of its own (components/responses), named by the operation's x-stream-response.
    const streamRef =
      media === "text/event-stream" && status === 200 ? op?.["x-stream-response"]?.$ref : undefined;
    const response = streamRef
      ? (doc.components.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>)[
          streamRef.split("/").pop() ?? ""
        ]
      : op?.responses[String(status)];
    const schema = response?.content?.[media]?.schema;
    if (schema === undefined) return undefined;
    // The components beside the schema, so "#/components/schemas/X" resolves inside it.
    validate = ajv.compile({ ...(schema as object), components: doc.components });
    validators.set(key, validate);
  }
  return validate;
}

function check(path: string, method: string, status: number, media: string, body: unknown, what = "body") {
  const op = doc.paths[path]?.[method];
  const declared = op?.responses[String(status)];
  if (!op || !declared) {
    mismatches.push(`${method.toUpperCase()} ${path}: status ${status} is not declared`);
    return;
  }
  if (!declared.content) {
    if (body !== undefined && body !== "")
      mismatches.push(`${method.toUpperCase()} ${path} ${status}: a body where none is declared`);
    return;
  }
  const validate = validatorFor(path, method, status, media);
  if (!validate) {
    mismatches.push(`${method.toUpperCase()} ${path} ${status}: ${media} is not declared`);
    return;
  }
  if (!validate(body))
    mismatches.push(
      `${method.toUpperCase()} ${path} ${status} ${what}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`,
    );
}

interface Call {
  path?: Record<string, string>;
  query?: Record<string, string | number>;
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  /** Sent as it is (a string, FormData), not serialised as JSON. */
  raw?: boolean;
  stream?: boolean;
  rootClient?: boolean;
}

interface Result<T> {
  status: number;
  body: T;
  headers: Headers;
  /** The stream's events, as eventsource-parser reads them. */
  events: Array<{ id?: string; event?: string; data: string }>;
}

/** One operation through openapi-fetch, its response checked against the document. */
async function call<T = Record<string, unknown>>(
  method: Method,
  path: string,
  options: Call = {},
): Promise<Result<T>> {
  const client = options.rootClient ? root : api;
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const init = {
    params: { path: options.path ?? {}, query: options.query ?? {} },
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.raw ? { bodySerializer: (b: unknown) => b } : {}),
    parseAs: options.stream ? ("stream" as const) : ("text" as const),
  };
  // Without generated types the path is a plain string; openapi-fetch's behaviour is the same.
  const request = client.request as unknown as (
    m: Method,
    p: string,
    i: typeof init,
  ) => Promise<{ response: Response; data?: unknown; error?: unknown }>;
  const { response, data, error } = await request(method, path, init);
  const opId = doc.paths[path]?.[method]?.operationId ?? `${method} ${path}`;
  const statuses = covered.get(opId) ?? new Set<number>();
  statuses.add(response.status);
  covered.set(opId, statuses);
  const type = response.headers.get("content-type") ?? "";
  const events: Result<T>["events"] = [];
  let body: unknown;
  if (type.startsWith("text/event-stream")) {
    const stream = (data ?? response.body) as ReadableStream<Uint8Array>;
    const reader = stream
      .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(value);
      if (value.data === "[DONE]") continue;
      check(path, method, response.status, "text/event-stream", JSON.parse(value.data), "event");
    }
  } else {
    // openapi-fetch hands a success over as text (parseAs) and an error already parsed as JSON.
    const got = data ?? error ?? "";
    body = typeof got !== "string" ? got : got === "" ? undefined : JSON.parse(got);
    if (!type.includes("json") && body !== undefined) mismatches.push(`${method} ${path}: ${type} body`);
    check(path, method, response.status, "application/json", body);
  }
  return { status: response.status, body: body as T, headers: response.headers, events };
}

/** The ids the calls create, for the calls after them. */
const ids: Record<string, string> = {};
let admin: string;
let apiKey: string;

beforeAll(async () => {
  // The webhook points at a closed loopback port: allowed, never delivered to; the model server and
  // the website are on loopback too.
  [server, modelServer, site] = await Promise.all([
    startTestServer({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" }),
    startFakeOpenAI({ apiKey: "sk-workspace", models: ["fake-chat"], answer: "Hello from the fake model." }),
    startTestSite(),
  ]);
  const fetchOptions = { fetch: (request: Request) => fetch(request, { redirect: "manual" }) };
  api = createClient<AnyPaths>({ baseUrl: server.api, ...fetchOptions });
  root = createClient<AnyPaths>({ baseUrl: server.url, ...fetchOptions });
  const res = await fetch(`${server.api}/openapi.json`);
  doc = (await res.json()) as OpenApiDoc;
});
afterAll(async () => {
  await server?.close();
  await modelServer?.close();
  await site?.close();
});

/** Logs in a user over openapi-fetch. */
async function login(email: string, password: string): Promise<{ access: string; refresh: string }> {
  const res = await call<{ access: string; refresh: string }>("post", "/auth/login/", {
    body: { email, password },
  });
  expect(res.status).toBe(200);
  return res.body;
}

/** A member-to-be: a user with a login, and an invitation to the admin's workspace. */
async function invitee(label: string): Promise<{ email: string; token: string; invitationId: string }> {
  const email = `${label}-${Date.now()}@example.com`;
  await server.createUser(email, DEFAULT_PASSWORD);
  const invited = await call<{ id: string }>("post", "/workspaces/{workspaceId}/members/", {
    token: admin,
    path: { workspaceId: ids.workspaceId ?? "" },
    body: { email, role: "viewer" },
  });
  expect(invited.status).toBe(201);
  return { email, token: (await login(email, DEFAULT_PASSWORD)).access, invitationId: invited.body.id };
}

async function waitReady(dataSourceId: string): Promise<void> {
  await until(
    async () => {
      const res = await call<{ status: string }>("get", "/data-sources/{dataSourceId}/", {
        token: admin,
        path: { dataSourceId },
      });
      if (res.body.status === "failed") throw new Error(`source ${dataSourceId} failed`);
      return res.body.status === "ready";
    },
    { timeout: 30_000, what: `source ${dataSourceId} to be ready` },
  );
}

describe("openapi-fetch against /api/openapi.json", () => {
  it("reads the document, which describes its own response", async () => {
    expect((await call("get", "/healthz", { rootClient: true })).status).toBe(200);
    expect((await call("get", "/readyz", { rootClient: true })).status).toBe(200);
    const res = await call<{ openapi: string }>("get", "/openapi.json");
    expect(res.status).toBe(200);
    expect(doc.paths["/openapi.json"]?.get?.responses["200"]?.content?.["application/json"]).toBeDefined();
  });

  it("logs in, refreshes, reads the caller, and manages workspaces and members", async () => {
    const session = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    admin = session.access;
    expect((await call("post", "/auth/token/refresh/", { body: { refresh: session.refresh } })).status).toBe(
      200,
    );
    // The console's browser session: the refresh token in an HttpOnly cookie, read by the refresh route.
    const browser = await call("post", "/auth/session/", {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    expect(browser.status).toBe(200);
    const cookie = (browser.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/^lore_session=./);
    expect(
      (await call("post", "/auth/session/refresh/", { headers: { Cookie: cookie }, body: {} })).status,
    ).toBe(200);
    expect((await call("get", "/models/", { token: admin })).status).toBe(200);
    const me = await call<{ workspaces: Array<{ id: string }> }>("get", "/auth/me/", { token: admin });
    ids.workspaceId = me.body.workspaces[0]?.id ?? "";
    expect((await call("get", "/workspaces/", { token: admin })).status).toBe(200);
    expect((await call("post", "/workspaces/", { token: admin, body: { name: "Team" } })).status).toBe(201);
    const ws = { workspaceId: ids.workspaceId };

    const member = await invitee("member");
    const accepted = await call("post", "/invitations/{invitationId}/accept/", {
      token: member.token,
      path: { invitationId: member.invitationId },
    });
    expect(accepted.status).toBe(200);
    const again = await call("post", "/workspaces/{workspaceId}/members/", {
      token: admin,
      path: ws,
      body: { email: member.email, role: "viewer" },
    });
    expect(again.status).toBe(409);
    const members = await call<{ results: Array<{ userId: string; email: string }> }>(
      "get",
      "/workspaces/{workspaceId}/members/",
      { token: admin, path: ws },
    );
    ids.userId = members.body.results.find((m) => m.email === member.email)?.userId ?? "";
    const patched = await call("patch", "/workspaces/{workspaceId}/members/{userId}/", {
      token: admin,
      path: { ...ws, userId: ids.userId },
      body: { role: "editor" },
    });
    expect(patched.status).toBe(200);

    const decliner = await invitee("decliner");
    const declined = await call("post", "/invitations/{invitationId}/decline/", {
      token: decliner.token,
      path: { invitationId: decliner.invitationId },
    });
    expect(declined.status).toBe(204);
    // A new person signs up from a link of their own (the pending one below is deleted later).
    const newcomer = await call<{ id: string }>("post", "/workspaces/{workspaceId}/members/", {
      token: admin,
      path: ws,
      body: { email: `newcomer-${Date.now()}@example.com`, role: "viewer" },
    });
    expect(newcomer.status).toBe(201);
    const link = { invitationId: newcomer.body.id };
    expect((await call("get", "/invitations/{invitationId}/", { path: link })).status).toBe(200);
    const signedUp = await call("post", "/invitations/{invitationId}/signup/", {
      path: link,
      body: { firstName: "New", lastName: "Comer", password: DEFAULT_PASSWORD },
    });
    expect(signedUp.status).toBe(200);
    ids.memberToken = member.token;
    ids.invitationId = (await invitee("pending")).invitationId;
    expect(
      (await call("get", "/workspaces/{workspaceId}/invitations/", { token: admin, path: ws })).status,
    ).toBe(200);

    // The workspace's own model server: connected, read back, listed, asked, then disconnected.
    const provider = { kind: "compatible", baseUrl: modelServer.url, apiKey: "sk-workspace" };
    expect(
      (
        await call("put", "/workspaces/{workspaceId}/model-provider/", {
          token: admin,
          path: ws,
          body: provider,
        })
      ).status,
    ).toBe(200);
    expect(
      (await call("get", "/workspaces/{workspaceId}/model-provider/", { token: admin, path: ws })).status,
    ).toBe(200);
    expect(
      (await call("get", "/workspaces/{workspaceId}/model-provider/models/", { token: admin, path: ws }))
        .status,
    ).toBe(200);
    const tested = await call<{ answer: string }>("post", "/workspaces/{workspaceId}/model-provider/test/", {
      token: admin,
      path: ws,
      body: { model: "fake-chat" },
    });
    expect([tested.status, tested.body.answer]).toEqual([200, "Hello from the fake model."]);
    expect(
      (
        await call("put", "/workspaces/{workspaceId}/model-provider/", {
          token: admin,
          path: ws,
          body: { kind: "none" },
        })
      ).status,
    ).toBe(200);
  });

  it("creates sources, an agent and its key, and asks it (JSON and streamed)", async () => {
    const text = await call<{ id: string }>("post", "/data-sources/", {
      token: admin,
      body: {
        name: "Shop FAQ",
        type: "text",
        workspaceId: ids.workspaceId,
        config: {
          entries: [
            { title: "Shipping", content: "Standard shipping takes three to five business days." },
            { title: "Returns", content: "Returns are free within thirty days of delivery." },
          ],
        },
      },
    });
    expect(text.status).toBe(201);
    ids.dataSourceId = text.body.id;
    const form = new FormData();
    form.append("name", "Manuals");
    form.append("type", "file");
    form.append("workspaceId", ids.workspaceId ?? "");
    form.append("files", new Blob(["Opening hours are nine to five."], { type: "text/plain" }), "hours.txt");
    const files = await call<{ id: string }>("post", "/data-sources/", {
      token: admin,
      body: form,
      raw: true,
    });
    expect(files.status).toBe(201);
    ids.fileSourceId = files.body.id;
    await waitReady(ids.dataSourceId);
    await waitReady(ids.fileSourceId);

    const agent = await call<{ id: string; widgetId: string }>("post", "/agents/", {
      token: admin,
      body: { name: "Shop assistant", workspaceId: ids.workspaceId, dataSourceIds: [ids.dataSourceId] },
    });
    expect(agent.status).toBe(201);
    ids.agentId = agent.body.id;
    const a = { agentId: agent.body.id };
    const patched = await call<{ widgetId: string }>("patch", "/agents/{agentId}/", {
      token: admin,
      path: a,
      body: { allowedOrigins: [ORIGIN], suggestedQuestions: [QUESTION] },
    });
    expect(patched.status).toBe(200);
    ids.widgetId = patched.body.widgetId;
    expect(
      (await call("get", "/agents/", { token: admin, query: { workspace_id: ids.workspaceId ?? "" } }))
        .status,
    ).toBe(200);
    expect((await call("get", "/agents/{agentId}/", { token: admin, path: a })).status).toBe(200);
    const key = await call<{ id: string; key: string }>("post", "/agents/{agentId}/api-keys/", {
      token: admin,
      path: a,
      body: { name: "ci" },
    });
    expect(key.status).toBe(201);
    apiKey = key.body.key;
    ids.keyId = key.body.id;
    expect((await call("get", "/agents/{agentId}/api-keys/", { token: admin, path: a })).status).toBe(200);
    expect((await call("post", "/agents/{agentId}/preview/", { token: admin, path: a })).status).toBe(201);

    const answer = await call<QueryResponse>("post", "/agents/{agentId}/query/", {
      token: apiKey,
      path: a,
      body: { message: QUESTION },
    });
    expect(answer.body.response).toMatch(/three to five business days/);
    ids.conversationId = answer.body.conversationId;
    ids.messageId = answer.body.messageId;
    expect(
      (
        await call("patch", "/agents/{agentId}/conversations/{conversationId}/", {
          token: admin,
          path: { ...a, conversationId: ids.conversationId },
          body: { status: "resolved" },
        })
      ).status,
    ).toBe(200);

    // Streamed: data-only events (onmessage sees them all), each with an id `<messageId>:<seq>`.
    const streamed = await call("post", "/agents/{agentId}/query/", {
      token: apiKey,
      path: a,
      body: { message: QUESTION },
      headers: { Accept: "text/event-stream" },
      stream: true,
    });
    const events = streamed.events.map((e) => JSON.parse(e.data) as { type: string; messageId?: string });
    expect(events.map((e) => e.type)).toEqual([
      "start",
      ...events.slice(1, -2).map(() => "token"),
      "sources",
      "done",
    ]);
    const messageId = events[0]?.messageId;
    expect(streamed.events.map((e) => e.id)).toEqual(events.map((_, i) => `${messageId}:${i}`));
    expect(streamed.events.every((e) => e.event === undefined)).toBe(true);

    expect(
      (
        await call("post", "/agents/{agentId}/search/", {
          token: apiKey,
          path: a,
          body: { query: "returns" },
        })
      ).status,
    ).toBe(200);
    const chat = { messages: [{ role: "user", content: QUESTION }] };
    expect(
      (await call("post", "/agents/{agentId}/chat/completions/", { token: apiKey, path: a, body: chat }))
        .status,
    ).toBe(200);
    const chatStream = await call("post", "/agents/{agentId}/chat/completions/", {
      token: apiKey,
      path: a,
      body: { ...chat, stream: true },
      stream: true,
    });
    expect(chatStream.events.at(-1)?.data).toBe("[DONE]");
    // The OpenAI-compatible Responses subset and the agent as a model.
    expect(
      (
        await call("post", "/agents/{agentId}/responses/", {
          token: apiKey,
          path: a,
          body: { input: QUESTION },
        })
      ).status,
    ).toBe(200);
    const responseStream = await call("post", "/agents/{agentId}/responses/", {
      token: apiKey,
      path: a,
      body: { input: QUESTION, stream: true },
      stream: true,
    });
    expect(responseStream.status).toBe(200);
    expect((await call("get", "/agents/{agentId}/models/", { token: apiKey, path: a })).status).toBe(200);
    expect(
      (
        await call("get", "/agents/{agentId}/models/{modelId}/", {
          token: apiKey,
          path: { ...a, modelId: a.agentId },
        })
      ).status,
    ).toBe(200);
    const mcp = await call("post", "/agents/{agentId}/mcp/", {
      token: apiKey,
      path: a,
      headers: { Accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
    });
    expect(mcp.status).toBe(200);
    const notified = await call("post", "/agents/{agentId}/mcp/", {
      token: apiKey,
      path: a,
      headers: { Accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", method: "notifications/initialized" },
    });
    expect(notified.status).toBe(202);
  });

  it("reads conversations, takes feedback and corrections, checks suggested questions and analytics", async () => {
    const a = { agentId: ids.agentId ?? "" };
    const m = { ...a, messageId: ids.messageId ?? "" };
    expect(
      (await call("get", "/agents/{agentId}/conversations/", { token: admin, path: a, query: { page: 1 } }))
        .status,
    ).toBe(200);
    expect(
      (
        await call("get", "/agents/{agentId}/conversations/{conversationId}/", {
          token: admin,
          path: { ...a, conversationId: ids.conversationId ?? "" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call("post", "/agents/{agentId}/messages/{messageId}/feedback/", {
          token: admin,
          path: m,
          body: { rating: "up" },
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await call("post", "/agents/{agentId}/messages/{messageId}/correction/", {
          token: admin,
          path: m,
          body: { answer: "Two days." },
        })
      ).status,
    ).toBe(201);
    const correction = await call<{ id: string }>("post", "/agents/{agentId}/corrections/", {
      token: admin,
      path: a,
      body: { question: "Do you gift-wrap?", answer: "Yes." },
    });
    expect(correction.status).toBe(201);
    ids.correctionId = correction.body.id;
    const c = { ...a, correctionId: correction.body.id };
    expect((await call("get", "/agents/{agentId}/corrections/", { token: admin, path: a })).status).toBe(200);
    expect(
      (await call("get", "/agents/{agentId}/corrections/{correctionId}/", { token: admin, path: c })).status,
    ).toBe(200);
    const matches = await call<{ correctionId: string; wouldAnswer: unknown[]; wouldNotAnswer: unknown[] }>(
      "get",
      "/agents/{agentId}/corrections/{correctionId}/matches/",
      { token: admin, path: c },
    );
    expect(matches.status).toBe(200);
    expect(matches.body.correctionId).toBe(correction.body.id);
    expect(
      (
        await call("patch", "/agents/{agentId}/corrections/{correctionId}/", {
          token: admin,
          path: c,
          body: { answer: "Yes, for free." },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call("post", "/agents/{agentId}/suggested-questions/check/", { token: admin, path: a })).status,
    ).toBe(200);
    expect((await call("get", "/analytics/agents/{agentId}/", { token: admin, path: a })).status).toBe(200);
  });

  it("manages webhooks and data sources", async () => {
    const ws = { workspaceId: ids.workspaceId ?? "" };
    const hook = await call<{ id: string }>("post", "/workspaces/{workspaceId}/webhooks/", {
      token: admin,
      path: ws,
      body: { url: "http://127.0.0.1:9/hook", events: ["agent.ready"] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    ids.webhookId = hook.body.id;
    const h = { ...ws, webhookId: hook.body.id };
    expect(
      (await call("get", "/workspaces/{workspaceId}/webhooks/", { token: admin, path: ws })).status,
    ).toBe(200);
    expect(
      (await call("get", "/workspaces/{workspaceId}/webhooks/{webhookId}/", { token: admin, path: h }))
        .status,
    ).toBe(200);
    expect(
      (
        await call("patch", "/workspaces/{workspaceId}/webhooks/{webhookId}/", {
          token: admin,
          path: h,
          body: { active: false },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call("get", "/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/", {
          token: admin,
          path: h,
        })
      ).status,
    ).toBe(200);

    const s = { dataSourceId: ids.dataSourceId ?? "" };
    const f = { dataSourceId: ids.fileSourceId ?? "" };
    expect(
      (await call("get", "/data-sources/", { token: admin, query: { workspace_id: ws.workspaceId } })).status,
    ).toBe(200);
    expect(
      (
        await call("patch", "/data-sources/{dataSourceId}/", {
          token: admin,
          path: s,
          body: { name: "Shop FAQ (en)" },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call("get", "/data-sources/{dataSourceId}/entries/", { token: admin, path: s })).status,
    ).toBe(200);
    const put = { ...s, key: "gift wrap/2" };
    expect(
      (
        await call("put", "/data-sources/{dataSourceId}/entries/{key}/", {
          token: admin,
          path: put,
          body: { title: "Gift wrap", content: "Two euros." },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call("put", "/data-sources/{dataSourceId}/entries/{key}/", {
          token: admin,
          path: put,
          body: { title: "Gift wrap", content: "Free." },
        })
      ).status,
    ).toBe(200);
    const bulk = [{ key: "bulk", title: "Bulk", content: "Loaded in bulk." }];
    expect(
      (await call("post", "/data-sources/{dataSourceId}/entries/", { token: admin, path: s, body: bulk }))
        .status,
    ).toBe(202);
    const upload = new FormData();
    upload.append("files", new Blob(["Deliveries arrive before noon."], { type: "text/plain" }), "noon.txt");
    const added = await call<{ documents: Array<{ id: string }> }>(
      "post",
      "/data-sources/{dataSourceId}/files/",
      {
        token: admin,
        path: f,
        body: upload,
        raw: true,
      },
    );
    expect(added.status).toBe(201);
    ids.documentId = added.body.documents[0]?.id ?? "";
    expect((await call("get", "/data-sources/limits/", { token: admin })).status).toBe(200);
    const replacement = new FormData();
    replacement.append(
      "file",
      new Blob(["Deliveries arrive before ten."], { type: "text/plain" }),
      "noon.txt",
    );
    expect(
      (
        await call("put", "/data-sources/{dataSourceId}/files/{documentId}/", {
          token: admin,
          path: { ...f, documentId: ids.documentId },
          body: replacement,
          raw: true,
        })
      ).status,
    ).toBe(200);
    expect(
      (await call("get", "/data-sources/{dataSourceId}/documents/", { token: admin, path: f })).status,
    ).toBe(200);
    expect((await call("get", "/data-sources/{dataSourceId}/syncs/", { token: admin, path: s })).status).toBe(
      200,
    );
    await waitReady(s.dataSourceId);
    expect((await call("post", "/data-sources/{dataSourceId}/sync/", { token: admin, path: s })).status).toBe(
      202,
    );

    // A website source's rules, tried over the pages its sync stored.
    const web = await call<{ id: string }>("post", "/data-sources/", {
      token: admin,
      body: {
        name: "Site",
        type: "web",
        workspaceId: ws.workspaceId,
        config: { url: `${site.url}/`, mode: "page" },
      },
    });
    expect(web.status).toBe(201);
    await waitReady(web.body.id);
    const preview = await call<{ keptCount: number; droppedCount: number }>(
      "post",
      "/data-sources/{dataSourceId}/rules-preview/",
      { token: admin, path: { dataSourceId: web.body.id }, body: { include: [], exclude: ["/**"] } },
    );
    expect([preview.status, preview.body.keptCount, preview.body.droppedCount]).toEqual([200, 0, 1]);
  });

  it("serves the widget's public routes to an allowed page", async () => {
    const w = { widgetId: ids.widgetId ?? "" };
    const page = { Origin: ORIGIN };
    expect((await call("get", "/widget/{widgetId}/config/", { path: w, headers: page })).status).toBe(200);
    // A page the agent does not allow is refused and recorded; the owner reads, dismisses and allows sites.
    const refused = { Origin: "https://refused.example" };
    expect((await call("get", "/widget/{widgetId}/config/", { path: w, headers: refused })).status).toBe(403);
    const a = { agentId: ids.agentId ?? "" };
    expect((await call("get", "/agents/{agentId}/widget-origins/", { token: admin, path: a })).status).toBe(
      200,
    );
    expect(
      (
        await call("post", "/agents/{agentId}/widget-origins/dismiss/", {
          token: admin,
          path: a,
          body: { origin: "https://refused.example" },
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await call("post", "/agents/{agentId}/widget-origins/allow/", {
          token: admin,
          path: a,
          body: { origin: "docs.example.com" },
        })
      ).status,
    ).toBe(200);
    const asked = await call<QueryResponse & { visitorToken: string }>("post", "/widget/{widgetId}/query/", {
      path: w,
      headers: page,
      body: { message: QUESTION },
    });
    expect(asked.status).toBe(200);
    const streamed = await call("post", "/widget/{widgetId}/query/", {
      path: w,
      headers: { ...page, Accept: "text/event-stream" },
      body: { message: QUESTION },
      stream: true,
    });
    expect(streamed.events.every((e) => /^[0-9a-f-]{36}:\d+$/.test(e.id ?? ""))).toBe(true);
    const { visitorToken, conversationId, messageId } = asked.body;
    expect(
      (
        await call("post", "/widget/{widgetId}/messages/{messageId}/feedback/", {
          path: { ...w, messageId },
          headers: page,
          body: { rating: "down", visitorToken },
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await call("post", "/widget/{widgetId}/conversations/{conversationId}/", {
          path: { ...w, conversationId },
          headers: page,
          body: { visitorToken },
        })
      ).status,
    ).toBe(200);
    // The way out: the owner offers a form, the visitor sends a request, the owner resolves it.
    expect(
      (
        await call("patch", "/agents/{agentId}/", {
          token: admin,
          path: a,
          body: { handoff: { mode: "form", url: null } },
        })
      ).status,
    ).toBe(200);
    const sent = await call<{ id: string }>(
      "post",
      "/widget/{widgetId}/conversations/{conversationId}/handoff/",
      {
        path: { ...w, conversationId },
        headers: page,
        body: { visitorToken, email: "visitor@example.com", message: "Please call me back." },
      },
    );
    expect(sent.status).toBe(201);
    ids.handoffId = sent.body.id;
    // Before any question: the request starts the visitor's conversation.
    expect(
      (
        await call("post", "/widget/{widgetId}/handoff/", {
          path: w,
          headers: page,
          body: { email: "first@example.com", message: "Do you ship abroad?" },
        })
      ).status,
    ).toBe(201);
    expect((await call("get", "/agents/{agentId}/handoffs/", { token: admin, path: a })).status).toBe(200);
    // The console's badge: open contact requests by agent, across the caller's workspaces.
    expect((await call("get", "/handoffs/summary/", { token: admin })).status).toBe(200);
    expect(
      (
        await call("patch", "/agents/{agentId}/handoffs/{handoffId}/", {
          token: admin,
          path: { ...a, handoffId: ids.handoffId },
          body: { status: "resolved" },
        })
      ).status,
    ).toBe(200);
  });

  it("answers the error statuses the document declares, with the contract's body", async () => {
    const realIds: Record<string, string> = {
      workspaceId: ids.workspaceId ?? "",
      userId: ids.userId ?? "",
      invitationId: ids.invitationId ?? "",
      webhookId: ids.webhookId ?? "",
      agentId: ids.agentId ?? "",
      keyId: ids.keyId ?? "",
      conversationId: ids.conversationId ?? "",
      messageId: ids.messageId ?? "",
      correctionId: ids.correctionId ?? "",
      dataSourceId: ids.dataSourceId ?? "",
      key: "gift wrap/2",
      documentId: ids.documentId ?? "",
      handoffId: ids.handoffId ?? "",
      widgetId: ids.widgetId ?? "",
      modelId: ids.agentId ?? "",
    };
    const params = (path: string, fill: (name: string) => string) =>
      Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map(([, name = ""]) => [name, fill(name)]));
    const lenient: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item) as Array<[Method, (typeof item)[string]]>) {
        const secured = (op.security ?? []).length > 0;
        const rootClient = path === "/healthz" || path === "/readyz";
        const real = params(path, (n) => realIds[n] ?? "");
        // 401: no credential, and a bad one (RFC 6750's challenge on both).
        if (secured) {
          for (const token of [undefined, "not-a-token"]) {
            const res = await call(method, path, { path: real, ...(token ? { token } : {}), rootClient });
            expect(res.status, `${method} ${path}`).toBe(401);
            // An MCP endpoint's challenge also names its resource metadata (RFC 9728).
            const metadata = path.endsWith("/mcp/")
              ? `, resource_metadata="${server.url}/.well-known/oauth-protected-resource/api${path.replace(/\{(\w+)\}/g, (_, n: string) => realIds[n] ?? "")}"`
              : "";
            expect(res.headers.get("www-authenticate")).toBe(
              `${token ? 'Bearer realm="lore", error="invalid_token"' : 'Bearer realm="lore"'}${metadata}`,
            );
          }
        }
        // 403: an API key where only a user token is accepted.
        if (secured && !(op.security ?? []).some((s) => "apiKey" in s)) {
          const res = await call(method, path, { path: real, token: apiKey });
          expect(res.status, `${method} ${path} with a key`).toBe(403);
        }
        // 404: a path id that names nothing.
        if (path.includes("{")) {
          const res = await call(method, path, {
            path: params(path, (n) => (n === "widgetId" ? "wgt_nothing_here" : crypto.randomUUID())),
            token: admin,
            headers: { Origin: ORIGIN },
            body: op.requestBody ? {} : undefined,
          });
          expect(res.status, `${method} ${path} unknown id`).toBe(404);
        }
        const json = op.requestBody?.content["application/json"];
        if (json && !(method === "delete")) {
          const token = path.startsWith("/widget/") ? undefined : admin;
          // 400: a field the operation does not know; 415: a body that is not JSON.
          const unknown = await call(method, path, {
            path: real,
            ...(token ? { token } : {}),
            headers: { Origin: ORIGIN },
            body: path.endsWith("/entries/") ? [{ zzz: 1 }] : { zzz: 1 },
          });
          // The cookie routes answer by the cookie first: none here, so refresh is 401 and logout,
          // which signs out whatever it is given, 204 (docs/api.md, "Browser sessions").
          const byCookie = { "/auth/session/refresh/": 401, "/auth/session/logout/": 204 }[path];
          if (unknown.status !== (byCookie ?? 400)) lenient.push(`${method} ${path} ${unknown.status}`);
          const notJson = await call(method, path, {
            path: real,
            ...(token ? { token } : {}),
            headers: { Origin: ORIGIN, "Content-Type": "text/plain" },
            body: "hello",
            raw: true,
          });
          expect(notJson.status, `${method} ${path} text/plain`).toBe(415);
        }
      }
    }
    expect(lenient).toEqual([]);
    // 403 from a role: a member who is no admin may not create keys; 403 from an Origin.
    const viewerKey = await call("post", "/agents/{agentId}/api-keys/", {
      token: ids.memberToken ?? "",
      path: { agentId: realIds.agentId ?? "" },
      body: { name: "no" },
    });
    expect(viewerKey.status).toBe(403);
    const evil = await call("get", "/widget/{widgetId}/config/", {
      path: { widgetId: realIds.widgetId ?? "" },
      headers: { Origin: "https://evil.example" },
    });
    expect(evil.status).toBe(403);
    const evilMcp = await call("post", "/agents/{agentId}/mcp/", {
      token: apiKey,
      path: { agentId: realIds.agentId ?? "" },
      headers: { Origin: "https://evil.example", Accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect([evilMcp.status, (evilMcp.body as { error?: string }).error]).toEqual([403, "origin_not_allowed"]);
    // 401 invalid_credentials at login.
    const wrong = await call("post", "/auth/login/", {
      body: { email: ADMIN_EMAIL, password: "wrong-password-1" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="lore"');
  });

  it("deletes what it made", async () => {
    const ws = { workspaceId: ids.workspaceId ?? "" };
    const a = { agentId: ids.agentId ?? "" };
    const deletes: Array<[string, Record<string, string>]> = [
      ["/agents/{agentId}/corrections/{correctionId}/", { ...a, correctionId: ids.correctionId ?? "" }],
      [
        "/agents/{agentId}/conversations/{conversationId}/",
        { ...a, conversationId: ids.conversationId ?? "" },
      ],
      ["/agents/{agentId}/api-keys/{keyId}/", { ...a, keyId: ids.keyId ?? "" }],
      ["/workspaces/{workspaceId}/webhooks/{webhookId}/", { ...ws, webhookId: ids.webhookId ?? "" }],
      [
        "/workspaces/{workspaceId}/invitations/{invitationId}/",
        { ...ws, invitationId: ids.invitationId ?? "" },
      ],
      ["/workspaces/{workspaceId}/members/{userId}/", { ...ws, userId: ids.userId ?? "" }],
      [
        "/data-sources/{dataSourceId}/entries/{key}/",
        { dataSourceId: ids.dataSourceId ?? "", key: "gift wrap/2" },
      ],
      [
        "/data-sources/{dataSourceId}/files/{documentId}/",
        { dataSourceId: ids.fileSourceId ?? "", documentId: ids.documentId ?? "" },
      ],
      ["/agents/{agentId}/", a],
      ["/data-sources/{dataSourceId}/", { dataSourceId: ids.fileSourceId ?? "" }],
    ];
    for (const [path, params] of deletes) {
      expect((await call("delete", path, { token: admin, path: params })).status, path).toBe(204);
    }
    expect((await call("post", "/auth/logout/", { token: ids.memberToken ?? "" })).status).toBe(204);
  });

  it("called every operation of the document, and every response matched it", () => {
    const operations = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    const missing = operations.filter((id) => !covered.get(id)?.size);
    const successless = operations.filter((id) => ![...(covered.get(id) ?? [])].some((s) => s < 300));
    const pairs = [...covered.values()].reduce((n, s) => n + s.size, 0);
    console.log(
      `openapi-fetch: ${operations.length} operations, ${pairs} (operation, status) pairs, ${mismatches.length} mismatches`,
    );
    expect(missing, JSON.stringify(missing)).toEqual([]);
    expect(successless, JSON.stringify(successless)).toEqual([]);
    expect(mismatches).toEqual([]);
  });
});
