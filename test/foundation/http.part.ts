import type { Agent, ErrorBody, Page } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
});
afterAll(() => server?.close());

const errorBody = (code: string) => ({
  error: code,
  message: expect.any(String),
  details: expect.any(Object),
});

describe("trailing slash", () => {
  it("every API route answers without its trailing slash too, for every method, with no redirect", async () => {
    const created = await fetch(`${server.api}/agents`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Slashless" }),
      redirect: "manual",
    });
    expect(created.status).toBe(201);
    const agent = (await created.json()) as Agent;
    await server.request("POST", "/agents", { token, body: { name: "Another" } });
    const listed = await server.request<Page<Agent>>("GET", "/agents?page_size=1", { token });
    expect(listed.status).toBe(200);
    // Links are written in the canonical (documented) form.
    expect(listed.body.next).toBe(`${server.api}/agents/?page_size=1&page=2`);
    const read = await server.request<Agent>("GET", `/agents/${agent.id}`, { token });
    expect(read.body.name).toBe("Slashless");
    const renamed = await server.request<Agent>("PATCH", `/agents/${agent.id}`, {
      token,
      body: { name: "Renamed" },
    });
    expect([renamed.status, renamed.body.name]).toEqual([200, "Renamed"]);
    const replaced = await server.request<Agent>("PUT", `/agents/${agent.id}`, {
      token,
      body: { name: "Replaced" },
    });
    expect(replaced.status).not.toBe(308);
    expect((await server.request("DELETE", `/agents/${agent.id}`, { token })).status).toBe(204);
    expect((await server.request("GET", `/agents/${agent.id}/`, { token })).status).toBe(404);
  });
});

