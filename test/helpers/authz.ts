/**
 * The authorization matrix: one table of endpoints, every endpoint called as every kind of caller.
 *
 * A row says who may call an endpoint; `expectedFor(row, who)` derives the status every caller
 * gets (401 with the right code for missing/bad credentials, 403 for a visible resource the role or
 * key may not touch, 404 for another tenant). Add a row per endpoint:
 *
 *   { method: "GET", path: "/data-sources/{dataSourceId}/", access: "viewer", key: "none", ok: 200,
 *     setup: async (fx) => ({ dataSourceId: (await makeSource(fx)).id }) }
 *
 * `path` placeholders come from the fixture's Target (workspaceId, agentId, keyId, memberId,
 * email, refresh) plus whatever `setup` (once per row) or `fresh` (once per call, for requests
 * that consume their target, like DELETE) return.
 */

import { createApp } from "@lore/server/app.ts";
import { TokenSigner } from "@lore/server/auth/tokens.ts";
import type { ApiRoute } from "@lore/server/http/route.ts";
import type { Role } from "@lore/shared";
import { declaredRoute, routeShape, successStatus } from "./contract.ts";
import { DEFAULT_PASSWORD, type TestServer } from "./server.ts";

export { routeShape };

export const callers = [
  "anonymous",
  "viewer",
  "editor",
  "admin",
  "owner",
  "otherTenant",
  "ownKey",
  "otherKey",
  "revokedKey",
  "expiredToken",
  "loggedOutToken",
] as const;
export type Caller = (typeof callers)[number];

export interface Target {
  /** The workspace where viewer, editor, admin and owner are members. */
  workspaceId: string;
  /** An agent of that workspace; `ownKey` is one of its keys. */
  agentId: string;
  /** A live API key id of `agentId`. */
  keyId: string;
  /** A member (viewer) of the workspace who is none of the callers. */
  memberId: string;
  /** The email of a user who is not a member of the workspace. */
  email: string;
  /** A valid refresh token (the viewer's). */
  refresh: string;
  /** The secret of an API key of `agentId`, used as the `ownKey` caller. */
  ownKey: string;
  [extra: string]: string;
}

export interface MatrixRow {
  method: string;
  /**
   * Relative to the API prefix (`/agents/{agentId}/`, a query string allowed), or starting with `~`
   * for the site root (`~/healthz`).
   */
  path: string;
  /**
   * Who may call it with a user token: `open` ignores credentials entirely; `public` needs none
   * (bad ones still 401); `user` any logged-in user; a role means that role or higher in the
   * target workspace (lower → 403, another tenant → 404).
   */
  access: "open" | "public" | "user" | Role;
  /** API keys: `none` → 403 for every key; `own` → the agent's own key allowed; `any` → every valid key. */
  key: "none" | "own" | "any";
  /** The success status. */
  ok: number;
  body?: (t: Target) => unknown;
  /** Request headers, fixed or from the target (a cookie from `setup` or `fresh`). */
  headers?: Record<string, string> | ((t: Target) => Record<string, string>);
  /** Once per row, before its calls: extra target fields. */
  setup?: (fx: MatrixFixture) => Promise<Record<string, string>>;
  /** Once per call: resources the request consumes (DELETE); may replace agentId and ownKey. */
  fresh?: (fx: MatrixFixture, t: Target) => Promise<Record<string, string>>;
  /** The call invalidates the caller's tokens (logout): re-issue them afterwards. */
  invalidatesCaller?: boolean;
  /** Exceptions to the derived expectations. */
  expect?: Partial<Record<Caller, number>>;
}

/** A matrix row as written: who may call it and the success status come from the route's declaration. */
export type MatrixRowSpec = Omit<MatrixRow, "access" | "key" | "ok"> & Partial<Pick<MatrixRow, "access">>;

/** `access`, `key` and `ok` as the route declares them (its auth, role, path and success status). */
export function fromDeclaration(spec: MatrixRowSpec): MatrixRow & { route: ApiRoute } {
  const route = declaredRoute(spec.method, spec.path.replace(/^~/, ""));
  if (!route) throw new Error(`${spec.method} ${spec.path} is not a declared route`);
  const access: MatrixRow["access"] =
    route.root || route.ignoresAuthorization
      ? "open"
      : route.auth === "none"
        ? "public"
        : (route.role ?? "user");
  const key: MatrixRow["key"] =
    route.auth === "user"
      ? "none"
      : route.auth === "user-or-key" && route.path.includes("{agentId}")
        ? "own"
        : "any";
  return { access, key, ok: successStatus(route), ...spec, route };
}

const rank: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };
const roleCallers = { viewer: "viewer", editor: "editor", admin: "admin", owner: "owner" } as const;

/** The status `who` must get on `row`. */
export function expectedFor(row: MatrixRow, who: Caller): number {
  const override = row.expect?.[who];
  if (override !== undefined) return override;
  if (row.access === "open") return row.ok;
  switch (who) {
    case "anonymous":
      return row.access === "public" ? row.ok : 401;
    case "revokedKey":
    case "expiredToken":
    case "loggedOutToken":
      return 401;
    case "ownKey":
      return row.access === "public" || row.key !== "none" ? row.ok : 403;
    case "otherKey":
      return row.access === "public" || row.key === "any" ? row.ok : 403;
    case "otherTenant":
      return row.access === "public" || row.access === "user" ? row.ok : 404;
    case "viewer":
    case "editor":
    case "admin":
    case "owner":
      if (row.access === "public" || row.access === "user") return row.ok;
      return rank[roleCallers[who]] >= rank[row.access] ? row.ok : 403;
    default:
      return who satisfies never;
  }
}

