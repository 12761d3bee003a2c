/**
 * CPU bounds (issue #34): no request holds the event loop. The built server runs as its own process
 * (a blocked loop in this process would block the poller too); `/healthz` is polled every 20 ms
 * while each adversarial request runs, and both the request's own time and the longest `/healthz`
 * wait are asserted (generous margins: the machine is shared; the p99 is printed).
 */
import type { Agent } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fakes/web-site.ts";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { httpRequest, type ServerProcess, startServerProcess } from "../helpers/server.ts";
import { call, createAgent, readyTextSource, waitForSettled } from "../ingestion/source-helpers.ts";

const ORIGIN = "https://shop.example";
/** The goal is ≤ 1 s per question and ≤ 200 ms p99 for /healthz; the assertions allow for a busy machine. */
const REQUEST_LIMIT_MS = 3000;
const HEALTH_LIMIT_MS = 1000;

let server: ServerProcess;
let site: TestSite;
let token: string;
let agent: Agent;
let apiKey: string;
const healthWaits: number[] = [];

const letters = (n: number) => {
  let s = "";
  for (let i = 0; i < n; i++) s += "abcdefghijklmnopqrstuvwxyz"[(i * 7 + (i >> 3)) % 26];
  return s;
};
/** Question shapes at the 10,000-character limit. */
const shapes: Record<string, string> = {
  "one 400-letter word": letters(400),
  "one 10,000-letter word": letters(10_000),
  "5,000 one-letter words": Array.from({ length: 5000 }, (_, i) => "abcdefghijklmnopqrstuvwxyz"[i % 26]).join(
    " ",
  ),
  "1,100 misspelt words": Array.from({ length: 1100 }, (_, i) => `shiping${"abcdefghij"[i % 10]}`).join(" "),
  "'how many' 1,100 times": "how many ".repeat(1100).trim(),
  "one 10,000-character accented word": "é".repeat(10_000),
  "one 2,500-letter Arabic word": "كتاب".repeat(2500),
  "1,600 distinct words": Array.from({ length: 1600 }, (_, i) => `w${i.toString(36)}x`)
    .join(" ")
    .slice(0, 10_000),
};

