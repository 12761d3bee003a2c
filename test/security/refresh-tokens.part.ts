/**
 * Refresh tokens as the spec reads them (issue #16, items 1 and 2): `POST /auth/token/refresh/`
 * answers `{access}` and the login refresh token stays valid until it expires or the user logs
 * out; rotation is opt-in (`LORE_REFRESH_ROTATION`), with a grace period for two tabs. Login and
 * refresh ignore the Authorization header, so a client that sends its (expired) access token on
 * every request still refreshes.
 */

import type { ErrorBody, LoginResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";

/** One simulated hour = the access token's lifetime, in seconds (2: JWT expiry has 1 s granularity). */
const HOUR_S = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;

async function newSession(server: TestServer): Promise<LoginResponse> {
  const user = await server.createUser(`refresh-${++n}@example.com`);
  return server.login(user.email, DEFAULT_PASSWORD);
}

const refresh = (server: TestServer, token: string, access?: string) =>
  server.request<{ access: string; refresh?: string } & ErrorBody>("POST", "/auth/token/refresh/", {
    body: { refresh: token },
    ...(access ? { token: access } : {}),
  });

describe("without rotation (the default)", () => {
  let server: TestServer;
  beforeAll(async () => {
    // 1 simulated hour = 2 s; the refresh token lives 7 simulated days.
    server = await startTestServer({
      LORE_ACCESS_TOKEN_TTL: String(HOUR_S),
      LORE_REFRESH_TOKEN_TTL: String(7 * 24 * HOUR_S),
    });
  });
  afterAll(() => server?.close());

  it("keeps a spec-faithful client logged in for 8 hours: hourly refresh with the login refresh token, the access token sent every time", async () => {
    const login = await newSession(server);
    let access = login.access;
    for (let hour = 1; hour <= 8; hour++) {
      await sleep(HOUR_S * 1000 + 100);
      // The old access token has expired by now, and the client still sends it.
      const stale = await server.request<ErrorBody>("GET", "/auth/me/", { token: access });
      expect(stale.status, `hour ${hour}`).toBe(401);
      expect(stale.body.error).toBe("token_expired");
      const res = await refresh(server, login.refresh, access);
      expect({ hour, status: res.status, keys: Object.keys(res.body) }).toEqual({
        hour,
        status: 200,
        keys: ["access"],
      });
      access = res.body.access;
      expect((await server.request("GET", "/auth/me/", { token: access })).status, `hour ${hour}`).toBe(200);
    }
  }, 40_000);

  it("logout still ends the refresh token", async () => {
    const login = await newSession(server);
    expect((await refresh(server, login.refresh)).status).toBe(200);
    expect((await server.request("POST", "/auth/logout/", { token: login.access })).status).toBe(204);
    const after = await refresh(server, login.refresh);
    expect({ status: after.status, error: after.body.error }).toEqual({
      status: 401,
      error: "invalid_token",
    });
  });

  it("login and refresh ignore the Authorization header: expired, garbage, logged-out or API-key bearers", async () => {
    const login = await newSession(server);
    const loggedOut = await newSession(server);
    await server.request("POST", "/auth/logout/", { token: loggedOut.access });
    await sleep(HOUR_S * 1000 + 100);
    const bearers = [
      login.access,
      "not.a.jwt",
      loggedOut.access,
      "lore_sk_not-a-real-key-000000000000000000",
    ];
    for (const bearer of bearers) {
      const refreshed = await refresh(server, login.refresh, bearer);
      expect({ bearer, status: refreshed.status }).toEqual({ bearer, status: 200 });
      const relogin = await server.request("POST", "/auth/login/", {
        token: bearer,
        body: { email: login.user.email, password: DEFAULT_PASSWORD },
      });
      expect({ bearer, status: relogin.status }).toEqual({ bearer, status: 200 });
    }
    // Every other route still checks it.
    const me = await server.request<ErrorBody>("GET", "/auth/me/", { token: "not.a.jwt" });
    expect(me.status).toBe(401);
  });
});

describe("with rotation (LORE_REFRESH_ROTATION=true)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ LORE_REFRESH_ROTATION: "true", LORE_REFRESH_REUSE_GRACE: "1" });
  });
  afterAll(() => server?.close());

  it("answers a new pair and lets two tabs spend the same token within the grace period", async () => {
    const login = await newSession(server);
    const [tabA, tabB] = await Promise.all([refresh(server, login.refresh), refresh(server, login.refresh)]);
    for (const tab of [tabA, tabB]) {
      expect(tab.status).toBe(200);
      expect(typeof tab.body.refresh).toBe("string");
      expect((await server.request("GET", "/auth/me/", { token: tab.body.access })).status).toBe(200);
    }
    // Each tab carries on with its own rotated token.
    expect((await refresh(server, tabA.body.refresh ?? "")).status).toBe(200);
    expect((await refresh(server, tabB.body.refresh ?? "")).status).toBe(200);
  });

  it("treats a reuse after the grace period as theft: 401 and every token of the user revoked", async () => {
    const login = await newSession(server);
    const first = await refresh(server, login.refresh);
    expect(first.status).toBe(200);
    await sleep(1_500);
    const replay = await refresh(server, login.refresh);
    expect({ status: replay.status, error: replay.body.error }).toEqual({
      status: 401,
      error: "invalid_token",
    });
    expect((await server.request("GET", "/auth/me/", { token: first.body.access })).status).toBe(401);
    expect((await refresh(server, first.body.refresh ?? "")).status).toBe(401);
  });
});
