import type { ErrorBody } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestResponse, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let n = 0;

beforeAll(async () => {
  server = await startTestServer({ LORE_LIMIT_USER_PER_HOUR: "20", LORE_LIMIT_ANON_PER_HOUR: "1000000" });
});
afterAll(() => server?.close());

async function freshToken(): Promise<string> {
  const user = await server.createUser(`limits-${++n}@example.com`);
  return (await server.login(user.email, DEFAULT_PASSWORD)).access;
}

const header = (res: TestResponse, name: string) => Number(res.headers.get(name));

describe("rate-limit headers", () => {
  it("every response reports the limit, what is left and when the window resets", async () => {
    const token = await freshToken();
    const first = await server.request("GET", "/agents/", { token });
    const second = await server.request("GET", "/agents/", { token });
    expect(header(first, "x-ratelimit-limit")).toBe(20);
    expect(header(first, "x-ratelimit-remaining")).toBe(19);
    expect(header(second, "x-ratelimit-remaining")).toBe(18);
    const reset = header(first, "x-ratelimit-reset");
    const now = Date.now() / 1000;
    expect(reset).toBeGreaterThan(now);
    expect(reset).toBeLessThanOrEqual(now + 3600 + 1);
    expect(Number.isInteger(reset)).toBe(true);
  });

  it("error responses carry them too", async () => {
    const token = await freshToken();
    const notFound = await server.request("GET", `/agents/${crypto.randomUUID()}/`, { token });
    expect(notFound.status).toBe(404);
    expect(header(notFound, "x-ratelimit-limit")).toBe(20);
    expect(header(notFound, "x-ratelimit-remaining")).toBe(19);
  });
});

describe("the per-user hourly limit under concurrent load", () => {
  it("lets exactly the limit through out of 50 concurrent requests; the rest get 429", async () => {
    const token = await freshToken();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => server.request<ErrorBody>("GET", "/agents/", { token })),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(20);
    expect(limited).toHaveLength(30);
    for (const res of limited) {
      expect(res.body.error).toBe("rate_limited");
      expect(res.body.details).toMatchObject({ limit: "user_per_hour", max: 20 });
      const retryAfter = header(res, "retry-after");
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(header(res, "x-ratelimit-remaining")).toBe(0);
    }
    expect(new Set(ok.map((r) => header(r, "x-ratelimit-remaining")))).toEqual(
      new Set(Array.from({ length: 20 }, (_, i) => i)),
    );
  });

  it("counts each user separately", async () => {
    const a = await freshToken();
    const b = await freshToken();
    await Promise.all(Array.from({ length: 20 }, () => server.request("GET", "/agents/", { token: a })));
    expect((await server.request("GET", "/agents/", { token: a })).status).toBe(429);
    expect((await server.request("GET", "/agents/", { token: b })).status).toBe(200);
  });

  it("counts an API key on its own, separately from the user who made it", async () => {
    const token = await freshToken();
    const agent = await server.request<{ id: string }>("POST", "/agents/", {
      token,
      body: { name: "Limited" },
    });
    const key = await server.request<{ key: string }>("POST", `/agents/${agent.body.id}/api-keys/`, {
      token,
      body: { name: "k" },
    });
    const res = await server.request("GET", `/agents/${agent.body.id}/`, { token: key.body.key });
    expect(res.status).toBe(200);
    expect(header(res, "x-ratelimit-remaining")).toBe(19);
  });
});

describe("the anonymous per-IP limit", () => {
  it("limits unauthenticated requests per client IP, and a spoofed X-Forwarded-For does not escape it", async () => {
    const anon = await startTestServer({ LORE_LIMIT_ANON_PER_HOUR: "10" });
    try {
      const results = await Promise.all(
        Array.from({ length: 15 }, (_, i) =>
          anon.request<ErrorBody>("GET", "/openapi.json", {
            headers: { "X-Forwarded-For": `203.0.113.${i}` },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(10);
      const limited = results.filter((r) => r.status === 429);
      expect(limited).toHaveLength(5);
      expect(limited[0]?.body.details.limit).toBe("anonymous_per_hour");
      expect(header(results.find((r) => r.status === 200) as TestResponse, "x-ratelimit-limit")).toBe(10);
    } finally {
      await anon.close();
    }
  });

  it("behind a trusted proxy, counts each forwarded client IP separately", async () => {
    // Two proxies: 10.0.0.1 appended the client, the socket's peer appended 10.0.0.1.
    const proxied = await startTestServer({ LORE_LIMIT_ANON_PER_HOUR: "3", LORE_TRUST_PROXY: "2" });
    try {
      const as = (ip: string) =>
        proxied.request("GET", "/openapi.json", { headers: { "X-Forwarded-For": `${ip}, 10.0.0.1` } });
      for (let i = 0; i < 3; i++) expect((await as("198.51.100.1")).status).toBe(200);
      expect((await as("198.51.100.1")).status).toBe(429);
      expect((await as("198.51.100.2")).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it("requests refused for a missing credential still count against the IP limit", async () => {
    const anon = await startTestServer({ LORE_LIMIT_ANON_PER_HOUR: "2" });
    try {
      expect((await anon.request("GET", "/agents/")).status).toBe(401);
      expect((await anon.request("GET", "/agents/")).status).toBe(401);
      const third = await anon.request<ErrorBody>("GET", "/agents/");
      expect(third.status).toBe(429);
    } finally {
      await anon.close();
    }
  });
});
