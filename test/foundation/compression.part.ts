import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { repoRoot, startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent, readyTextSource, streamQuery } from "../ingestion/source-helpers.ts";

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent: fetch would decode a Content-Encoding on its own. */
  body: Buffer;
}

/** One request over node:http, which sends no Accept-Encoding of its own and decodes nothing. */
function raw(url: string, headers: Record<string, string> = {}, method = "GET"): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

function decode(res: RawResponse): Buffer {
  switch (res.headers["content-encoding"]) {
    case "br":
      return brotliDecompressSync(res.body);
    case "gzip":
      return gunzipSync(res.body);
    case undefined:
      return res.body;
    default:
      throw new Error(`unexpected Content-Encoding ${String(res.headers["content-encoding"])}`);
  }
}

const panelPath = (): string => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, "widget/dist/manifest.json"), "utf8"));
  return `/${manifest.panel.file as string}`;
};

/** The console's hashed script, as its built page names it (console/dist). */
const consoleScriptPath = (): string => {
  const html = readFileSync(join(repoRoot, "console/dist/index.html"), "utf8");
  // Relative since the console works under a path prefix (issue #51): ./assets/console-….js.
  const name = /src="(?:\.\/|\/console\/)(assets\/[\w.-]+\.js)"/.exec(html)?.[1] ?? "assets/missing.js";
  return `/console/${name}`;
};

let fake: FakeOpenAI;
let server: TestServer;
let token: string;

