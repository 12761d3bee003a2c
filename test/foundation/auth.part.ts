import { TokenSigner } from "@lore/server/auth/tokens.ts";
import type { ErrorBody, LoginResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  DEFAULT_PASSWORD,
  startTestServer,
  type TestServer,
} from "../helpers/server.ts";

let server: TestServer;
let n = 0;
const email = () => `auth-${++n}-${Date.now().toString(36)}@example.com`;

beforeAll(async () => {
  server = await startTestServer({ LORE_LIMIT_LOGIN_FAILURES: "3" });
});
afterAll(() => server?.close());

async function newUser() {
  const user = await server.createUser(email());
  return { user, tokens: await server.login(user.email, DEFAULT_PASSWORD) };
}

describe("login", () => {
  it("returns access and refresh JWTs and the user", async () => {
    const res = await server.request<LoginResponse>("POST", "/auth/login/", {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body.access.split(".")).toHaveLength(3);
    expect(res.body.refresh.split(".")).toHaveLength(3);
    expect(res.body.user).toEqual({
      id: expect.any(String),
      email: ADMIN_EMAIL,
      firstName: "Admin",
      lastName: "",
    });
  });

  it("accepts the email in any case and with surrounding spaces", async () => {
    const res = await server.request("POST", "/auth/login/", {
      body: { email: `  ${ADMIN_EMAIL.toUpperCase()} `, password: ADMIN_PASSWORD },
    });
    expect(res.status).toBe(200);
  });

  it("refuses a wrong password and an unknown email with the same 401 invalid_credentials", async () => {
    const { user } = await newUser();
    const wrong = await server.request<ErrorBody>("POST", "/auth/login/", {
      body: { email: user.email, password: "not-the-password" },
    });
    const unknown = await server.request<ErrorBody>("POST", "/auth/login/", {
      body: { email: "nobody@example.com", password: "not-the-password" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "invalid_credentials", message: expect.any(String), details: {} });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it("validates the body: a missing password is 400 naming the field", async () => {
    const res = await server.request<ErrorBody>("POST", "/auth/login/", { body: { email: ADMIN_EMAIL } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_error");
    expect(Object.keys(res.body.details.fields as object)).toContain("password");
  });

  it("throttles an account from the failing IP (429, even with the right password) without locking out others", async () => {
    const { user } = await newUser();
    for (let i = 0; i < 3; i++) {
      const res = await server.request("POST", "/auth/login/", {
        body: { email: user.email, password: "wrong-password-x" },
      });
      expect(res.status).toBe(401);
    }
    const blocked = await server.request<ErrorBody>("POST", "/auth/login/", {
      body: { email: user.email, password: DEFAULT_PASSWORD },
    });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toBe("rate_limited");
    expect(blocked.body.details.limit).toBe("login_failures_per_account_ip");
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Another account from the same IP still logs in.
    const { user: other } = await newUser();
    expect(
      (
        await server.request("POST", "/auth/login/", {
          body: { email: other.email, password: DEFAULT_PASSWORD },
        })
      ).status,
    ).toBe(200);
  });
});

describe("refresh and logout", () => {
  it("refresh returns a new access token only, and the refresh token stays usable", async () => {
    const { tokens } = await newUser();
    for (let i = 0; i < 3; i++) {
      const res = await server.request<{ access: string; refresh?: string }>("POST", "/auth/token/refresh/", {
        body: { refresh: tokens.refresh },
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(["access"]);
      expect(res.body.access).not.toBe(tokens.access);
      expect((await server.request("GET", "/auth/me/", { token: res.body.access })).status).toBe(200);
    }
  });

  it("login → refresh → logout: every earlier access and refresh token is refused afterwards", async () => {
    const { tokens } = await newUser();
    const refreshed = (
      await server.request<{ access: string }>("POST", "/auth/token/refresh/", {
        body: { refresh: tokens.refresh },
      })
    ).body;
    const logout = await server.request("POST", "/auth/logout/", { token: refreshed.access });
    expect(logout.status).toBe(204);
    expect(logout.body).toBe("");

    for (const access of [tokens.access, refreshed.access]) {
      const res = await server.request<ErrorBody>("GET", "/auth/me/", { token: access });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("invalid_token");
    }
    const res = await server.request<ErrorBody>("POST", "/auth/token/refresh/", {
      body: { refresh: tokens.refresh },
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("invalid_token");
  });

  it("a new login after logout works", async () => {
    const { user, tokens } = await newUser();
    await server.request("POST", "/auth/logout/", { token: tokens.access });
    const fresh = await server.login(user.email, DEFAULT_PASSWORD);
    expect((await server.request("GET", "/auth/me/", { token: fresh.access })).status).toBe(200);
  });

  it("one kind of token cannot stand in for another", async () => {
    const { tokens } = await newUser();
    const refreshAsAccess = await server.request<ErrorBody>("GET", "/auth/me/", { token: tokens.refresh });
    expect(refreshAsAccess.status).toBe(401);
    expect(refreshAsAccess.body.error).toBe("invalid_token");
    const accessAsRefresh = await server.request<ErrorBody>("POST", "/auth/token/refresh/", {
      body: { refresh: tokens.access },
    });
    expect(accessAsRefresh.status).toBe(401);
    expect(accessAsRefresh.body.error).toBe("invalid_token");
  });

  it("refuses tokens signed with another secret, garbage and a malformed Authorization header", async () => {
    const { user } = await newUser();
    const foreign = await new TokenSigner("x".repeat(48), {
      access: 3600,
      refresh: 3600,
      visitor: 3600,
    }).sign({
      sub: user.id,
      kind: "access",
      ver: 0,
    });
    for (const headers of [
      { Authorization: `Bearer ${foreign}` },
      { Authorization: "Bearer not.a.jwt" },
      { Authorization: "Basic YWRtaW46cGFzcw==" },
      { Authorization: "Bearer" },
    ]) {
      const res = await server.request<ErrorBody>("GET", "/auth/me/", { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error).toBe("invalid_token");
    }
  });

  it("logout without a credential is 401 not_authenticated", async () => {
    const res = await server.request<ErrorBody>("POST", "/auth/logout/");
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("not_authenticated");
  });
});

describe("expired tokens", () => {
  it("answer 401 with exactly {error: token_expired, message, details: {expired_at}}", async () => {
    const { user } = await newUser();
    const signer = new TokenSigner(server.services.config.jwtSecret, {
      access: -90,
      refresh: -90,
      visitor: -90,
    });
    const before = Date.now();
    const expired = await signer.sign({ sub: user.id, kind: "access", ver: 0 });
    const res = await server.request<ErrorBody>("GET", "/auth/me/", { token: expired });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: "token_expired",
      message: expect.any(String),
      details: { expired_at: expect.any(String) },
    });
    const expiredAt = String(res.body.details.expired_at);
    expect(expiredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Math.abs(Date.parse(expiredAt) - (before - 90_000))).toBeLessThan(2_000);
    expect(res.body.message.length).toBeGreaterThan(0);
  });

  it("an expired refresh token is token_expired too", async () => {
    const { user } = await newUser();
    const signer = new TokenSigner(server.services.config.jwtSecret, {
      access: -90,
      refresh: -90,
      visitor: -90,
    });
    const refresh = await signer.sign({ sub: user.id, kind: "refresh", ver: 0 });
    const res = await server.request<ErrorBody>("POST", "/auth/token/refresh/", { body: { refresh } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("token_expired");
  });

  it("a token expires after LORE_ACCESS_TOKEN_TTL", async () => {
    const short = await startTestServer({ LORE_ACCESS_TOKEN_TTL: "10" });
    try {
      const { access } = await short.login();
      const claims = JSON.parse(Buffer.from(access.split(".")[1] ?? "", "base64url").toString()) as {
        exp: number;
        iat: number;
      };
      expect(claims.exp - claims.iat).toBe(10);
    } finally {
      await short.close();
    }
  });
});

describe("GET /auth/me/", () => {
  it("returns the user and every workspace with the caller's role", async () => {
    const { user, tokens } = await newUser();
    const admin = await server.login();
    const team = await server.request<{ id: string }>("POST", "/workspaces/", {
      token: admin.access,
      body: { name: "Team" },
    });
    await server.addMember(team.body.id, user.id, "editor");
    const me = await server.request<{
      user: { id: string };
      workspaces: Array<{ id: string; role: string; name: string }>;
    }>("GET", "/auth/me/", { token: tokens.access });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
    expect(me.body.workspaces.map((w) => w.role).sort()).toEqual(["editor", "owner"]);
    expect(me.body.workspaces.find((w) => w.id === team.body.id)?.name).toBe("Team");
  });
});
