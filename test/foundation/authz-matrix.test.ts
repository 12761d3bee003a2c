import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  callers,
  createMatrixFixture,
  expectedCode,
  expectedFor,
  fillPath,
  type MatrixFixture,
  type MatrixRow,
  registeredApiRoutes,
  routeShape,
  type Target,
} from "../helpers/authz.ts";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";

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

/**
 * Every endpoint × every caller. Roles: viewer reads, editor writes agents, admin manages members
 * and keys, owner everything; an API key reaches its own agent only, and never key management.
 * New endpoints add a row here (the coverage test below fails until they do).
 */
const rows: MatrixRow[] = [
  { method: "GET", path: "~/healthz", access: "open", key: "any", ok: 200 },
  { method: "GET", path: "~/readyz", access: "open", key: "any", ok: 200 },
  { method: "GET", path: "/openapi.json", access: "public", key: "any", ok: 200 },
  {
    method: "POST",
    path: "/auth/login/",
    access: "public",
    key: "any",
    ok: 200,
    setup: async (fx) => ({ loginEmail: fx.users.viewer.email }),
    body: (t) => ({ email: t.loginEmail, password: DEFAULT_PASSWORD }),
  },
  {
    method: "POST",
    path: "/auth/token/refresh/",
    access: "public",
    key: "any",
    ok: 200,
    // Refresh tokens are single-use (a replay revokes the user's tokens): each call spends its own.
    fresh: async (fx) => {
      const user = await fx.freshUser();
      return { refresh: (await fx.server.login(user.email, DEFAULT_PASSWORD)).refresh };
    },
    body: (t) => ({ refresh: t.refresh }),
  },
  { method: "GET", path: "/auth/me/", access: "user", key: "none", ok: 200 },
  { method: "POST", path: "/auth/logout/", access: "user", key: "none", ok: 204, invalidatesCaller: true },
  { method: "GET", path: "/workspaces/", access: "user", key: "none", ok: 200 },
  {
    method: "POST",
    path: "/workspaces/",
    access: "user",
    key: "none",
    ok: 201,
    body: () => ({ name: "Team" }),
  },
  { method: "GET", path: "/workspaces/{workspaceId}/members/", access: "viewer", key: "none", ok: 200 },
  {
    method: "POST",
    path: "/workspaces/{workspaceId}/members/",
    access: "admin",
    key: "none",
    ok: 201,
    fresh: async (fx) => ({ email: (await fx.freshUser()).email }),
    body: (t) => ({ email: t.email, role: "viewer" }),
  },
  {
    method: "PATCH",
    path: "/workspaces/{workspaceId}/members/{memberId}/",
    access: "admin",
    key: "none",
    ok: 200,
    body: () => ({ role: "viewer" }),
  },
  {
    method: "DELETE",
    path: "/workspaces/{workspaceId}/members/{memberId}/",
    access: "admin",
    key: "none",
    ok: 204,
    fresh: async (fx, t) => {
      const user = await fx.freshUser();
      await fx.server.addMember(t.workspaceId, user.id, "viewer");
      return { memberId: user.id };
    },
  },
  // A key lists its own agent; every user lists the agents of their workspaces.
  { method: "GET", path: "/agents/", access: "user", key: "any", ok: 200 },
  {
    method: "POST",
    path: "/agents/",
    access: "editor",
    key: "none",
    ok: 201,
    body: (t) => ({ name: "Made in the matrix", workspaceId: t.workspaceId }),
  },
  { method: "GET", path: "/agents/{agentId}/", access: "viewer", key: "own", ok: 200 },
  {
    method: "PATCH",
    path: "/agents/{agentId}/",
    access: "editor",
    key: "own",
    ok: 200,
    body: () => ({ description: "patched by the matrix" }),
  },
  {
    method: "DELETE",
    path: "/agents/{agentId}/",
    access: "editor",
    key: "none",
    ok: 204,
    fresh: (fx) => fx.freshAgent(),
  },
  { method: "GET", path: "/agents/{agentId}/api-keys/", access: "admin", key: "none", ok: 200 },
  {
    method: "POST",
    path: "/agents/{agentId}/api-keys/",
    access: "admin",
    key: "none",
    ok: 201,
    body: () => ({ name: "ci" }),
  },
  {
    method: "DELETE",
    path: "/agents/{agentId}/api-keys/{keyId}/",
    access: "admin",
    key: "none",
    ok: 204,
    fresh: (fx) => fx.freshAgent(),
  },
  { method: "GET", path: "/analytics/agents/{agentId}/", access: "viewer", key: "own", ok: 200 },
  { method: "GET", path: "/workspaces/{workspaceId}/webhooks/", access: "admin", key: "none", ok: 200 },
  {
    method: "POST",
    path: "/workspaces/{workspaceId}/webhooks/",
    access: "admin",
    key: "none",
    ok: 201,
    body: () => ({ url: "http://127.0.0.1:9/hook", events: ["agent.ready"] }),
  },
  {
    method: "GET",
    path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
    access: "admin",
    key: "none",
    ok: 200,
    setup: makeWebhook,
  },
  {
    method: "PATCH",
    path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
    access: "admin",
    key: "none",
    ok: 200,
    setup: makeWebhook,
    body: () => ({ active: false }),
  },
  {
    method: "DELETE",
    path: "/workspaces/{workspaceId}/webhooks/{webhookId}/",
    access: "admin",
    key: "none",
    ok: 204,
    fresh: makeWebhook,
  },
  {
    method: "GET",
    path: "/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/",
    access: "admin",
    key: "none",
    ok: 200,
    setup: makeWebhook,
  },
];

