import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../log/logger.ts";
import { cors } from "./cors.ts";
import { requestContext, setLimitHeaders } from "./middleware.ts";
import type { AppEnv } from "./principal.ts";

// Over a real @hono/node-server socket: its lightweight Response is what the in-place writes rely on.
function createTestApp(origins: string[]) {
  const app = new Hono<AppEnv>();
  app.use(
    "*",
    requestContext({ proxyTrust: { kind: "none" }, publicUrl: null }, { logger: createLogger("silent") }),
  );
  app.use(
    "/api/*",
    cors({
      origins,
      allowHeaders: ["Authorization"],
      allowMethods: ["GET", "POST"],
      exposeHeaders: ["X-Request-ID"],
      maxAgeSeconds: 600,
    }),
  );
  app.use("/api/*", async (c, next) => {
    setLimitHeaders(c, { name: "user_per_hour", limit: 10, remaining: 9, reset: 1_800_000_000 });
    await next();
  });
  app.get("/api/json/", (c) => c.json({ ok: true }));
  app.get("/api/stream/", () => {
    const body = new ReadableStream<Uint8Array>({
      start(out) {
        out.enqueue(new TextEncoder().encode("data: 1\n\n"));
        out.close();
      },
    });
    return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
  });
  app.get("/api/fetched/", () => fetch(`${base}/file`));
  app.get("/api/fail/", () => {
    throw new Error("boom");
  });
  app.onError((_err, c) => c.json({ error: "internal_error" }, 500));
  app.get("/file", () => new Response(new Uint8Array([1, 2, 3]), { headers: { "Content-Type": "x/y" } }));
  return app;
}

let base = "";
let strictBase = "";
const servers: Array<ReturnType<typeof serve>> = [];

async function listen(app: Hono<AppEnv>): Promise<string> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  base = await listen(createTestApp(["*"]));
  strictBase = await listen(createTestApp(["https://app.example.com"]));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
});

const rid = { "X-Request-ID": "req-1" };

describe("headers written after the handler", () => {
  it("reach a JSON response, on GET and HEAD", async () => {
    for (const method of ["GET", "HEAD"]) {
      const res = await fetch(`${base}/api/json/`, { method, headers: rid });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-request-id")).toBe("req-1");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("9");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-expose-headers")).toBe("X-Request-ID");
      if (method === "GET") expect(await res.json()).toEqual({ ok: true });
    }
  });

  it("reach a streamed response built without the context", async () => {
    const res = await fetch(`${base}/api/stream/`, { headers: rid });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("x-request-id")).toBe("req-1");
    expect(res.headers.get("x-ratelimit-limit")).toBe("10");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.text()).toBe("data: 1\n\n");
  });

  it("reach a response whose own headers are immutable", async () => {
    const res = await fetch(`${base}/api/fetched/`, { headers: rid });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("req-1");
    expect(res.headers.get("x-ratelimit-limit")).toBe("10");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("reach an error response and a raw response outside the API, on GET and HEAD", async () => {
    const failed = await fetch(`${base}/api/fail/`, { headers: rid });
    expect(failed.status).toBe(500);
    expect(failed.headers.get("x-request-id")).toBe("req-1");
    expect(failed.headers.get("x-ratelimit-limit")).toBe("10");
    for (const method of ["GET", "HEAD"]) {
      const res = await fetch(`${base}/file`, { method, headers: rid });
      expect(res.headers.get("x-request-id")).toBe("req-1");
      expect(res.headers.get("content-type")).toBe("x/y");
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
  });
});

describe("CORS", () => {
  it("answers a preflight with 204 and the allowed methods and headers", async () => {
    const res = await fetch(`${strictBase}/api/json/`, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET,POST");
    expect(res.headers.get("access-control-allow-headers")).toBe("Authorization");
    expect(res.headers.get("access-control-max-age")).toBe("600");
    expect(res.headers.get("vary")).toBe("Origin, Access-Control-Request-Headers");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull(); // a preflight is not charged
  });

  it("names only a listed origin, and varies on Origin", async () => {
    const ok = await fetch(`${strictBase}/api/json/`, { headers: { Origin: "https://app.example.com" } });
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(ok.headers.get("vary")).toBe("Origin");
    const other = await fetch(`${strictBase}/api/json/`, { headers: { Origin: "https://evil.example.com" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.headers.get("access-control-expose-headers")).toBe("X-Request-ID");
    expect(other.headers.get("vary")).toBe("Origin");
  });
});