describe("one error body everywhere", () => {
  it("an unknown API route is 404 not_found naming the path", async () => {
    const res = await server.request<ErrorBody>("GET", "/nothing-here/", { token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "not_found",
      message: expect.any(String),
      details: { resource: "endpoint", id: "/api/nothing-here/" },
    });
  });

  it("an unknown path outside the API is the same JSON 404", async () => {
    const res = await server.request<ErrorBody>("GET", `${server.url}/no/such/page`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorBody("not_found"));
  });

  it("a wrong method is 405 with Allow listing the right ones", async () => {
    const res = await server.request<ErrorBody>("PUT", "/agents/", { token, body: {} });
    expect(res.status).toBe(405);
    expect(res.body).toEqual(errorBody("method_not_allowed"));
    const allow = (res.headers.get("allow") ?? "").split(/,\s*/).sort();
    expect(allow).toEqual(["GET", "POST"]);
    expect((res.body.details.allowed as string[]).sort()).toEqual(["GET", "POST"]);

    const one = await server.request<ErrorBody>("PUT", `/agents/${crypto.randomUUID()}/`, {
      token,
      body: {},
    });
    expect(one.status).toBe(405);
    expect((one.headers.get("allow") ?? "").split(/,\s*/).sort()).toEqual(["DELETE", "GET", "PATCH"]);
  });

  it("malformed JSON is 400 validation_error on the body", async () => {
    const res = await server.request<ErrorBody>("POST", "/agents/", {
      token,
      body: '{"name": "broken"',
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("validation_error"));
    expect(res.body.details.fields).toEqual({ body: [expect.any(String)] });
  });

  it("a field that fails validation is named in details.fields", async () => {
    const res = await server.request<ErrorBody>("POST", "/agents/", {
      token,
      body: { name: "Hot", temperature: 5, retrieval: { topK: 0 } },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.details.fields as object).sort()).toEqual(["retrieval.topK", "temperature"]);
  });

  it("an unknown field is refused and named", async () => {
    const res = await server.request<ErrorBody>("POST", "/agents/", {
      token,
      body: { name: "Strict", colour: "red" },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.fields).toEqual({ colour: ["unknown field"] });
  });

  it("a body that is not JSON is 415 unsupported_media_type", async () => {
    const res = await server.request<ErrorBody>("POST", "/agents/", {
      token,
      body: "name=x",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual(errorBody("unsupported_media_type"));
    expect(res.body.details.supported).toEqual(["application/json"]);
  });

  it("a __proto__ key is refused, not merged", async () => {
    const res = await server.request<ErrorBody>("POST", "/agents/", {
      token,
      body: '{"name":"x","__proto__":{"admin":true}}',
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_error");
  });

  it("an oversized JSON body is 413 payload_too_large, whether or not it declares its length", async () => {
    const small = await startTestServer({ LORE_MAX_JSON_BYTES: "2048" });
    try {
      const { access } = await small.login();
      const big = JSON.stringify({ name: "Big", description: "x".repeat(5000) });
      const declared = await small.request<ErrorBody>("POST", "/agents/", {
        token: access,
        body: big,
        headers: { "Content-Type": "application/json" },
      });
      expect(declared.status).toBe(413);
      expect(declared.body).toEqual(errorBody("payload_too_large"));
      expect(declared.body.details.maxBytes).toBe(2048);

      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      });
      const chunked = await fetch(`${small.api}/agents/`, {
        method: "POST",
        headers: { Authorization: `Bearer ${access}`, "Content-Type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect(((await chunked.json()) as ErrorBody).error).toBe("payload_too_large");

      const fits = await small.request("POST", "/agents/", { token: access, body: { name: "Small" } });
      expect(fits.status).toBe(201);
    } finally {
      await small.close();
    }
  });
});

describe("request ids", () => {
  it("echoes a well-formed X-Request-ID, on successes and errors", async () => {
    const ok = await server.request("GET", "/agents/", { token, headers: { "X-Request-ID": "req-123.abc" } });
    expect(ok.headers.get("x-request-id")).toBe("req-123.abc");
    const err = await server.request("GET", "/nowhere/", { headers: { "X-Request-ID": "req-404" } });
    expect(err.headers.get("x-request-id")).toBe("req-404");
  });

  it("replaces a malformed one with a fresh UUID, and makes one when none is sent", async () => {
    const bad = await server.request("GET", "/agents/", {
      token,
      headers: { "X-Request-ID": "has spaces <script>" },
    });
    expect(bad.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const none = await server.request("GET", "/agents/", { token });
    expect(none.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("CORS", () => {
  it("answers a preflight for the API with the allowed methods and headers", async () => {
    const res = await server.request("OPTIONS", "/agents/", {
      headers: {
        Origin: "https://app.example.com",
        "Access-Control-Request-Method": "PATCH",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
  });

  it("exposes the rate-limit and request-id headers to browsers", async () => {
    const res = await server.request("GET", "/agents/", {
      token,
      headers: { Origin: "https://app.example.com" },
    });
    const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    for (const h of [
      "x-request-id",
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "retry-after",
    ]) {
      expect(exposed).toContain(h);
    }
  });

  it("with LORE_CORS_ORIGINS set, allows only those origins", async () => {
    const strict = await startTestServer({ LORE_CORS_ORIGINS: "https://app.example.com" });
    try {
      const preflight = (origin: string) =>
        strict.request("OPTIONS", "/agents/", {
          headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
        });
      expect((await preflight("https://app.example.com")).headers.get("access-control-allow-origin")).toBe(
        "https://app.example.com",
      );
      expect(
        (await preflight("https://evil.example.com")).headers.get("access-control-allow-origin"),
      ).toBeNull();
    } finally {
      await strict.close();
    }
  });
});

describe("production mode (HTTPS)", () => {
  it("refuses plain HTTP with 403 https_required, but health checks still answer", async () => {
    const prod = await startTestServer({ LORE_PRODUCTION: "true" });
    try {
      const res = await prod.request<ErrorBody>("POST", "/auth/login/", {
        body: { email: "a@example.com", password: "x" },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorBody("https_required"));
      // Without a trusted proxy, a forwarded proto is not believed.
      const spoofed = await prod.request("GET", "/agents/", { headers: { "X-Forwarded-Proto": "https" } });
      expect(spoofed.status).toBe(403);
      expect((await prod.request("GET", `${prod.url}/healthz`)).status).toBe(200);
    } finally {
      await prod.close();
    }
  });

  it("behind a trusted proxy that terminated TLS, serves the request with HSTS", async () => {
    const prod = await startTestServer({ LORE_PRODUCTION: "true", LORE_TRUST_PROXY: "true" });
    try {
      const https = { "X-Forwarded-Proto": "https" };
      const login = await prod.request<{ access: string }>("POST", "/auth/login/", {
        body: { email: "admin@example.com", password: "correct-horse-battery" },
        headers: https,
      });
      expect(login.status).toBe(200);
      expect(login.headers.get("strict-transport-security")).toMatch(/max-age=\d{7,}/);
      const plain = await prod.request<ErrorBody>("GET", "/agents/", {
        headers: { "X-Forwarded-Proto": "http" },
      });
      expect(plain.status).toBe(403);
      expect(plain.body.error).toBe("https_required");
    } finally {
      await prod.close();
    }
  });
});

describe("health", () => {
  it("/healthz and /readyz answer 200 without credentials", async () => {
    const health = await server.request<{ status: string }>("GET", `${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");
    const ready = await server.request<{ status: string; schemaVersion: number }>(
      "GET",
      `${server.url}/readyz`,
    );
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: "ready",
      schemaVersion: expect.any(Number),
      storage: expect.objectContaining({ state: "ok", since: null }),
    });
  });
});

describe("pagination of GET /agents/", () => {
  let pager: string;
  let names: string[];

  beforeAll(async () => {
    const user = await server.createUser("pager@example.com");
    pager = (await server.login(user.email, DEFAULT_PASSWORD)).access;
    names = [];
    for (let i = 1; i <= 5; i++) {
      await server.request("POST", "/agents/", { token: pager, body: { name: `Agent ${i}` } });
      names.unshift(`Agent ${i}`); // newest first
    }
  });

  it("pages with absolute next/previous URLs, newest first", async () => {
    const first = await server.request<Page<Agent>>("GET", "/agents/?page_size=2", { token: pager });
    expect(first.body.count).toBe(5);
    expect(first.body.results.map((a) => a.name)).toEqual(names.slice(0, 2));
    expect(first.body.previous).toBeNull();
    expect(first.body.next).toBe(`${server.api}/agents/?page_size=2&page=2`);

    const second = await server.request<Page<Agent>>("GET", first.body.next ?? "", { token: pager });
    expect(second.body.results.map((a) => a.name)).toEqual(names.slice(2, 4));
    expect(second.body.previous).toBe(`${server.api}/agents/?page_size=2`);

    const last = await server.request<Page<Agent>>("GET", second.body.next ?? "", { token: pager });
    expect(last.body.results.map((a) => a.name)).toEqual(names.slice(4));
    expect(last.body.next).toBeNull();
  });

  it("defaults to 20 per page and clamps page_size above 100 to 100", async () => {
    const all = await server.request<Page<Agent>>("GET", "/agents/", { token: pager });
    expect(all.body.results).toHaveLength(5);
    const clamped = await server.request<Page<Agent>>("GET", "/agents/?page_size=500&page=1", {
      token: pager,
    });
    expect(clamped.status).toBe(200);
    expect(clamped.body.results).toHaveLength(5);
  });

  it("pages as Django REST framework does: invalid pages are 404, an invalid page_size the default", async () => {
    for (const query of [
      "page=9&page_size=2",
      "page=0",
      "page=-1",
      "page=abc",
      "page=1.5",
      "page=4&page_size=2",
    ]) {
      const res = await server.request<ErrorBody>("GET", `/agents/?${query}`, { token: pager });
      expect([res.status, res.body.error, res.body.message], query).toEqual([
        404,
        "not_found",
        "Invalid page.",
      ]);
    }
    for (const query of ["page_size=0", "page_size=x", "page_size=-3"]) {
      const res = await server.request<Page<Agent>>("GET", `/agents/?${query}`, { token: pager });
      expect([res.status, res.body.results.length], query).toEqual([200, 5]);
    }
    // `last` is the last page; the link back to page 1 has no `page`, other parameters are kept.
    const last = await server.request<Page<Agent>>("GET", "/agents/?page=last&page_size=2", { token: pager });
    expect(last.body.results.map((a) => a.name)).toEqual(names.slice(4));
    expect(last.body.previous).toBe(`${server.api}/agents/?page=2&page_size=2`);
    const second = await server.request<Page<Agent>>("GET", "/agents/?page=2&page_size=2", { token: pager });
    expect(second.body.previous).toBe(`${server.api}/agents/?page_size=2`);
    // An empty list still has its first page.
    const empty = await server.createUser("empty-pager@example.com");
    const emptyToken = (await server.login(empty.email, DEFAULT_PASSWORD)).access;
    const none = await server.request<Page<Agent>>("GET", "/agents/?page=1", { token: emptyToken });
    expect([none.status, none.body.count]).toEqual([200, 0]);
  });

  it("builds links from X-Forwarded-Proto/Host only when the proxy is trusted", async () => {
    const headers = { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "kb.example.com" };
    const untrusted = await server.request<Page<Agent>>("GET", "/agents/?page_size=2", {
      token: pager,
      headers,
    });
    expect(untrusted.body.next?.startsWith(server.api)).toBe(true);

    const proxied = await startTestServer({ LORE_TRUST_PROXY: "true" });
    try {
      const { access } = await proxied.login();
      for (let i = 0; i < 3; i++)
        await proxied.request("POST", "/agents/", { token: access, body: { name: `P${i}` } });
      const res = await proxied.request<Page<Agent>>("GET", "/agents/?page_size=2", {
        token: access,
        headers,
      });
      expect(res.body.next).toBe("https://kb.example.com/api/agents/?page_size=2&page=2");
    } finally {
      await proxied.close();
    }
  });
});
