/**
 * No request can freeze the server (issue #34): adversarial text on every route that takes text,
 * against the built server in its own process, while the test polls `/healthz` every 20 ms. A request
 * that held the event loop shows as a gap in those answers. Before the bounds, a 400-letter question
 * took 37 s, a robots.txt trap held `/healthz` over 30 s, six glob wildcards took 121 s.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Agent, DataSource } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  httpRequest,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server.ts";
import { until } from "../helpers/until.ts";

let lore: ServerProcess;
let site: Server;
let siteUrl = "";
let token = "";
let agent: Agent;
let apiKey = "";

const LONG_WORD = Array.from(
  { length: 10_000 },
  (_, i) => "abcdefghijklmnopqrstuvwxyz"[(i * 7919 + 13) % 26],
).join("");
const ONE_LETTER_WORDS = Array.from({ length: 5_000 }, (_, i) => "abcdefghijklmnopqrstuvwxyz"[i % 26]).join(
  " ",
);
const DISTINCT_WORDS = Array.from({ length: 1_400 }, (_, i) => `w${i.toString(36)}x`).join(" ");
const QUESTIONS: [string, string][] = [
  ["one 10,000-letter word", LONG_WORD],
  ["a 400-letter word", LONG_WORD.slice(0, 400)],
  ["5,000 one-letter words", ONE_LETTER_WORDS],
  ["1,400 distinct words", DISTINCT_WORDS],
  [
    "10,000 Han characters",
    Array.from({ length: 9_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join(""),
  ],
  ["a 9,000-letter Cyrillic word", "привет".repeat(1_500)],
];
/** A trap for backtracking wildcards: six stars against long runs of `a`. */
const TRAP = "*a*a*a*a*a*a*b";
const LONG_PATH = `/${"a".repeat(160)}`;

/** `/healthz` polled every 20 ms while `work` runs: how long the request took and the answer gaps. */
async function underWatch<T>(
  work: () => Promise<T>,
): Promise<{ result: T; ms: number; worstHealthMs: number; p99: number }> {
  const latencies: number[] = [];
  let running = true;
  const poller = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${lore.url}/healthz`);
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  running = false;
  await poller;
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  return { result, ms, worstHealthMs: sorted.at(-1) ?? 0, p99 };
}

/** The bounds asserted: the goals are 1 s per request and 200 ms p99 for /healthz on an idle machine;
 * the margins allow for a shared CI machine, and still fail by far the unbounded code (seconds to minutes). */
function expectBounded(what: string, run: { ms: number; worstHealthMs: number; p99: number }): void {
  console.log(
    `${what}: ${Math.round(run.ms)} ms, /healthz p99 ${Math.round(run.p99)} ms, worst ${Math.round(run.worstHealthMs)} ms`,
  );
  expect(run.ms, `${what} took ${Math.round(run.ms)} ms`).toBeLessThan(3_000);
  expect(
    run.worstHealthMs,
    `/healthz waited ${Math.round(run.worstHealthMs)} ms during ${what}`,
  ).toBeLessThan(1_000);
}

const api = <T = unknown>(method: string, path: string, body?: unknown, credential = token) =>
  httpRequest<T>(lore.api, method, path, { token: credential, body });

async function settled(id: string): Promise<DataSource> {
  return until(
    async () => {
      const source = (await api<DataSource>("GET", `/data-sources/${id}/`)).body;
      return (source.status === "ready" || source.status === "failed") && source;
    },
    { timeout: 60_000, interval: 100, what: () => `source ${id} to settle` },
  );
}

beforeAll(async () => {
  // A site whose robots.txt, sitemap and links are traps: long paths against wildcard rules.
  const links = Array.from({ length: 40 }, (_, i) => `<a href="${LONG_PATH}${i}">x</a>`).join(" ");
  site = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/robots.txt") {
      res.setHeader("content-type", "text/plain");
      res.end(`User-agent: *\nDisallow: /${TRAP}\nAllow: /${TRAP}$\nSitemap: ${siteUrl}/sitemap.xml\n`);
    } else if (path === "/sitemap.xml") {
      res.setHeader("content-type", "application/xml");
      const urls = Array.from({ length: 200 }, (_, i) => `<url><loc>${siteUrl}${LONG_PATH}${i}</loc></url>`);
      res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join("")}</urlset>`,
      );
    } else {
      res.setHeader("content-type", "text/html");
      res.end(
        `<!doctype html><html><head><title>Page ${path.length}</title></head><body><main><p>Shipping takes three days. ${links}</p></main></body></html>`,
      );
    }
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  lore = await startServerProcess({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1", LORE_WEB_DELAY_MS: "0" });
  token = (
    await httpRequest<{ access: string }>(lore.api, "POST", "/auth/login/", {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    })
  ).body.access;
  const source = await api<DataSource>("POST", "/data-sources/", {
    name: "FAQ",
    type: "text",
    config: {
      entries: [
        {
          title: "Shipping",
          content: "Standard shipping takes three to five business days. Express takes one day.",
        },
        { title: "Returns", content: "You can return an unopened item within 30 days for a full refund." },
        { title: "Passwords", content: "Reset your password from the sign-in page. Choose Forgot password." },
      ],
    },
  });
  expect((await settled(source.body.id)).status).toBe("ready");
  agent = (
    await api<Agent>("POST", "/agents/", {
      name: "Bounded",
      dataSourceIds: [source.body.id],
      allowedOrigins: ["http://127.0.0.1"],
    })
  ).body;
  apiKey = (await api<{ key: string }>("POST", `/agents/${agent.id}/api-keys/`, { name: "mcp" })).body.key;
  // The first question loads the dictionaries; the bounds are about every question after it.
  await api("POST", `/agents/${agent.id}/query/`, { message: "how long does shipping take?" });
}, 120_000);

