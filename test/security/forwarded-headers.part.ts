import { request } from "node:http";
import { ConfigError, loadConfig } from "@lore/server/config.ts";
import type { Agent, Page } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";

// The proxy is 127.0.0.2; a client calling from 127.0.0.1 directly is not it, whatever it sends.
const PROXY = "127.0.0.2";
const DIRECT = "127.0.0.1";

let server: TestServer;
let token: string;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** One request from a given loopback source address (the socket's peer the server sees). */
function from(
  ip: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.api}${path}`,
      {
        method,
        localAddress: ip,
        agent: false,
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(payload
            ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) }
            : {}),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text ? JSON.parse(text) : null,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const https = { "X-Forwarded-Proto": "https" };
const nextLink = async (ip: string, headers: Record<string, string>) =>
  ((await from(ip, "GET", "/agents/?page_size=1", { ...https, ...headers })).body as Page<Agent>).next;

beforeAll(async () => {
  server = await startTestServer({ LORE_PRODUCTION: "true", LORE_TRUST_PROXY: PROXY });
  token = "";
  const login = await from(PROXY, "POST", "/auth/login/", https, {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  });
  token = (login.body as { access: string }).access;
  for (const name of ["One", "Two"]) await from(PROXY, "POST", "/agents/", https, { name });
});
afterAll(() => server?.close());

describe("forwarded headers are read from a listed proxy only (LORE_TRUST_PROXY=127.0.0.2)", () => {
  it("X-Forwarded-Proto: https passes the HTTPS check and marks the cookie Secure only from the proxy", async () => {
    const direct = await from(DIRECT, "GET", "/agents/", https);
    expect([direct.status, (direct.body as { error: string }).error]).toEqual([403, "https_required"]);
    expect((await from(PROXY, "GET", "/agents/", https)).status).toBe(200);
    const credentials = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD };
    const session = await from(PROXY, "POST", "/auth/session/", https, credentials);
    expect(String(session.headers["set-cookie"])).toMatch(/;\s*Secure/i);
    // Over plain HTTP from the proxy, the cookie is not Secure (outside production the check is off).
    const plain = await from(PROXY, "POST", "/auth/session/", { "X-Forwarded-Proto": "http" }, credentials);
    expect(plain.status).toBe(403);
  });

  it("X-Forwarded-Host names the links' host only from the proxy", async () => {
    const host = { "X-Forwarded-Host": "evil.example" };
    // A direct client is refused as plain HTTP; its header could not change the link anyway.
    expect((await from(DIRECT, "GET", "/agents/?page_size=1", { ...https, ...host })).status).toBe(403);
    expect(await nextLink(PROXY, { "X-Forwarded-Host": "kb.example.com" })).toBe(
      "https://kb.example.com/api/agents/?page_size=1&page=2",
    );
  });

  it("X-Forwarded-Prefix puts the proxy's path prefix in links and the OpenAPI servers only from the proxy", async () => {
    const headers = { "X-Forwarded-Host": "kb.example.com", "X-Forwarded-Prefix": "/support/" };
    expect(await nextLink(PROXY, headers)).toBe(
      "https://kb.example.com/support/api/agents/?page_size=1&page=2",
    );
    const doc = await from(PROXY, "GET", "/openapi.json", { ...https, ...headers });
    // The console's session cookie is scoped to the session routes as the browser sees them.
    const credentials = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD };
    const session = await from(PROXY, "POST", "/auth/session/", { ...https, ...headers }, credentials);
    expect(String(session.headers["set-cookie"])).toMatch(/;\s*Path=\/support\/api\/auth\/session\//i);
    expect((doc.body as { servers: { url: string }[] }).servers[0]?.url).toBe(
      "https://kb.example.com/support/api",
    );
    // A value that is not a plain path is ignored.
    for (const bad of ["//evil.example", "/a/../b", "support", "/x?y"])
      expect(await nextLink(PROXY, { "X-Forwarded-Prefix": bad }), bad).toBe(
        `${server.api.replace("http:", "https:")}/agents/?page_size=1&page=2`,
      );
  });

  it("Forwarded: proto and host count as the X-Forwarded ones, from the proxy only", async () => {
    const forwarded = { Forwarded: 'for=192.0.2.1;proto=https;host="docs.example.org"' };
    expect((await from(DIRECT, "GET", "/agents/", forwarded)).status).toBe(403);
    const res = await from(PROXY, "GET", "/agents/?page_size=1", forwarded);
    expect(res.status).toBe(200);
    expect((res.body as Page<Agent>).next).toBe("https://docs.example.org/api/agents/?page_size=1&page=2");
  });
});

describe("LORE_PUBLIC_URL", () => {
  it("is an http(s) URL without query, kept without its trailing slash; anything else stops the start", () => {
    const secret = { LORE_JWT_SECRET: "x".repeat(32) };
    expect(loadConfig({ ...secret, LORE_PUBLIC_URL: "https://help.example.com/kb/" }).publicUrl).toBe(
      "https://help.example.com/kb",
    );
    for (const bad of ["not a url", "ftp://help.example.com/", "https://help.example.com/?x=1"])
      expect(() => loadConfig({ ...secret, LORE_PUBLIC_URL: bad }), bad).toThrow(ConfigError);
  });

  it("is the base of every link, whatever the request's host", async () => {
    const pub = await startTestServer({ LORE_PUBLIC_URL: "https://help.example.com/kb/" });
    try {
      const { access } = await pub.login();
      for (const name of ["A", "B"]) await pub.request("POST", "/agents/", { token: access, body: { name } });
      const page = await pub.request<Page<Agent>>("GET", "/agents?page_size=1", {
        token: access,
        headers: { "X-Forwarded-Host": "evil.example" },
      });
      expect(page.body.next).toBe("https://help.example.com/kb/api/agents/?page_size=1&page=2");
      const doc = await pub.request<{ servers: { url: string }[] }>("GET", "/openapi.json");
      expect(doc.body.servers[0]?.url).toBe("https://help.example.com/kb/api");
    } finally {
      await pub.close();
    }
  });
});
