import type { QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  callers,
  createMatrixFixture,
  expectedCode,
  expectedFor,
  fillPath,
  fromDeclaration,
  type MatrixFixture,
  type MatrixRow,
  type MatrixRowSpec,
  registeredApiRoutes,
  routeShape,
  type Target,
} from "../helpers/authz.ts";
import { declaredJson, declaredRoute } from "../helpers/contract.ts";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";

async function makeWebhook(fx: MatrixFixture): Promise<Record<string, string>> {
  const res = await fx.server.request<{ id: string }>(
    "POST",
    `/workspaces/${fx.target.workspaceId}/webhooks/`,
    {
      token: fx.credential("owner", fx.target),
      body: { url: "http://127.0.0.1:9/hook", events: ["agent.ready"] },
    },
  );
  if (res.status !== 201) throw new Error(`webhook setup: ${res.status} ${JSON.stringify(res.body)}`);
  return { webhookId: res.body.id };
}

let invited = 0;
/** A pending invitation to `email` into a workspace, made by one of its owners. */
async function invite(fx: MatrixFixture, workspaceId: string, email: string): Promise<string> {
  const { services } = fx.server;
  const ownerId = services.store.memberships.find(
    (m) => m.workspaceId === workspaceId && m.role === "owner",
  )?.userId;
  const owner = services.store.users.get(ownerId ?? "");
  if (!owner) throw new Error(`no owner in ${workspaceId}`);
  return (await services.workspaces.invite(workspaceId, owner, "owner", { email, role: "viewer" })).id;
}

/** otherTenant invited into a fresh user's workspace (accepting never touches the target workspace). */
async function inviteOtherTenant(fx: MatrixFixture): Promise<Record<string, string>> {
  const host = await fx.freshUser();
  const workspaceId = fx.server.services.access.defaultWorkspaceId(host.id);
  return { invitationId: await invite(fx, workspaceId, fx.users.otherTenant.email) };
}

const ALLOWED_ORIGIN = "https://shop.example";
const fromAllowedPage = { Origin: ALLOWED_ORIGIN };
const QUESTION = "How long does shipping take?";
const encoder = new TextEncoder();

async function waitUntilReady(fx: MatrixFixture, id: string): Promise<void> {
  await until(
    () => {
      const status = fx.server.services.sources.get(id).status;
      if (status === "failed") throw new Error(`source ${id} failed`);
      return status === "ready";
    },
    { timeout: 30_000, what: () => `source ${id} to be ready` },
  );
}

let allowedOrigin = 0;
let knowledge: Promise<{ widgetId: string }> | undefined;
/** Once per file: a ready text source attached to the target agent, whose widget admits ALLOWED_ORIGIN. */
function attachKnowledge(fx: MatrixFixture): Promise<{ widgetId: string }> {
  knowledge ??= (async () => {
    const { services } = fx.server;
    const source = await services.sources.create(fx.target.workspaceId, {
      name: "Matrix FAQ",
      type: "text",
      config: { entries: [{ title: "Shipping", content: "Shipping takes three to five business days." }] },
    });
    await waitUntilReady(fx, source.id);
    const agent = services.store.agents.get(fx.target.agentId);
    if (!agent) throw new Error("target agent missing");
    const updated = await services.agents.update(agent, {
      dataSourceIds: [source.id],
      allowedOrigins: [ALLOWED_ORIGIN],
      handoff: { mode: "form", url: null },
    });
    return { widgetId: updated.widgetId };
  })();
  return knowledge;
}

/** One answered question on the target agent (as its owner): a conversation and an assistant message. */
async function askAgent(fx: MatrixFixture): Promise<Record<string, string>> {
  await attachKnowledge(fx);
  const res = await fx.server.request<QueryResponse>("POST", `/agents/${fx.target.agentId}/query/`, {
    token: fx.credential("owner", fx.target),
    body: { message: QUESTION },
  });
  if (res.status !== 200) throw new Error(`query setup: ${res.status} ${JSON.stringify(res.body)}`);
  return { conversationId: res.body.conversationId, messageId: res.body.messageId };
}