/** Routes the app registers that have no row yet (`routeShape` form); remove each as its row is added. */
const pendingRows: string[] = [
  "GET /data-sources/",
  "POST /data-sources/",
  "GET /data-sources/{}/",
  "PATCH /data-sources/{}/",
  "DELETE /data-sources/{}/",
  "POST /data-sources/{}/sync/",
  "POST /data-sources/{}/files/",
  "DELETE /data-sources/{}/files/{}/",
  "GET /data-sources/{}/documents/",
  "GET /data-sources/{}/syncs/",
  "POST /agents/{}/query/",
  "POST /agents/{}/search/",
  "POST /agents/{}/chat/completions/",
  "GET /agents/{}/conversations/",
  "GET /agents/{}/conversations/{}/",
  "DELETE /agents/{}/conversations/{}/",
  "POST /agents/{}/messages/{}/feedback/",
  "GET /widget/{}/config/",
  "POST /widget/{}/query/",
  "POST /widget/{}/messages/{}/feedback/",
];

let server: TestServer;
let fx: MatrixFixture;

beforeAll(async () => {
  server = await startTestServer({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" });
  fx = await createMatrixFixture(server);
});
afterAll(() => server?.close());

async function call(row: MatrixRow, who: Caller, base: Target) {
  const target = row.fresh ? { ...base, ...(await row.fresh(fx, base)) } : base;
  const path = row.path.startsWith("~") ? `${server.url}${row.path.slice(1)}` : fillPath(row.path, target);
  const res = await server.request<{ error?: string }>(row.method, path, {
    token: fx.credential(who, target),
    body: row.body?.(target),
    headers: row.headers,
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
    expect({ status: res.status, error: res.body?.error ?? null }).toEqual({
      status: want,
      error: code ?? (res.status >= 400 ? res.body?.error : null),
    });
    if (code) expect(res.headers.get("content-type")).toMatch(/application\/json/);
  });
});

describe("the matrix", () => {
  it("has a row for every API route the app registers", () => {
    const covered = new Set(
      rows.filter((r) => !r.path.startsWith("~")).map((r) => routeShape(r.method, r.path)),
    );
    const missing = registeredApiRoutes(server).filter((r) => !covered.has(r) && !pendingRows.includes(r));
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
