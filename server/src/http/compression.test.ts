import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../log/logger.ts";
import {
  compressResponses,
  INLINE_COMPRESS_BYTES,
  isCompressible,
  negotiateEncoding,
  varyOnEncoding,
} from "./compression.ts";
import { requestContext } from "./middleware.ts";
import type { AppEnv } from "./principal.ts";

describe("negotiateEncoding", () => {
  it("prefers brotli when it is offered at least as highly as gzip", () => {
    expect(negotiateEncoding("gzip, deflate, br")).toBe("br");
    expect(negotiateEncoding("br;q=0.9, gzip;q=0.9")).toBe("br");
    expect(negotiateEncoding("*")).toBe("br");
    expect(negotiateEncoding("gzip;q=0.5, *")).toBe("br");
  });

  it("follows the client's q-values", () => {
    expect(negotiateEncoding("br;q=0.5, gzip")).toBe("gzip");
    expect(negotiateEncoding("GZIP")).toBe("gzip");
    expect(negotiateEncoding("br;q=0, gzip")).toBe("gzip");
    expect(negotiateEncoding("x-gzip")).toBe("gzip");
  });

  it("falls back to identity when nothing it can send is acceptable", () => {
    expect(negotiateEncoding(undefined)).toBe("identity");
    expect(negotiateEncoding("")).toBe("identity");
    expect(negotiateEncoding("identity")).toBe("identity");
    expect(negotiateEncoding("deflate, zstd")).toBe("identity");
    expect(negotiateEncoding("*;q=0")).toBe("identity");
    expect(negotiateEncoding("br;q=nonsense")).toBe("identity");
  });
});

describe("isCompressible", () => {
  it("takes text, JSON, JavaScript and SVG, never an event stream or binary", () => {
    for (const type of [
      "application/json",
      "application/problem+json",
      "text/javascript; charset=utf-8",
      "text/html; charset=utf-8",
      "text/css",
      "image/svg+xml",
    ]) {
      expect(isCompressible(type)).toBe(true);
    }
    for (const type of ["text/event-stream; charset=utf-8", "image/png", "application/pdf", null]) {
      expect(isCompressible(type)).toBe(false);
    }
  });
});

describe("varyOnEncoding", () => {
  it("adds Accept-Encoding once, keeping what Vary already names", () => {
    const headers = new Headers({ Vary: "Origin" });
    varyOnEncoding(headers);
    varyOnEncoding(headers);
    expect(headers.get("vary")).toBe("Origin, Accept-Encoding");
    const star = new Headers({ Vary: "*" });
    varyOnEncoding(star);
    expect(star.get("vary")).toBe("*");
  });
});

describe("compressResponses", () => {
  const big = JSON.stringify({ text: "lore ".repeat(1000) });
  // Past INLINE_COMPRESS_BYTES: compressed on zlib's thread pool, where `big` is on the event loop.
  const larger = JSON.stringify({ text: "lore ".repeat(10_000) });
  let base = "";
  let server: ReturnType<typeof serve>;

  beforeAll(async () => {
    const app = new Hono<AppEnv>();
    app.use(
      "*",
      requestContext({ proxyTrust: { kind: "none" }, publicUrl: null }, { logger: createLogger("silent") }),
    );
    app.use("*", compressResponses());
    app.get("/json", (c) => c.json(JSON.parse(big)));
    app.get("/larger", (c) => c.json(JSON.parse(larger)));
    app.get("/encoded", () => {
      const headers = { "Content-Type": "application/json", "Content-Encoding": "gzip" };
      return new Response(new Uint8Array(gzipSync(big)), { headers });
    });
    app.get("/no-transform", (c) => c.json(JSON.parse(big), 200, { "Cache-Control": "no-transform" }));
    app.get("/png", () => new Response(new Uint8Array(4096), { headers: { "Content-Type": "image/png" } }));
    server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  // fetch decodes what it receives; Content-Encoding still says what was sent.
  const get = (path: string) => fetch(`${base}${path}`, { headers: { "Accept-Encoding": "br, gzip" } });

  it("compresses a large JSON body, keeping the request id", async () => {
    const res = await get("/json");
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("x-request-id")).toMatch(/\S/);
    expect(await res.text()).toBe(big);
  });

  it("compresses bodies below and above the inline size with either encoding, to the same bytes", async () => {
    expect(big.length).toBeLessThan(INLINE_COMPRESS_BYTES);
    expect(larger.length).toBeGreaterThan(INLINE_COMPRESS_BYTES);
    for (const encoding of ["br", "gzip"])
      for (const [path, body] of [
        ["/json", big],
        ["/larger", larger],
      ] as const) {
        const res = await fetch(`${base}${path}`, { headers: { "Accept-Encoding": encoding } });
        expect(res.headers.get("content-encoding")).toBe(encoding);
        expect(await res.text()).toBe(body);
      }
  });

  it("leaves an already encoded body as it is, encoded once", async () => {
    const res = await get("/encoded");
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toBeNull();
    expect(await res.text()).toBe(big);
  });

  it("honours no-transform and leaves binary types alone", async () => {
    for (const path of ["/no-transform", "/png"]) {
      const res = await get(path);
      expect(res.headers.get("content-encoding")).toBeNull();
      await res.arrayBuffer();
    }
  });
});
