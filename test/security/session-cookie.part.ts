/**
 * The console's browser session (issue #31, item 5): `POST /auth/session/` logs in with the refresh
 * token in an HttpOnly, SameSite=Strict cookie scoped to the session routes; any tab of the browser
 * (a fresh request carrying only that cookie) gets an access token from `/auth/session/refresh/`;
 * `/auth/session/logout/` revokes and clears it. The bearer flows for API clients stay as they were.
 */

import type { ErrorBody, SessionResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";

let n = 0;

/** The `name=value` of the session cookie set by a response, and its attributes. */
function sessionCookie(headers: Headers): { pair: string; attributes: string[] } | null {
  const line = headers.getSetCookie().find((c) => c.startsWith("lore_session="));
  if (!line) return null;
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
  return { pair, attributes };
}

async function sessionLogin(server: TestServer) {
  const user = await server.createUser(`session-${++n}@example.com`);
  const res = await server.request<SessionResponse>("POST", "/auth/session/", {
    body: { email: user.email, password: DEFAULT_PASSWORD },
  });
  expect(res.status).toBe(200);
  const cookie = sessionCookie(res.headers);
  if (!cookie) throw new Error("no session cookie");
  return { user, res, cookie: cookie.pair, attributes: cookie.attributes };
}

/** A second tab: a fresh request with nothing but the browser's cookie. */
const refreshWith = (server: TestServer, cookie?: string) =>
  server.request<SessionResponse & ErrorBody>("POST", "/auth/session/refresh/", {
    body: {},
    ...(cookie ? { headers: { Cookie: cookie } } : {}),
  });

describe("cookie session, rotation off (the default)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it("login sets an HttpOnly, SameSite=Strict cookie on the session routes only, and no refresh token in the body", async () => {
    const { res, attributes, user } = await sessionLogin(server);
    expect(Object.keys(res.body).sort()).toEqual(["access", "user"]);
    expect(res.body.user.email).toBe(user.email);
    const lower = attributes.map((a) => a.toLowerCase());
    expect(lower).toContain("httponly");
    expect(lower).toContain("samesite=strict");
    expect(lower).toContain("path=/api/auth/session/");
    // Served over plain HTTP on loopback: not Secure (the browser would drop it).
    expect(lower).not.toContain("secure");
    expect(lower.some((a) => /^max-age=\d+$/.test(a))).toBe(true);
    // The access token in the body works as a bearer.
    expect((await server.request("GET", "/auth/me/", { token: res.body.access })).status).toBe(200);
  });

  it("marks the cookie Secure when the request came over HTTPS (trusted proxy)", async () => {
    const proxied = await startTestServer({ LORE_TRUST_PROXY: "true" });
    try {
      const user = await proxied.createUser("secure-cookie@example.com");
      const res = await proxied.request("POST", "/auth/session/", {
        body: { email: user.email, password: DEFAULT_PASSWORD },
        headers: { "X-Forwarded-Proto": "https" },
      });
      expect(res.status).toBe(200);
      expect(sessionCookie(res.headers)?.attributes.map((a) => a.toLowerCase())).toContain("secure");
    } finally {
      await proxied.close();
    }
  });

  it("a second tab with only the cookie gets a fresh access token for the same user", async () => {
    const { cookie, user } = await sessionLogin(server);
    const tab = await refreshWith(server, cookie);
    expect(tab.status).toBe(200);
    expect(tab.body.user.email).toBe(user.email);
    const me = await server.request<{ user: { email: string } }>("GET", "/auth/me/", {
      token: tab.body.access,
    });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(user.email);
    // Rotation off: the cookie is not replaced and keeps working.
    expect(sessionCookie(tab.headers)).toBeNull();
    expect((await refreshWith(server, cookie)).status).toBe(200);
  });

  it("no cookie is 401 not_authenticated in the contract's shape", async () => {
    const res = await refreshWith(server);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "not_authenticated", message: expect.any(String), details: {} });
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="lore"/);
  });

  it("a forged cookie is 401 invalid_token and the cookie is cleared", async () => {
    const res = await refreshWith(server, "lore_session=not.a.token");
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 401, error: "invalid_token" });
    const cleared = sessionCookie(res.headers);
    expect(cleared?.pair).toBe("lore_session=");
    expect(cleared?.attributes.map((a) => a.toLowerCase())).toContain("max-age=0");
  });

  it("logout revokes: the cookie, the tab's access token and every other token of the user stop working", async () => {
    const { cookie, res } = await sessionLogin(server);
    const other = await refreshWith(server, cookie);
    const out = await server.request("POST", "/auth/session/logout/", {
      body: {},
      headers: { Cookie: cookie },
    });
    expect(out.status).toBe(204);
    expect(sessionCookie(out.headers)?.pair).toBe("lore_session=");
    const again = await refreshWith(server, cookie);
    expect({ status: again.status, error: again.body.error }).toEqual({
      status: 401,
      error: "invalid_token",
    });
    for (const token of [res.body.access, other.body.access]) {
      const me = await server.request<ErrorBody>("GET", "/auth/me/", { token });
      expect({ status: me.status, error: me.body.error }).toEqual({ status: 401, error: "invalid_token" });
    }
  });

  it("logout without a cookie still answers 204 and clears it", async () => {
    const out = await server.request("POST", "/auth/session/logout/", { body: {} });
    expect(out.status).toBe(204);
    expect(sessionCookie(out.headers)?.pair).toBe("lore_session=");
  });

  it("refuses a body that is not JSON (a cross-site form post): 415, no token", async () => {
    const { cookie } = await sessionLogin(server);
    for (const type of [
      "application/x-www-form-urlencoded",
      "text/plain",
      "multipart/form-data; boundary=x",
    ]) {
      const res = await server.request<ErrorBody>("POST", "/auth/session/refresh/", {
        body: "a=b",
        headers: { Cookie: cookie, "Content-Type": type },
      });
      expect({ type, status: res.status, error: res.body.error }).toEqual({
        type,
        status: 415,
        error: "unsupported_media_type",
      });
    }
    const out = await server.request("POST", "/auth/session/logout/", {
      body: "a=b",
      headers: { Cookie: cookie, "Content-Type": "text/plain" },
    });
    expect(out.status).toBe(415);
    // The refused logout revoked nothing.
    expect((await refreshWith(server, cookie)).status).toBe(200);
  });

  it("never grants credentials to another origin (no Access-Control-Allow-Credentials)", async () => {
    const res = await server.request("OPTIONS", "/auth/session/refresh/", {
      headers: {
        Origin: "https://evil.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("leaves the bearer flows unchanged: /auth/login/ sets no cookie and returns the refresh token", async () => {
    const user = await server.createUser(`bearer-${++n}@example.com`);
    const res = await server.request<Record<string, unknown>>("POST", "/auth/login/", {
      body: { email: user.email, password: DEFAULT_PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["access", "refresh", "user"]);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it("wrong password at the session login is 401 invalid_credentials and sets no cookie", async () => {
    const user = await server.createUser(`wrong-${++n}@example.com`);
    const res = await server.request<ErrorBody>("POST", "/auth/session/", {
      body: { email: user.email, password: "not-the-password" },
    });
    expect({ status: res.status, error: res.body.error }).toEqual({
      status: 401,
      error: "invalid_credentials",
    });
    expect(sessionCookie(res.headers)).toBeNull();
  });
});

describe("cookie session with rotation on", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ LORE_REFRESH_ROTATION: "true" });
  });
  afterAll(() => server?.close());

  it("replaces the cookie on each refresh; the new cookie works, two tabs at once both get in", async () => {
    const { cookie } = await sessionLogin(server);
    const [a, b] = await Promise.all([refreshWith(server, cookie), refreshWith(server, cookie)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const next = sessionCookie(a.headers);
    expect(next?.pair).toMatch(/^lore_session=ey/);
    expect(next?.pair).not.toBe(cookie);
    expect(next?.attributes.map((x) => x.toLowerCase())).toContain("httponly");
    expect((await refreshWith(server, next?.pair)).status).toBe(200);
  });
});