beforeAll(async () => {
  // A model that streams one token every 40 ms, to see whether SSE events leave one by one.
  fake = await startFakeOpenAI({ tokenDelayMs: 40 });
  server = await startTestServer({ LORE_OPENAI_BASE_URL: fake.url });
  token = (await server.login()).access;
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe("static files", () => {
  const files = [
    { name: "widget.js", path: () => "/widget.js", cache: "public, max-age=300" },
    { name: "the panel chunk", path: panelPath, cache: "public, max-age=31536000, immutable" },
    { name: "the console script", path: consoleScriptPath, cache: "public, max-age=31536000, immutable" },
  ];

  for (const file of files) {
    it(`serves ${file.name} as br and gzip that decode to the identity bytes`, async () => {
      const url = `${server.url}${file.path()}`;
      const identity = await raw(url);
      expect(identity.status).toBe(200);
      expect(identity.headers["content-encoding"]).toBeUndefined();
      expect(identity.headers.vary).toBe("Accept-Encoding");
      expect(identity.headers["content-type"]).toBe("text/javascript; charset=utf-8");
      expect(identity.body.length).toBeGreaterThan(1024);

      const br = await raw(url, { "Accept-Encoding": "gzip, deflate, br" });
      const gzip = await raw(url, { "Accept-Encoding": "gzip" });
      expect(br.headers["content-encoding"]).toBe("br");
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      for (const res of [br, gzip]) {
        expect(res.status).toBe(200);
        expect(res.headers.vary).toBe("Accept-Encoding");
        expect(res.headers["cache-control"]).toBe(file.cache);
        expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
        expect(Number(res.headers["content-length"])).toBe(res.body.length);
        expect(res.body.length).toBeLessThan(identity.body.length * 0.6);
        expect(decode(res).equals(identity.body)).toBe(true);
      }
      // One strong ETag per representation: a cache never serves one encoding's bytes for another's tag.
      const etags = [identity, br, gzip].map((r) => r.headers.etag);
      expect(new Set(etags).size).toBe(3);
      for (const etag of etags) expect(etag).toMatch(/^"[\w-]+"$/);
    });
  }

  it("keeps CORS on the compressed widget files", async () => {
    for (const path of ["/widget.js", panelPath()]) {
      const res = await raw(`${server.url}${path}`, {
        "Accept-Encoding": "br",
        Origin: "https://shop.example",
      });
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      expect(res.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    }
  });

  it("answers 304 for the ETag of the encoding it would send, and 200 for another encoding's", async () => {
    const url = `${server.url}/widget.js`;
    const br = await raw(url, { "Accept-Encoding": "br" });
    const etag = String(br.headers.etag);
    const again = await raw(url, { "Accept-Encoding": "br", "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers.vary).toBe("Accept-Encoding");
    expect(again.headers["cache-control"]).toBe("public, max-age=300");
    expect(again.headers["content-encoding"]).toBeUndefined();

    const otherEncoding = await raw(url, { "Accept-Encoding": "gzip", "If-None-Match": etag });
    expect(otherEncoding.status).toBe(200);
    expect(otherEncoding.headers["content-encoding"]).toBe("gzip");
    expect(decode(otherEncoding).equals(decode(br))).toBe(true);
  });

  it("answers HEAD with the GET headers of the chosen encoding and no body", async () => {
    const head = await raw(`${server.url}/widget.js`, { "Accept-Encoding": "br" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-encoding"]).toBe("br");
    expect(head.headers.vary).toBe("Accept-Encoding");
    expect(head.headers["x-request-id"]).toMatch(/\S/);
  });

  it("does not serve the precompressed siblings under their own names", async () => {
    const res = await raw(`${server.url}${panelPath()}.br`, { "Accept-Encoding": "br" });
    expect(res.status).toBe(404);
  });

  it("compresses the demo page built per request", async () => {
    const identity = await raw(`${server.url}/`);
    const br = await raw(`${server.url}/`, { "Accept-Encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(br.headers["content-security-policy"]).toMatch(/nonce-/);
    // The nonce differs per request; the page around it does not.
    const page = (body: Buffer) => body.toString("utf8").replace(/nonce="[^"]*"/g, "");
    expect(page(decode(br))).toBe(page(identity.body));
  });
});

describe("JSON responses", () => {
  it("compresses the OpenAPI document with brotli when offered, gzip otherwise", async () => {
    const url = `${server.api}/openapi.json`;
    const identity = await raw(url);
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.headers.vary).toBe("Accept-Encoding");
    const document = JSON.parse(identity.body.toString("utf8"));
    for (const [accept, encoding] of [
      ["gzip, deflate, br", "br"],
      ["br;q=0.5, gzip", "gzip"],
      ["gzip", "gzip"],
      ["*", "br"],
    ] as const) {
      const res = await raw(url, { "Accept-Encoding": accept });
      expect(res.status).toBe(200);
      expect(res.headers["content-encoding"]).toBe(encoding);
      expect(res.headers.vary).toBe("Accept-Encoding");
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(res.headers["x-request-id"]).toMatch(/\S/);
      expect(res.body.length).toBeLessThan(identity.body.length / 4);
      expect(JSON.parse(decode(res).toString("utf8"))).toEqual(document);
    }
  });

  it("sends identity when no encoding is acceptable", async () => {
    for (const accept of ["identity", "deflate", "br;q=0, gzip;q=0", "*;q=0"]) {
      const res = await raw(`${server.api}/openapi.json`, { "Accept-Encoding": accept });
      expect(res.status).toBe(200);
      expect(res.headers["content-encoding"]).toBeUndefined();
      expect(res.headers.vary).toBe("Accept-Encoding");
    }
  });

  it("compresses a long agent list but not a short one, with the API's other headers kept", async () => {
    const list = () =>
      raw(`${server.api}/agents/?page_size=100`, {
        Authorization: `Bearer ${token}`,
        "Accept-Encoding": "br, gzip",
      });
    const short = await list();
    expect(short.status).toBe(200);
    expect(short.body.length).toBeLessThan(1024);
    expect(short.headers["content-encoding"]).toBeUndefined();
    expect(short.headers.vary).toBe("Accept-Encoding");

    for (let i = 0; i < 12; i++) await createAgent(server, token, { name: `Compressed ${i}` });
    const long = await list();
    expect(long.status).toBe(200);
    expect(long.headers["content-encoding"]).toBe("br");
    expect(long.headers["x-ratelimit-limit"]).toMatch(/^\d+$/);
    const page = JSON.parse(decode(long).toString("utf8")) as { results: unknown[] };
    expect(page.results.length).toBeGreaterThanOrEqual(12);
    expect(decode(long).length).toBeGreaterThan(1024);
  });

  it("keeps CORS's Vary: Origin beside Accept-Encoding", async () => {
    const strict = await startTestServer({ LORE_CORS_ORIGINS: "https://console.example" });
    try {
      const res = await raw(`${strict.api}/openapi.json`, {
        Origin: "https://console.example",
        "Accept-Encoding": "gzip",
      });
      expect(res.headers["content-encoding"]).toBe("gzip");
      const vary = String(res.headers.vary)
        .split(",")
        .map((v) => v.trim());
      expect(vary.sort()).toEqual(["Accept-Encoding", "Origin"]);
      expect(res.headers["access-control-allow-origin"]).toBe("https://console.example");
    } finally {
      await strict.close();
    }
  });

  it("leaves a small error body alone", async () => {
    const res = await raw(`${server.api}/nowhere/`, { "Accept-Encoding": "br, gzip" });
    expect(res.status).toBe(404);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(res.body.toString("utf8")).error).toBe("not_found");
  });
});

describe("Server-Sent Events", () => {
  let agentId: string;

  beforeAll(async () => {
    const shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
    agentId = (
      await createAgent(server, token, {
        name: "Streamer",
        model: "openai:fake-chat",
        dataSourceIds: [shop.id],
      })
    ).id;
  });

  it("streams a query uncompressed, each event as it happens", async () => {
    const { response, events } = await streamQuery(
      `${server.api}/agents/${agentId}/query/`,
      token,
      { message: "How long are gift cards valid?" },
      { headers: { "Accept-Encoding": "br, gzip" } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(response.headers.get("vary") ?? "").not.toMatch(/accept-encoding/i);
    const tokens = events.filter((e) => e.event.type === "token");
    expect(tokens.length).toBeGreaterThan(5);
    const first = events[0]?.at ?? Number.NaN;
    const last = tokens.at(-1)?.at ?? Number.NaN;
    // 40 ms between the model's tokens: a buffered (or compressed) stream would arrive in one burst.
    expect(last - first).toBeGreaterThan(40 * (tokens.length - 3));
    expect(tokens[0]?.at ?? Number.NaN).toBeLessThan(last - 100);
  });
});