/** A correction on the target agent (made through the service), for the routes that read or change one. */
async function makeCorrection(fx: MatrixFixture): Promise<Record<string, string>> {
  const agent = fx.server.services.store.agents.get(fx.target.agentId);
  if (!agent) throw new Error("target agent missing");
  const correction = await fx.server.services.corrections.create(agent, {
    question: "Do you gift-wrap?",
    answer: "Yes, for two euros.",
  });
  return { correctionId: correction.id };
}

/** One answered question through the widget: its message and the visitor token that owns it. */
async function askWidget(fx: MatrixFixture): Promise<Record<string, string>> {
  const { widgetId } = await attachKnowledge(fx);
  const res = await fx.server.request<QueryResponse & { visitorToken: string }>(
    "POST",
    `/widget/${widgetId}/query/`,
    { body: { message: QUESTION }, headers: fromAllowedPage },
  );
  if (res.status !== 200) throw new Error(`widget setup: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    widgetId,
    messageId: res.body.messageId,
    conversationId: res.body.conversationId,
    visitorToken: res.body.visitorToken,
  };
}

/** A visitor's contact request on the target agent (made through the service). */
async function makeHandoff(fx: MatrixFixture): Promise<Record<string, string>> {
  const asked = await askWidget(fx);
  const { services } = fx.server;
  const agent = services.store.agents.get(fx.target.agentId);
  const conversation = services.store.conversations.get(asked.conversationId ?? "");
  if (!agent || !conversation?.visitorId) throw new Error("handoff setup: no widget conversation");
  const handoff = await services.handoffs.create(agent, conversation, conversation.visitorId, {
    email: "visitor@example.org",
    message: "Please call me.",
  });
  return { handoffId: handoff.id };
}

/** A text source of the workspace, not attached to any agent (its sync runs in the background). */
async function makeSource(fx: MatrixFixture): Promise<Record<string, string>> {
  const source = await fx.server.services.sources.create(fx.target.workspaceId, {
    name: `Matrix notes ${Date.now()}`,
    type: "text",
    config: { entries: [{ title: "Returns", content: "Returns are free within thirty days." }] },
  });
  return { dataSourceId: source.id };
}

/** A website source of the workspace (its sync fails at once: loopback is not allowed here). */
async function makeWebSource(fx: MatrixFixture): Promise<Record<string, string>> {
  const source = await fx.server.services.sources.create(fx.target.workspaceId, {
    name: "Matrix site",
    type: "web",
    config: { url: "http://127.0.0.1:9/", mode: "page", maxPages: 1, maxDepth: 0, include: [], exclude: [] },
  });
  return { dataSourceId: source.id };
}

const textFile = (name: string) => ({
  name,
  type: "text/plain",
  bytes: encoder.encode(`${name}: opening hours are nine to five.`),
});

async function makeFileSource(fx: MatrixFixture): Promise<Record<string, string>> {
  const source = await fx.server.services.sources.createFileSource(fx.target.workspaceId, "Matrix files", [
    textFile("hours.txt"),
  ]);
  return { dataSourceId: source.id };
}

/** A new document in the row's file source, for a call that deletes it. */
async function addFile(fx: MatrixFixture, t: Target): Promise<Record<string, string>> {
  const { services } = fx.server;
  const { documents } = await services.sources.addFiles(services.sources.get(t.dataSourceId ?? ""), [
    textFile(`extra-${Date.now()}.txt`),
  ]);
  const doc = documents[0];
  if (!doc) throw new Error("no document added");
  return { documentId: doc.id };
}

/** A new entry in the row's text source, for a call that replaces or deletes it. */
async function addEntry(fx: MatrixFixture, t: Target): Promise<Record<string, string>> {
  const { services } = fx.server;
  const key = `extra-${Date.now()}-${Math.random()}`;
  await services.sources.putEntry(services.sources.get(t.dataSourceId ?? ""), {
    key,
    title: "Extra",
    content: "An entry to delete.",
  });
  return { key: encodeURIComponent(key) };
}

/** A fresh user's browser session cookie (`lore_session=…`). */
async function sessionCookie(fx: MatrixFixture): Promise<string> {
  const user = await fx.freshUser();
  const res = await fx.server.request("POST", "/auth/session/", {
    body: { email: user.email, password: DEFAULT_PASSWORD },
  });
  const cookie = res.headers.getSetCookie()[0]?.split(";")[0];
  if (!cookie) throw new Error("no session cookie");
  return cookie;
}

function uploadForm(): FormData {
  const form = new FormData();
  form.append("files", new Blob(["Deliveries arrive before noon."], { type: "text/plain" }), "noon.txt");
  return form;
}

/**
 * Every endpoint × every caller. Roles: viewer reads, editor writes agents, admin manages members
 * and keys, owner everything; an API key reaches its own agent only, and never key management.
 * Who may call a route and its success status come from the route's declaration (`auth`, `role`,
 * `responses`); a row adds what the call needs (setup, body, headers). New endpoints add a row
 * here (the coverage test below fails until they do).
 */
const rows: MatrixRow[] = (
  [
    { method: "GET", path: "~/healthz" },
    { method: "GET", path: "~/readyz" },
    { method: "GET", path: "/openapi.json" },
    {
      method: "POST",
      path: "/auth/login/",
      setup: async (fx) => ({ loginEmail: fx.users.viewer.email }),
      body: (t) => ({ email: t.loginEmail, password: DEFAULT_PASSWORD }),
    },
    // Login and refresh ignore the Authorization header: every caller gets the same answer.
    { method: "POST", path: "/auth/token/refresh/", body: (t) => ({ refresh: t.refresh }) },
    // The browser session's routes read the cookie, never the Authorization header.
    {
      method: "POST",
      path: "/auth/session/",
      setup: async (fx) => ({ loginEmail: fx.users.viewer.email }),
      body: (t) => ({ email: t.loginEmail, password: DEFAULT_PASSWORD }),
    },
    {
      method: "POST",
      path: "/auth/session/refresh/",
      setup: async (fx) => ({ sessionCookie: await sessionCookie(fx) }),
      body: () => ({}),
      headers: (t) => ({ Cookie: t.sessionCookie ?? "" }),
    },
    {
      method: "POST",
      path: "/auth/session/logout/",
      // Revokes the tokens of the cookie's user: a fresh one per call, never a caller.
      fresh: async (fx) => ({ sessionCookie: await sessionCookie(fx) }),
      body: () => ({}),
      headers: (t) => ({ Cookie: t.sessionCookie ?? "" }),
    },
    { method: "GET", path: "/auth/me/" },
    // The server's models: any signed-in user; an API key has no business with the server's setup.
    { method: "GET", path: "/models/" },
    { method: "POST", path: "/auth/logout/", invalidatesCaller: true },
    { method: "GET", path: "/workspaces/" },
    {
      method: "POST",
      path: "/workspaces/",
      body: () => ({ name: "Team" }),
    },
    { method: "GET", path: "/workspaces/{workspaceId}/members/" },
    {
      method: "POST",
      path: "/workspaces/{workspaceId}/members/",
      fresh: async (fx) => ({ email: (await fx.freshUser()).email }),
      body: (t) => ({ email: t.email, role: "viewer" }),
    },
    { method: "GET", path: "/workspaces/{workspaceId}/invitations/" },
    // The workspace's model server: members read it, admins set it. The matrix's workspace has none
    // connected, so those allowed to list or test its models are told to connect one first (400).
    { method: "GET", path: "/workspaces/{workspaceId}/model-provider/" },
    { method: "PUT", path: "/workspaces/{workspaceId}/model-provider/", body: () => ({ kind: "none" }) },
    {
      method: "GET",
      path: "/workspaces/{workspaceId}/model-provider/models/",
      expect: { editor: 400, admin: 400, owner: 400 },
    },
    {
      method: "POST",
      path: "/workspaces/{workspaceId}/model-provider/test/",
      body: () => ({ model: "openai:any" }),
      expect: { editor: 400, admin: 400, owner: 400 },
    },
    {
      method: "DELETE",
      path: "/workspaces/{workspaceId}/invitations/{invitationId}/",
      fresh: async (fx, t) => ({
        invitationId: await invite(fx, t.workspaceId, `gone-${++invited}@example.com`),
      }),
    },
    // The invitation link opens without a login (the link went to the invitee), and signs a new person up.
    {
      method: "GET",
      path: "/invitations/{invitationId}/",
      setup: async (fx) => ({
        invitationId: await invite(fx, fx.target.workspaceId, `preview-${++invited}@example.com`),
      }),
    },
    {
      method: "POST",
      path: "/invitations/{invitationId}/signup/",
      fresh: async (fx, t) => ({
        invitationId: await invite(fx, t.workspaceId, `newcomer-${++invited}@example.com`),
      }),
      body: () => ({ firstName: "Nia", password: DEFAULT_PASSWORD }),
    },
    // Only the invitee may answer: an invitation to otherTenant's email, into another user's workspace.
    {
      method: "POST",
      path: "/invitations/{invitationId}/accept/",
      fresh: inviteOtherTenant,
      expect: { viewer: 404, editor: 404, admin: 404, owner: 404 },
    },
    {
      method: "POST",
      path: "/invitations/{invitationId}/decline/",
      fresh: inviteOtherTenant,
      expect: { viewer: 404, editor: 404, admin: 404, owner: 404 },
    },
    {
      method: "PATCH",
      path: "/workspaces/{workspaceId}/members/{memberId}/",
      body: () => ({ role: "viewer" }),
    },
    {
      method: "DELETE",
      path: "/workspaces/{workspaceId}/members/{memberId}/",
      fresh: async (fx, t) => {
        const user = await fx.freshUser();
        await fx.server.addMember(t.workspaceId, user.id, "viewer");
        return { memberId: user.id };
      },
    },
    // A key lists its own agent; every user lists the agents of their workspaces.
    { method: "GET", path: "/agents/" },
    {
      method: "POST",
      path: "/agents/",
      body: (t) => ({ name: "Made in the matrix", workspaceId: t.workspaceId }),
    },
    { method: "GET", path: "/agents/{agentId}/" },
    {
      method: "PATCH",
      path: "/agents/{agentId}/",
      body: () => ({ description: "patched by the matrix" }),
    },
    {
      method: "DELETE",
      path: "/agents/{agentId}/",
      fresh: (fx) => fx.freshAgent(),
    },
    { method: "GET", path: "/agents/{agentId}/api-keys/" },
    {
      method: "POST",
      path: "/agents/{agentId}/api-keys/",
      body: () => ({ name: "ci" }),
    },
    {
      method: "DELETE",
      path: "/agents/{agentId}/api-keys/{keyId}/",
      fresh: (fx) => fx.freshAgent(),
    },
    // A preview grant for the demo page: any member who can see the agent; never an API key.
    { method: "POST", path: "/agents/{agentId}/preview/" },
    { method: "GET", path: "/agents/{agentId}/widget-origins/" },
    // A new origin per call: a key may not add one (its agent's reach only narrows).
    {
      method: "POST",
      path: "/agents/{agentId}/widget-origins/allow/",
      body: () => ({ origin: `matrix-${++allowedOrigin}.example.com` }),
      expect: { ownKey: 403 },
    },
    {
      method: "POST",
      path: "/agents/{agentId}/widget-origins/dismiss/",
      body: () => ({ origin: "https://refused.example.com" }),
    },
    { method: "GET", path: "/analytics/agents/{agentId}/" },
    { method: "GET", path: "/workspaces/{workspaceId}/webhooks/" },
    {
      method: "POST",
      path: "/workspaces/{workspaceId}/webhooks/",
      body: () => ({ url: "http://127.0.0.1:9/hook", events: ["agent.ready"] }),
    },
    {
      method: "GET",
      path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
      setup: makeWebhook,
    },
    {
      method: "PATCH",
      path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
      setup: makeWebhook,
      body: () => ({ active: false }),
    },
    {
      method: "DELETE",
      path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
      fresh: makeWebhook,
    },
    {
      method: "GET",
      path: "/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/",
      setup: makeWebhook,
    },
    // Data sources belong to the workspace: viewers read, editors write, API keys never reach them.
    {
      method: "GET",
      path: "/data-sources/?workspace_id={workspaceId}",
      // Listing is open to any user; filtered to a workspace it needs membership.
      access: "viewer",
    },
    {
      method: "POST",
      path: "/data-sources/",
      body: (t) => ({
        name: "Made in the matrix",
        type: "text",
        workspaceId: t.workspaceId,
        config: { entries: [{ title: "Hello", content: "Hello from the matrix." }] },
      }),
    },
    { method: "GET", path: "/data-sources/limits/" },
    {
      method: "GET",
      path: "/data-sources/{dataSourceId}/",
      setup: makeSource,
    },
    {
      method: "PATCH",
      path: "/data-sources/{dataSourceId}/",
      setup: makeSource,
      body: () => ({ name: "Renamed by the matrix" }),
    },
    {
      method: "DELETE",
      path: "/data-sources/{dataSourceId}/",
      fresh: (fx) => makeSource(fx),
    },
    {
      method: "POST",
      path: "/data-sources/{dataSourceId}/sync/",
      setup: makeSource,
    },
    {
      method: "POST",
      path: "/data-sources/{dataSourceId}/rules-preview/",
      setup: makeWebSource,
      body: () => ({ include: ["/docs/**"], exclude: [] }),
    },
    {
      method: "POST",
      path: "/data-sources/{dataSourceId}/files/",
      setup: makeFileSource,
      body: uploadForm,
    },
    {
      method: "PUT",
      path: "/data-sources/{dataSourceId}/files/{documentId}/",
      setup: makeFileSource,
      fresh: addFile,
      body: uploadForm,
    },
    {
      method: "DELETE",
      path: "/data-sources/{dataSourceId}/files/{documentId}/",
      setup: makeFileSource,
      fresh: addFile,
    },
    {
      method: "GET",
      path: "/data-sources/{dataSourceId}/documents/",
      setup: makeFileSource,
    },
    {
      method: "GET",
      path: "/data-sources/{dataSourceId}/syncs/",
      setup: makeSource,
    },
    {
      method: "GET",
      path: "/data-sources/{dataSourceId}/entries/",
      setup: makeSource,
    },
    {
      method: "PUT",
      path: "/data-sources/{dataSourceId}/entries/{key}/",
      setup: makeSource,
      // Replaces an entry made for the call (200; a new key would be 201).
      fresh: addEntry,
      body: () => ({ title: "Matrix entry", content: "Put by the matrix." }),
    },
    {
      method: "DELETE",
      path: "/data-sources/{dataSourceId}/entries/{key}/",
      setup: makeSource,
      fresh: addEntry,
    },
    {
      method: "POST",
      path: "/data-sources/{dataSourceId}/entries/",
      setup: makeSource,
      body: () => [{ key: "bulk", title: "Bulk entry", content: "Loaded by the matrix." }],
    },
    // Asking and reading conversations: viewers and the agent's own key; deleting needs editor (or the key).
    {
      method: "POST",
      path: "/agents/{agentId}/query/",
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
      body: () => ({ message: QUESTION }),
    },
    {
      method: "POST",
      path: "/agents/{agentId}/search/",
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
      body: () => ({ query: "shipping days" }),
    },
    {
      method: "POST",
      path: "/agents/{agentId}/chat/completions/",
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
      body: () => ({ messages: [{ role: "user", content: QUESTION }] }),
    },
    {
      method: "POST",
      path: "/agents/{agentId}/responses/",
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
      body: () => ({ input: QUESTION }),
    },
    { method: "GET", path: "/agents/{agentId}/models/" },
    {
      method: "GET",
      path: "/agents/{agentId}/models/{modelId}/",
      setup: async (fx) => ({ modelId: fx.target.agentId }),
    },
    {
      method: "POST",
      path: "/agents/{agentId}/mcp/",
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
      headers: { Accept: "application/json, text/event-stream" },
      body: () => ({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "ask", arguments: { question: QUESTION } },
      }),
    },
    { method: "GET", path: "/agents/{agentId}/conversations/" },
    {
      method: "GET",
      path: "/agents/{agentId}/conversations/{conversationId}/",
      setup: askAgent,
    },
    {
      method: "PATCH",
      path: "/agents/{agentId}/conversations/{conversationId}/",
      setup: askAgent,
      body: () => ({ status: "resolved" }),
    },
    {
      method: "DELETE",
      path: "/agents/{agentId}/conversations/{conversationId}/",
      fresh: (fx) => askAgent(fx),
    },
    {
      method: "POST",
      path: "/agents/{agentId}/messages/{messageId}/feedback/",
      setup: askAgent,
      body: () => ({ rating: "up", comment: "clear" }),
    },
    // Corrections: viewers read, editors (and the agent's key) write.
    {
      method: "POST",
      path: "/agents/{agentId}/messages/{messageId}/correction/",
      setup: askAgent,
      body: () => ({ answer: "Shipping takes two days." }),
    },
    {
      method: "POST",
      path: "/agents/{agentId}/corrections/",
      body: () => ({ question: "Do you gift-wrap?", answer: "Yes." }),
    },
    { method: "GET", path: "/agents/{agentId}/corrections/" },
    { method: "GET", path: "/agents/{agentId}/corrections/{correctionId}/", setup: makeCorrection },
    {
      method: "GET",
      path: "/agents/{agentId}/corrections/{correctionId}/matches/",
      setup: makeCorrection,
    },
    {
      method: "PATCH",
      path: "/agents/{agentId}/corrections/{correctionId}/",
      setup: makeCorrection,
      body: () => ({ answer: "Yes, for free." }),
    },
    {
      method: "DELETE",
      path: "/agents/{agentId}/corrections/{correctionId}/",
      fresh: (fx) => makeCorrection(fx),
    },
    {
      method: "POST",
      path: "/agents/{agentId}/suggested-questions/check/",
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
    },
    // The widget's routes hold no secret: the page's Origin is the check, credentials add nothing
    // (though a bad one is still refused with 401, as on every API route).
    {
      method: "GET",
      path: "/widget/{widgetId}/config/",
      headers: fromAllowedPage,
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
    },
    {
      method: "POST",
      path: "/widget/{widgetId}/query/",
      headers: fromAllowedPage,
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
      body: () => ({ message: QUESTION }),
    },
    {
      method: "POST",
      path: "/widget/{widgetId}/messages/{messageId}/feedback/",
      headers: fromAllowedPage,
      setup: askWidget,
      body: (t) => ({ rating: "down", visitorToken: t.visitorToken }),
    },
    {
      method: "POST",
      path: "/widget/{widgetId}/conversations/{conversationId}/",
      headers: fromAllowedPage,
      setup: askWidget,
      body: (t) => ({ visitorToken: t.visitorToken }),
    },
    {
      method: "POST",
      path: "/widget/{widgetId}/conversations/{conversationId}/handoff/",
      headers: fromAllowedPage,
      // A new visitor per call: contact requests are limited per visitor.
      fresh: (fx) => askWidget(fx),
      body: (t) => ({ visitorToken: t.visitorToken, email: "visitor@example.org", message: "Call me" }),
    },
    {
      method: "POST",
      path: "/widget/{widgetId}/handoff/",
      headers: fromAllowedPage,
      setup: async (fx) => ({ ...(await attachKnowledge(fx)) }),
      body: () => ({ email: "visitor@example.org", message: "Call me before I ask" }),
    },
    // Handoffs: viewers read, editors (and the agent's key) resolve.
    { method: "GET", path: "/agents/{agentId}/handoffs/" },
    // Any signed-in member: counts over the caller's own workspaces only; a key has no console.
    { method: "GET", path: "/handoffs/summary/" },
    {
      method: "PATCH",
      path: "/agents/{agentId}/handoffs/{handoffId}/",
      setup: makeHandoff,
      body: () => ({ status: "resolved" }),
    },
  ] satisfies MatrixRowSpec[]
).map(fromDeclaration);

/** Keys the body has that the schema's parse dropped: fields the OpenAPI document does not describe. */
function undocumentedKeys(raw: unknown, parsed: unknown, at = "$"): string[] {
  if (Array.isArray(raw) && Array.isArray(parsed))
    return raw.flatMap((item, i) => undocumentedKeys(item, parsed[i], `${at}[${i}]`));
  if (!raw || typeof raw !== "object" || !parsed || typeof parsed !== "object") return [];
  const kept = parsed as Record<string, unknown>;
  return Object.entries(raw).flatMap(([key, value]) =>
    key in kept ? undocumentedKeys(value, kept[key], `${at}.${key}`) : [`${at}.${key}`],
  );
}

/**
 * Internal job fields two routes still return beside the SyncRun (the handlers send the stored
 * record; `GET …/syncs/` strips them). A server bug, reported: once fixed, this test fails until
 * the entry is removed.
 */
const knownLeaks: Record<string, string[]> = {};

/** A success body is exactly what the OpenAPI document says: every field present, none extra. */
function expectDocumentedShape(row: MatrixRow, body: unknown): void {
  const route = declaredRoute(row.method, row.path.replace(/^~/, ""));
  if (!route) throw new Error(`no declared route for ${row.method} ${row.path}`);
  const schema = declaredJson(route, row.ok);
  if (!schema) return;
  const parsed = schema.safeParse(body);
  expect(parsed.error?.issues ?? [], `${row.method} ${row.path}`).toEqual([]);
  expect(undocumentedKeys(body, parsed.data), `${row.method} ${row.path}`).toEqual(
    knownLeaks[routeShape(row.method, row.path)] ?? [],
  );
}

let server: TestServer;
let fx: MatrixFixture;

beforeAll(async () => {
  // Both contact-request rows come from one address: room for every caller of each (4 × 10 per IP).
  server = await startTestServer({
    LORE_OUTBOUND_ALLOWLIST: "127.0.0.1",
    LORE_LIMIT_HANDOFFS_PER_HOUR: "10",
  });
  fx = await createMatrixFixture(server);
});
afterAll(() => server?.close());

async function call(row: MatrixRow, who: Caller, base: Target) {
  const target = row.fresh ? { ...base, ...(await row.fresh(fx, base)) } : base;
  const path = row.path.startsWith("~") ? `${server.url}${row.path.slice(1)}` : fillPath(row.path, target);
  const res = await server.request<{ error?: string | { code: string } }>(row.method, path, {
    token: fx.credential(who, target),
    body: row.body?.(target),
    headers: typeof row.headers === "function" ? row.headers(target) : row.headers,
  });
  if (row.invalidatesCaller && res.status < 300) await fx.reissue(who);
  return res;
}

describe.each(rows.map((r) => [`${r.method} ${r.path}`, r] as const))("%s", (_, row) => {
  let target: Target;
  beforeAll(async () => {
    target = { ...fx.target, ...(row.setup ? await row.setup(fx) : {}) };
  });

  it.each(callers)("as %s", async (who) => {
    const want = expectedFor(row, who);
    const res = await call(row, who, target);
    const code = expectedCode(want, who);
    // The OpenAI-compatible routes carry the code inside OpenAI's error object.
    const error =
      typeof res.body?.error === "object" && res.body.error !== null ? res.body.error.code : res.body?.error;
    expect({ status: res.status, error: error ?? null }).toEqual({
      status: want,
      error: code ?? (res.status >= 400 ? error : null),
    });
    if (code) expect(res.headers.get("content-type")).toMatch(/application\/json/);
    if (res.status === row.ok) expectDocumentedShape(row, res.body);
  });
});

describe("the matrix", () => {
  it("has a row for every API route the app registers", () => {
    const covered = new Set(
      rows.filter((r) => !r.path.startsWith("~")).map((r) => routeShape(r.method, r.path)),
    );
    const missing = registeredApiRoutes(server).filter((r) => !covered.has(r));
    expect(missing).toEqual([]);
  });

  it("keeps other tenants' agents out of their lists, and a key's list to its own agent", async () => {
    const asOther = await server.request<{ results: Array<{ id: string }> }>("GET", "/agents/", {
      token: fx.credential("otherTenant", fx.target),
    });
    expect(asOther.body.results.map((a) => a.id)).not.toContain(fx.target.agentId);
    const asKey = await server.request<{ results: Array<{ id: string }> }>("GET", "/agents/", {
      token: fx.credential("ownKey", fx.target),
    });
    expect(asKey.body.results.map((a) => a.id)).toEqual([fx.target.agentId]);
  });

  it("never lets a credential stand in for an allowed Origin on the widget routes", async () => {
    const { widgetId } = await attachKnowledge(fx);
    for (const who of ["owner", "ownKey"] as const) {
      const pages: Array<Record<string, string>> = [{}, { Origin: "https://evil.example" }];
      for (const headers of pages) {
        const res = await server.request<{ error: string }>("GET", `/widget/${widgetId}/config/`, {
          token: fx.credential(who, fx.target),
          headers,
        });
        expect({ who, headers, status: res.status, error: res.body.error }).toEqual({
          who,
          headers,
          status: 403,
          error: "origin_not_allowed",
        });
      }
    }
  });

  it("a not-found body names the resource and the id", async () => {
    const res = await server.request<{ details: Record<string, unknown> }>(
      "GET",
      `/agents/${fx.target.agentId}/`,
      {
        token: fx.credential("otherTenant", fx.target),
      },
    );
    expect(res.body.details).toEqual({ resource: "agent", id: fx.target.agentId });
  });
});