afterAll(async () => {
  await lore?.close();
  await new Promise((r) => site?.close(r));
});

describe("questions of pathological shape answer in bounded time", () => {
  for (const [name, text] of QUESTIONS) {
    it(`${name}: /query/, /search/, the widget, chat completions and MCP`, async () => {
      const run = await underWatch(async () => {
        const statuses = [
          (await api("POST", `/agents/${agent.id}/query/`, { message: text })).status,
          (await api("POST", `/agents/${agent.id}/search/`, { query: text })).status,
          (
            await httpRequest(lore.api, "POST", `/widget/${agent.widgetId}/query/`, {
              body: { message: text },
              headers: { Origin: "http://127.0.0.1" },
            })
          ).status,
          (
            await api("POST", `/agents/${agent.id}/chat/completions/`, {
              model: "lore",
              messages: [{ role: "user", content: text }],
            })
          ).status,
          (
            await api(
              "POST",
              `/agents/${agent.id}/mcp/`,
              {
                jsonrpc: "2.0",
                id: 1,
                method: "tools/call",
                params: { name: "ask", arguments: { question: text } },
              },
              apiKey,
            )
          ).status,
        ];
        return statuses;
      });
      expect(run.result).toEqual([200, 200, 200, 200, 200]);
      // Five requests: each is bounded by a fifth of the whole.
      expectBounded(name, { ...run, ms: run.ms / 5 });
    });
  }
});

describe("patterns from sites and owners never backtrack", () => {
  it("a robots.txt of nested wildcards against a sitemap of long URLs", async () => {
    const run = await underWatch(async () => {
      const created = await api<DataSource>("POST", "/data-sources/", {
        name: "Trap sitemap",
        type: "web",
        config: { url: `${siteUrl}/sitemap.xml`, mode: "sitemap", maxPages: 20 },
      });
      expect(created.status).toBe(201);
      return settled(created.body.id);
    });
    expect(run.result.status).toBe("ready");
    console.log(`robots.txt trap sync: ${Math.round(run.ms)} ms`);
    expect(run.worstHealthMs, `/healthz waited ${Math.round(run.worstHealthMs)} ms`).toBeLessThan(1_000);
  });

  it("include and exclude globs of nested wildcards against long links", async () => {
    const run = await underWatch(async () => {
      const created = await api<DataSource>("POST", "/data-sources/", {
        name: "Trap crawl",
        type: "web",
        config: {
          url: `${siteUrl}/start`,
          mode: "crawl",
          maxPages: 5,
          maxDepth: 1,
          include: [`**/${TRAP}`, "/start"],
          exclude: [`/${TRAP}*${TRAP}`],
        },
      });
      expect(created.status).toBe(201);
      return settled(created.body.id);
    });
    expect(run.result.status).toBe("ready");
    console.log(`glob trap sync: ${Math.round(run.ms)} ms`);
    expect(run.worstHealthMs, `/healthz waited ${Math.round(run.worstHealthMs)} ms`).toBeLessThan(1_000);
  });

  it("text entries of pathological shape are indexed without holding the loop", async () => {
    const run = await underWatch(async () => {
      const created = await api<DataSource>("POST", "/data-sources/", {
        name: "Odd entries",
        type: "text",
        config: {
          entries: [
            { title: LONG_WORD.slice(0, 200), content: LONG_WORD },
            { title: "Letters", content: ONE_LETTER_WORDS },
          ],
        },
      });
      return settled(created.body.id);
    });
    expect(run.result.status).toBe("ready");
    expectBounded("odd text entries", run);
  });

  it("refuses globs past their bounds with a field error", async () => {
    const res = await api<{ error: string; details: { fields: Record<string, string[]> } }>(
      "POST",
      "/data-sources/",
      {
        name: "Too many globs",
        type: "web",
        config: {
          url: `${siteUrl}/start`,
          mode: "crawl",
          include: Array.from({ length: 10 }, () => "*".repeat(250)),
        },
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_error");
    expect(Object.keys(res.body.details.fields).join(" ")).toMatch(/include/);
  });
});