/** The error code that goes with a denied status for a caller. */
export function expectedCode(status: number, who: Caller): string | null {
  if (status === 401) {
    if (who === "expiredToken") return "token_expired";
    if (who === "loggedOutToken") return "invalid_token";
    if (who === "revokedKey") return "invalid_api_key";
    return "not_authenticated";
  }
  if (status === 403) return "permission_denied";
  if (status === 404) return "not_found";
  return null;
}

export function fillPath(path: string, t: Target): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = t[name];
    if (value === undefined) throw new Error(`no target value for {${name}} in ${path}`);
    return value;
  });
}

export interface MatrixFixture {
  server: TestServer;
  target: Target;
  users: Record<
    "owner" | "admin" | "editor" | "viewer" | "otherTenant" | "loggedOut" | "member",
    { id: string; email: string }
  >;
  /** The credential each caller sends (undefined for anonymous). */
  credential(who: Caller, t: Target): string | undefined;
  /** Re-issues the access token of a user caller (after a logout). */
  reissue(who: Caller): Promise<void>;
  /** A new agent in the workspace with one API key: `{ agentId, ownKey }`. */
  freshAgent(): Promise<{ agentId: string; ownKey: string; keyId: string }>;
  /** A new user, not a member of the workspace. */
  freshUser(): Promise<{ id: string; email: string }>;
}

let counter = 0;
const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${++counter}@example.com`;

/** Builds the workspace, its members, two agents, live and revoked keys, and every caller's token. */
export async function createMatrixFixture(server: TestServer): Promise<MatrixFixture> {
  const { services } = server;
  const make = async (label: string) => {
    const u = await server.createUser(uniqueEmail(label), DEFAULT_PASSWORD);
    return { id: u.id, email: u.email };
  };
  const [owner, admin, editor, viewer, otherTenant, loggedOut, member] = await Promise.all(
    ["owner", "admin", "editor", "viewer", "other", "leaver", "member"].map(make),
  );
  if (!owner || !admin || !editor || !viewer || !otherTenant || !loggedOut || !member)
    throw new Error("users");
  const workspaceId = services.access.defaultWorkspaceId(owner.id);
  await server.addMember(workspaceId, admin.id, "admin");
  await server.addMember(workspaceId, editor.id, "editor");
  await server.addMember(workspaceId, viewer.id, "viewer");
  await server.addMember(workspaceId, loggedOut.id, "owner");
  await server.addMember(workspaceId, member.id, "viewer");

  const agentA = await services.agents.create(workspaceId, { name: "Agent A" });
  const agentB = await services.agents.create(workspaceId, { name: "Agent B" });
  const ownKey = await services.apiKeys.create(agentA, "own");
  const otherKey = await services.apiKeys.create(agentB, "other");
  const revoked = await services.apiKeys.create(agentA, "revoked");
  await services.apiKeys.revoke(agentA.id, revoked.id);
  const outsider = await make("outsider");

  const tokens = new Map<Caller, string>();
  const byCaller = { owner, admin, editor, viewer, otherTenant } as const;
  const logins = await Promise.all(
    Object.values(byCaller).map((u) => server.login(u.email, DEFAULT_PASSWORD)),
  );
  Object.keys(byCaller).forEach((who, i) => {
    const login = logins[i];
    if (login) tokens.set(who as Caller, login.access);
  });
  const viewerRefresh = logins[3]?.refresh ?? "";

  const leaver = await server.login(loggedOut.email, DEFAULT_PASSWORD);
  const logout = await server.request("POST", "/auth/logout/", { token: leaver.access });
  if (logout.status !== 204) throw new Error(`logout failed: ${logout.status}`);
  tokens.set("loggedOutToken", leaver.access);

  // Signed with the server's own secret and claims, only already expired.
  const ownerRecord = services.store.users.get(owner.id);
  const expiredSigner = new TokenSigner(services.config.jwtSecret, {
    access: -120,
    refresh: -120,
    visitor: -120,
  });
  tokens.set(
    "expiredToken",
    await expiredSigner.sign({ sub: owner.id, kind: "access", ver: ownerRecord?.tokenVersion ?? 0 }),
  );
  tokens.set("otherKey", otherKey.key);
  tokens.set("revokedKey", revoked.key);

  const fixture: MatrixFixture = {
    server,
    users: { owner, admin, editor, viewer, otherTenant, loggedOut, member },
    target: {
      workspaceId,
      agentId: agentA.id,
      keyId: ownKey.id,
      memberId: member.id,
      email: outsider.email,
      refresh: viewerRefresh,
      ownKey: ownKey.key,
    },
    credential(who, t) {
      if (who === "anonymous") return undefined;
      if (who === "ownKey") return t.ownKey;
      return tokens.get(who);
    },
    async reissue(who) {
      const user = who in byCaller ? byCaller[who as keyof typeof byCaller] : undefined;
      if (!user) return;
      tokens.set(who, (await server.login(user.email, DEFAULT_PASSWORD)).access);
    },
    async freshAgent() {
      const agent = await services.agents.create(workspaceId, { name: `Fresh ${++counter}` });
      const key = await services.apiKeys.create(agent, "fresh");
      return { agentId: agent.id, ownKey: key.key, keyId: key.id };
    },
    freshUser: () => make("fresh"),
  };
  return fixture;
}

/** Every API route the app registers (method + path relative to the prefix), as `routeShape`s. */
export function registeredApiRoutes(server: TestServer): string[] {
  const { services } = server;
  const prefix = services.config.apiPrefix;
  const app = createApp(services);
  const shapes = app.routes
    .filter((r) => r.method !== "ALL" && r.path.startsWith(`${prefix}/`))
    .map((r) => routeShape(r.method, r.path.slice(prefix.length)));
  return [...new Set(shapes)].sort();
}