/** Runs `request` while polling /healthz every 20 ms; returns the request's time and the longest health wait. */
async function underWatch<T>(
  request: () => Promise<T>,
): Promise<{ result: T; ms: number; worstHealth: number }> {
  let running = true;
  let worst = 0;
  const poll = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${server.url}/healthz`);
      await res.arrayBuffer();
      const waited = performance.now() - started;
      healthWaits.push(waited);
      worst = Math.max(worst, waited);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = performance.now();
  const result = await request();
  const ms = performance.now() - started;
  running = false;
  await poll;
  return { result, ms, worstHealth: worst };
}

function expectBounded(label: string, watched: { ms: number; worstHealth: number }): void {
  console.log(`${label}: ${watched.ms.toFixed(0)} ms, longest /healthz ${watched.worstHealth.toFixed(0)} ms`);
  expect(watched.ms, label).toBeLessThan(REQUEST_LIMIT_MS);
  expect(watched.worstHealth, `${label}: /healthz`).toBeLessThan(HEALTH_LIMIT_MS);
}

beforeAll(async () => {
  site = await startTestSite();
  server = await startServerProcess({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1", LORE_WEB_DELAY_MS: "0" });
  const login = await httpRequest<{ access: string }>(server.api, "POST", "/auth/login/", {
    body: { email: "admin@example.com", password: "correct-horse-battery" },
  });
  token = login.body.access;
  const shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  agent = await createAgent(server, token, {
    name: "Shop",
    dataSourceIds: [shop.id],
    allowedOrigins: [ORIGIN],
  });
  apiKey = (
    await call<{ key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, { name: "k" })
  ).body.key;
  // Warm up: the first question loads WordNet and the tokenizer, which is not what is measured here.
  // (and the language detector and stop lists a few words of another language load).
  for (const message of ["How long does shipping take?", "a e o y de la que el en", "كتاب المتجر"])
    await call(server, "POST", `/agents/${agent.id}/query/`, token, { message });
}, 120_000);

afterAll(async () => {
  const sorted = [...healthWaits].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  console.log(
    `/healthz during the suite: ${sorted.length} polls, p99 ${p99.toFixed(0)} ms, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms`,
  );
  await server?.close();
  await site?.close();
});

describe("questions of pathological shape answer in bounded time on every route", () => {
  const routes: Record<string, (q: string) => Promise<{ status: number }>> = {
    widget: (q) =>
      httpRequest(server.api, "POST", `/widget/${agent.widgetId}/query/`, {
        body: { message: q },
        headers: { Origin: ORIGIN },
      }),
    query: (q) => call(server, "POST", `/agents/${agent.id}/query/`, token, { message: q }),
    search: (q) => call(server, "POST", `/agents/${agent.id}/search/`, token, { query: q }),
    "chat completions": (q) =>
      call(server, "POST", `/agents/${agent.id}/chat/completions/`, token, {
        messages: [
          { role: "user", content: q },
          { role: "assistant", content: "Shipping takes three days." },
          { role: "user", content: q },
        ],
      }),
    "MCP ask": (q) =>
      call(server, "POST", `/agents/${agent.id}/mcp/`, apiKey, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "ask", arguments: { question: q } },
      }),
    "MCP search": (q) =>
      call(server, "POST", `/agents/${agent.id}/mcp/`, apiKey, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "search", arguments: { query: q } },
      }),
  };
  for (const [route, send] of Object.entries(routes)) {
    it(`${route}`, async () => {
      for (const [shape, question] of Object.entries(shapes)) {
        const watched = await underWatch(() => send(question));
        expect(watched.result.status, `${route}: ${shape}`).toBe(200);
        expectBounded(`${route}: ${shape}`, watched);
      }
    }, 120_000);
  }
});

describe("site- and user-supplied patterns cannot backtrack", () => {
  it("crawls under a backtracking robots.txt rule and backtracking globs, long URLs included", async () => {
    const long = `/docs/${"a".repeat(1500)}`;
    site.setPage("/robots.txt", {
      raw: `User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*b\nDisallow: /private/\nSitemap: ${site.url}/sitemap.xml\n`,
      contentType: "text/plain",
    });
    site.setPage(long, { title: "Long", html: `<h1>Long</h1><p>A page with a long address.</p>` });
    site.setPage("/docs/", {
      title: "Docs",
      html: `<h1>Docs</h1><p>Start here.</p><a href="${long}">long</a> <a href="${long}x">longer</a> <a href="/docs/install">Install</a>`,
    });
    const watched = await underWatch(async () => {
      const created = await call<{ id: string }>(server, "POST", "/data-sources/", token, {
        name: "Crawl",
        type: "web",
        config: {
          url: `${site.url}/docs/`,
          mode: "crawl",
          maxDepth: 1,
          include: ["/*a*a*a*a*a*a*a*a*a*a*b*", "/docs/**"],
          exclude: ["**a**a**a**a*b", "/*a*a*a*a*a*a*c"],
        },
      });
      expect(created.status).toBe(201);
      return waitForSettled(server, token, created.body.id, 60_000);
    });
    expect(watched.result.status).toBe("ready");
    console.log(`crawl: ${watched.ms.toFixed(0)} ms, longest /healthz ${watched.worstHealth.toFixed(0)} ms`);
    expect(watched.worstHealth, "crawl: /healthz").toBeLessThan(HEALTH_LIMIT_MS);
    expect(site.requests).toContain(long);
  }, 90_000);

  it("crawls a page of thousands of long links under globs at their size cap (issue #49)", async () => {
    // Four 483-character globs (1,932 of the 2,000 characters) that stay live over every link: each
    // link's path is 1,990 a's and a number, never ending in the b they wait for.
    const glob = `/*${"a*".repeat(240)}b`;
    const many = Array.from({ length: 3000 }, (_, i) => `<a href="/${"a".repeat(1990)}${i}">${i}</a>`);
    site.setPage("/many/", {
      title: "Many",
      html: `<h1>Many</h1><p>Thousands of links.</p>${many.join(" ")}`,
    });
    const watched = await underWatch(async () => {
      const created = await call<{ id: string }>(server, "POST", "/data-sources/", token, {
        name: "Many links",
        type: "web",
        config: {
          url: `${site.url}/many/`,
          mode: "crawl",
          maxDepth: 1,
          maxPages: 10_000,
          exclude: [glob, glob, glob, glob],
        },
      });
      expect(created.status).toBe(201);
      return waitForSettled(server, token, created.body.id, 240_000);
    });
    expect(watched.result.status).toBe("ready");
    console.log(
      `3,000 long links: ${watched.ms.toFixed(0)} ms, longest /healthz ${watched.worstHealth.toFixed(0)} ms`,
    );
    expect(watched.worstHealth, "long links: /healthz").toBeLessThan(HEALTH_LIMIT_MS);
    // At most 1,000 links are taken from a page.
    expect(site.requests.filter((r) => r.startsWith("/aaaa")).length).toBeLessThanOrEqual(1000);
  }, 300_000);

  it("counts {a,b} alternatives against the patterns' 2,000-character cap (issue #49)", async () => {
    // The list: 1,964 characters as written, 32 alternatives of each 491-character glob.
    const glob = `*{a,b}*{a,b}*{a,b}*{a,b}*{a,b}${"a*".repeat(230)}b`;
    const res = await call<{ error: string; details: { fields: Record<string, string[]> } }>(
      server,
      "POST",
      "/data-sources/",
      token,
      {
        name: "Braces",
        type: "web",
        config: { url: `${site.url}/`, mode: "crawl", exclude: [glob, glob, glob, glob] },
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_error");
    expect(Object.keys(res.body.details.fields).join(" ")).toMatch(/exclude/);
  });

  it("refuses globs past their bounds with 400 validation_error naming the field", async () => {
    for (const include of [
      ["/{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}/**"], // 64 alternatives
      Array.from({ length: 10 }, () => "*".repeat(250)), // 2,500 characters in one list
    ]) {
      const res = await call<{ error: string; details: { fields: Record<string, string[]> } }>(
        server,
        "POST",
        "/data-sources/",
        token,
        { name: "Too much", type: "web", config: { url: `${site.url}/`, include } },
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation_error");
      expect(Object.keys(res.body.details.fields).join(" ")).toMatch(/include/);
    }
  });

  it("indexes text entries of pathological shape without stalling /healthz", async () => {
    const watched = await underWatch(async () => {
      const created = await call<{ id: string }>(server, "POST", "/data-sources/", token, {
        name: "Odd entries",
        type: "text",
        config: {
          entries: [
            { title: letters(500), content: letters(10_000) },
            { title: "a", content: "é".repeat(10_000) },
            { title: "b", content: Array.from({ length: 5000 }, () => "a").join(" ") },
            { title: "c", content: "A. ".repeat(3000) },
          ],
        },
      });
      expect(created.status).toBe(201);
      return waitForSettled(server, token, created.body.id, 60_000);
    });
    expect(watched.result.status).toBe("ready");
    console.log(
      `entries: ${watched.ms.toFixed(0)} ms, longest /healthz ${watched.worstHealth.toFixed(0)} ms`,
    );
    expect(watched.worstHealth, "entries: /healthz").toBeLessThan(HEALTH_LIMIT_MS);
  }, 90_000);
});

describe("anonymous routes read small bodies (issue #49)", () => {
  /** The body: 10 MB of 600,000 keys. */
  const manyKeys = () => {
    const parts: string[] = ['"message":"hello"'];
    let length = 0;
    for (let i = 0; length < 10_000_000 && i < 600_000; i++) {
      const part = `"k${i}":${"0".repeat(8)}`;
      parts.push(part);
      length += part.length + 1;
    }
    return `{${parts.join(",")}}`;
  };

  it("refuses a 10 MB body of 600,000 keys with 413 before parsing it, twenty at once", async () => {
    const body = manyKeys();
    const targets = [`/widget/${agent.widgetId}/query/`, "/auth/login/"];
    const watched = await underWatch(() =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          httpRequest<{ error: string; message: string; details: { maxBytes: number } }>(
            server.api,
            "POST",
            targets[i % 2] ?? "",
            { body, headers: { Origin: ORIGIN, "Content-Type": "application/json" } },
          ),
        ),
      ),
    );
    for (const res of watched.result) {
      expect(res.status).toBe(413);
      expect(res.body.error).toBe("payload_too_large");
      expect(res.body.details.maxBytes).toBeLessThanOrEqual(96 * 1024);
    }
    // The time is this process sending 200 MB; the server's loop is what /healthz measures.
    console.log(
      `20 × 10 MB bodies: ${watched.ms.toFixed(0)} ms, longest /healthz ${watched.worstHealth.toFixed(0)} ms`,
    );
    expect(watched.worstHealth, "10 MB bodies: /healthz").toBeLessThan(HEALTH_LIMIT_MS);
  }, 120_000);

  it("still answers the longest question the widget accepts, escaped", async () => {
    const message = "é".repeat(10_000);
    const body = JSON.stringify({ message }).replaceAll("é", "\\u00e9");
    const res = await httpRequest(server.api, "POST", `/widget/${agent.widgetId}/query/`, {
      body,
      headers: { Origin: ORIGIN, "Content-Type": "application/json" },
    });
    expect(res.status).toBe(200);
  }, 60_000);

  it("bounds a JSON body's depth and members before parsing it, with 400 naming the body", async () => {
    const deep = `{"message":"hello","x":${"[".repeat(100)}${"]".repeat(100)}}`;
    const wide = `{"message":"hello","x":[${Array.from({ length: 30_000 }, () => "0").join(",")}]}`;
    for (const body of [deep, wide]) {
      const res = await httpRequest<{ error: string; details: { fields: Record<string, string[]> } }>(
        server.api,
        "POST",
        `/agents/${agent.id}/query/`,
        { body, token, headers: { "Content-Type": "application/json" } },
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation_error");
      expect(res.body.details.fields.body?.join(" ")).toMatch(/nested deeper|members/);
    }
  });
});
