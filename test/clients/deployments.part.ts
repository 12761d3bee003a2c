/**
 * The clients an integrator uses, unmodified, in five deployments of one Lore server: reached
 * directly, behind Debian's nginx and behind Debian's Caddy, each at the root and under the path
 * prefix /support/ (the proxy strips it and sends X-Forwarded-Prefix, as docs/operations.md shows).
 * Each deployment runs the official openai SDK (chat, streaming with include_usage, models,
 * Responses, a bad key), the MCP SDK (tools and its 401's resource metadata), openapi-fetch on the
 * document's own server with DRF page links, SSE timing and a Last-Event-ID reconnect, and the
 * widget in Chromium on another origin; all but Caddy's also the AI SDK (openai-compatible and the
 * default Responses model), LangChain and the owner console in Chromium. Behind nginx under the
 * prefix, @microsoft/fetch-event-source in Chromium loses its connection mid-answer (nginx
 * restarted) and resumes it with `last-event-id`.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ChatOpenAI } from "@langchain/openai";
import { type Agent, type Conversation, conversationDetailSchema, type Page } from "@lore/shared";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { generateText } from "ai";
import { build } from "esbuild";
import OpenAI, { AuthenticationError } from "openai";
import createClient from "openapi-fetch";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ensureConsoleBuilt,
  ensureWidgetBuilt,
  type HostSite,
  launchBrowser,
  openPage,
  signInToConsole,
  startHostSite,
} from "../browser/browser.ts";
import { defaultAnswer, type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { startCaddy } from "../helpers/caddy.ts";
import { startNginx, type TestNginx, type TestProxy } from "../helpers/nginx.ts";
import { repoRoot, startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource, streamQuery } from "../ingestion/source-helpers.ts";

const QUESTION = "Which payment methods do you accept?";
const USAGE = { prompt_tokens: 27, completion_tokens: 24 };

let fake: FakeOpenAI;
let server: TestServer;
let atRoot: TestNginx;
let underPrefix: TestNginx;
let caddyAtRoot: TestProxy;
let caddyUnderPrefix: TestProxy;
let host: HostSite;
let browser: Browser;
let token: string;
let agent: Agent;
let apiKey: string;

/**
 * Where a client reaches the server's root in each deployment (no trailing slash), and whether it
 * runs every client (behind Caddy: the openai SDK, the MCP SDK, openapi-fetch's pages, SSE timing
 * and the widget; the other clients make the same requests as the openai SDK).
 */
const deployments: [string, () => string, "every client" | "key clients"][] = [
  ["directly", () => server.url, "every client"],
  ["behind nginx at the root", () => atRoot.url, "every client"],
  ["behind nginx under /support/", () => `${underPrefix.url}/support`, "every client"],
  ["behind Caddy at the root", () => caddyAtRoot.url, "key clients"],
  ["behind Caddy under /support/", () => `${caddyUnderPrefix.url}/support`, "key clients"],
];

beforeAll(async () => {
  ensureWidgetBuilt();
  ensureConsoleBuilt();
  fake = await startFakeOpenAI({ usage: USAGE });
  // nginx connects from 127.0.0.1: its forwarded headers are read, a direct client sends none.
  server = await startTestServer({
    LORE_OPENAI_BASE_URL: fake.url,
    LORE_OPENAI_TIMEOUT_MS: "5000",
    LORE_TRUST_PROXY: "127.0.0.1",
  });
  [atRoot, underPrefix, caddyAtRoot, caddyUnderPrefix, host, browser] = await Promise.all([
    startNginx(server.url),
    startNginx(server.url, { prefix: "/support" }),
    startCaddy(server.url),
    startCaddy(server.url, { prefix: "/support" }),
    startHostSite(),
    launchBrowser(),
  ]);
  token = (await server.login()).access;
  const shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  agent = await createAgent(server, token, {
    name: "Shop",
    model: "openai:fake-chat",
    dataSourceIds: [shop.id],
    allowedOrigins: [host.origin],
  });
  apiKey = (
    await call<{ key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, { name: "clients" })
  ).body.key;
  // Two more agents, so the list has pages.
  for (const name of ["Second", "Third"]) await createAgent(server, token, { name });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([
    atRoot?.close(),
    underPrefix?.close(),
    caddyAtRoot?.close(),
    caddyUnderPrefix?.close(),
    host?.close(),
  ]);
  await server?.close();
  await fake?.close();
});
beforeEach(() => fake.setBehaviour({ tokenDelayMs: 0 }));

describe.each(deployments)("%s", (_name, rootOf, clients) => {
  const everyClient = clients === "every client";
  const agentBase = () => `${rootOf()}/api/agents/${agent.id}`;

  it("the openai SDK: chat, a stream with include_usage, models, Responses and a bad key", async () => {
    const client = new OpenAI({ baseURL: agentBase(), apiKey, maxRetries: 0 });
    const messages = [{ role: "user" as const, content: QUESTION }];
    const completion = await client.chat.completions.create({ model: "any", messages });
    expect(completion.choices[0]?.message.content).toMatch(/\w+/);
    const stream = await client.chat.completions.create({
      model: "any",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(completion.choices[0]?.message.content);
    expect(usage).toMatchObject(USAGE);
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.length).toBeGreaterThan(0);
    const response = await client.responses.create({ model: "any", input: QUESTION });
    expect(response.output_text).toMatch(/\w+/);
    const wrong = new OpenAI({ baseURL: agentBase(), apiKey: `${apiKey.slice(0, -4)}xxxx`, maxRetries: 0 });
    expect(await wrong.models.list().catch((e: unknown) => e)).toBeInstanceOf(AuthenticationError);
  });

  it.runIf(everyClient)("the AI SDK (openai-compatible, default Responses model) and LangChain", async () => {
    const compatible = createOpenAICompatible({ name: "lore", baseURL: agentBase(), apiKey });
    expect((await generateText({ model: compatible.chatModel(agent.id), prompt: QUESTION })).text).toMatch(
      /\w+/,
    );
    const openai = createOpenAI({ baseURL: agentBase(), apiKey });
    expect((await generateText({ model: openai(agent.id), prompt: QUESTION })).text).toMatch(/\w+/);
    const chat = new ChatOpenAI({
      model: agent.id,
      apiKey,
      configuration: { baseURL: agentBase() },
      maxRetries: 0,
    });
    expect(String((await chat.invoke(QUESTION)).content)).toMatch(/\w+/);
  });

  it("the MCP SDK: tools over the documented URL; a bad key's 401 names metadata reachable here", async () => {
    const url = new URL(`${agentBase()}/mcp/`);
    const client = new Client({ name: "deployments-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        "ask",
        "list_sources",
        "search",
      ]);
      const asked = (await client.callTool({
        name: "ask",
        arguments: { question: QUESTION },
      })) as CallToolResult;
      expect(asked.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const refused = await fetch(url, {
      method: "POST",
      headers: {
        Authorization: "Bearer lore_sk_not_a_key_at_all",
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(refused.status).toBe(401);
    const metadataUrl =
      /resource_metadata="([^"]+)"/.exec(refused.headers.get("www-authenticate") ?? "")?.[1] ?? "";
    expect(metadataUrl.startsWith(`${rootOf()}/.well-known/oauth-protected-resource/`)).toBe(true);
    const metadata = (await (await fetch(metadataUrl)).json()) as { resource: string };
    expect(metadata.resource).toBe(url.href);
  });

  it("openapi-fetch on the document's own server: pages with DRF links that stay in the deployment", async () => {
    const doc = (await (await fetch(`${rootOf()}/api/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    const baseUrl = doc.servers[0]?.url ?? "";
    expect(baseUrl).toBe(`${rootOf()}/api`);
    const api = createClient<Record<string, never>>({
      baseUrl,
      headers: { Authorization: `Bearer ${token}` },
    });
    const { data } = (await api.GET(
      "/agents/" as never,
      { params: { query: { page_size: 1 } } } as never,
    )) as {
      data: Page<Agent>;
    };
    expect(data.next).toBe(`${rootOf()}/api/agents/?page_size=1&page=2`);
    const second = (await (
      await fetch(data.next ?? "", { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as Page<Agent>;
    expect(second.previous).toBe(`${rootOf()}/api/agents/?page_size=1`);
    const past = await fetch(`${rootOf()}/api/agents?page=99`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect([past.status, ((await past.json()) as { message: string }).message]).toEqual([
      404,
      "Invalid page.",
    ]);
  });

  it("SSE: tokens arrive as the model sends them, and a reconnect after `done` is 204", async () => {
    const delay = 120;
    fake.setBehaviour({ tokenDelayMs: delay });
    const result = await streamQuery(`${agentBase()}/query/`, apiKey, { message: QUESTION });
    const tokens = result.events.filter((e) => e.event.type === "token");
    expect(tokens.length).toBeGreaterThan(5);
    // Unbuffered: the tokens are spread over the answer's time, not delivered in one burst at its end.
    const spread = (tokens.at(-1)?.at ?? 0) - (tokens[0]?.at ?? 0);
    expect(spread).toBeGreaterThan(((tokens.length - 1) * delay) / 2);
    const lastId =
      result.raw
        .filter((l) => l.startsWith("id: "))
        .at(-1)
        ?.slice(4) ?? "";
    const again = await streamQuery(
      `${agentBase()}/query/`,
      apiKey,
      { message: QUESTION },
      {
        headers: { "Last-Event-ID": lastId },
      },
    );
    expect(again.response.status).toBe(204);
  });

  it.runIf(everyClient)(
    "the owner console in Chromium: signs in, stays signed in on reload, and offers snippets for this deployment",
    async () => {
      const { page, problems } = await openPage(browser);
      try {
        await signInToConsole(page, rootOf(), `#/agents/${agent.id}/embed`);
        const snippet = page.locator('[data-snippet="embed"]');
        await snippet.waitFor({ timeout: 30_000 });
        expect(await snippet.textContent()).toBe(
          `<script src="${rootOf()}/widget.js" data-widget-id="${agent.widgetId}" async></script>`,
        );
        expect(await page.locator("pre code", { hasText: "mcpServers" }).textContent()).toContain(
          `"url": "${rootOf()}/api/agents/${agent.id}/mcp/"`,
        );
        // The session cookie is scoped to the session routes as this browser sees them.
        const cookies = await page.context().cookies();
        expect(cookies.find((c) => c.name === "lore_session")?.path).toBe(
          `${new URL(rootOf()).pathname.replace(/\/$/, "")}/api/auth/session/`,
        );
        await page.reload();
        await snippet.waitFor({ timeout: 30_000 });
        expect(problems.pageErrors).toEqual([]);
        expect(problems.cspViolations).toEqual([]);
      } finally {
        await page.context().close();
      }
    },
  );

  it("the widget on another origin, in Chromium, answers through this deployment", async () => {
    host.set("/shop.html", {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Shop</title></head>
<body><main><h1>Shop</h1></main><script src="${rootOf()}/widget.js" data-widget-id="${agent.widgetId}" async></script></body></html>`,
    });
    const { page, problems } = await openPage(browser);
    try {
      await page.goto(`${host.origin}/shop.html`);
      const launcher = page.locator('[data-lore="launcher"]');
      await launcher.waitFor({ state: "visible", timeout: 30_000 });
      await launcher.click();
      await page.locator('[data-lore="input"]').fill(QUESTION);
      await page.keyboard.press("Enter");
      const answer = page.locator('[data-lore="message"][data-role="assistant"]').last();
      await expect.poll(() => answer.getAttribute("data-status"), { timeout: 30_000 }).toBe("complete");
      expect(await answer.locator(".bubble").textContent()).toMatch(/\w+/);
      expect(problems.pageErrors).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});

describe("behind nginx under /support/, a widget pointed past the prefix", () => {
  it("logs the URL it asked, the status and the likely cause, and shows no launcher", async () => {
    const { page } = await openPage(browser);
    try {
      const warnings: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "warning") warnings.push(message.text());
      });
      // A page of the site behind the same nginx (here its own 404 page), and the snippet with
      // data-server left without /support: the configuration request gets nginx's HTML 404 page.
      await page.goto(`${underPrefix.url}/shop/`);
      await page.evaluate(
        ({ src, widgetId, server }) => {
          const script = document.createElement("script");
          Object.assign(script.dataset, { widgetId, server });
          script.src = src;
          document.body.append(script);
        },
        { src: `${underPrefix.url}/support/widget.js`, widgetId: agent.widgetId, server: underPrefix.url },
      );
      await expect
        .poll(() => warnings, { timeout: 30_000 })
        .toContain(
          `Lore: could not load the widget config from ${underPrefix.url}/api/widget/${agent.widgetId}/config/: HTTP 404 — check data-api-prefix`,
        );
      expect(await page.locator('[data-lore="launcher"]').isHidden()).toBe(true);
    } finally {
      await page.context().close();
    }
  });
});

describe("behind nginx under /support/, a connection dropped mid-answer", () => {
  it("@microsoft/fetch-event-source in Chromium resumes with last-event-id: each token once, one question", async () => {
    fake.setBehaviour({
      tokenDelayMs: 150,
      answer: (body) => `${defaultAnswer(body)} Cards are charged when the order ships, never before.`,
    });
    const root = `${underPrefix.url}/support`;
    const conversations = async () =>
      (
        (await (
          await fetch(`${root}/api/agents/${agent.id}/conversations/`, {
            headers: { Authorization: `Bearer ${token}` },
          })
        ).json()) as Page<Conversation>
      ).count;
    const [asked, modelCalls] = [
      await conversations(),
      fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length,
    ];
    // The npm package as a bundler would ship it to a browser.
    const library = await build({
      stdin: {
        contents: `import { fetchEventSource } from "@microsoft/fetch-event-source"; window.fetchEventSource = fetchEventSource;`,
        resolveDir: `${repoRoot}/test`,
      },
      bundle: true,
      format: "iife",
      platform: "browser",
      write: false,
    });
    host.set("/stream.html", {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stream</title></head><body><script>${library.outputFiles[0]?.text}</script></body></html>`,
    });
    const { page, problems } = await openPage(browser);
    try {
      // The connection is cut by restarting nginx (fast shutdown), as a deploy or a crash does.
      await page.exposeFunction("dropConnection", () => underPrefix.restart());
      await page.goto(`${host.origin}/stream.html`);
      const run = await page.evaluate(
        async ({ url, key, question }) => {
          const w = window as unknown as {
            fetchEventSource: (url: string, init: Record<string, unknown>) => Promise<void>;
            dropConnection: () => Promise<void>;
          };
          const events: { id: string; type: string; token?: string; conversationId?: string }[] = [];
          const statuses: number[] = [];
          const errors: string[] = [];
          const finished = new AbortController();
          // The client as fetch-event-source's README shows it: retry on a drop, stop on done.
          await w.fetchEventSource(url, {
            method: "POST",
            headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
            body: JSON.stringify({ message: question }),
            signal: finished.signal,
            openWhenHidden: true,
            async onopen(response: Response) {
              statuses.push(response.status);
              if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
            },
            onmessage(message: { id: string; data: string }) {
              const event = JSON.parse(message.data) as { type: string };
              events.push({ id: message.id, ...event });
              if (event.type === "token" && events.filter((e) => e.type === "token").length === 1)
                void w.dropConnection();
              if (event.type === "done") finished.abort();
            },
            onclose() {
              throw new Error("the stream ended before done");
            },
            onerror(error: unknown) {
              errors.push(String(error));
              if (errors.length > 20) throw error;
              return 300;
            },
          });
          return { events, statuses, errors };
        },
        { url: `${root}/api/agents/${agent.id}/query/`, key: apiKey, question: QUESTION },
      );
      expect(run.errors.length).toBeGreaterThan(0); // the drop was seen
      expect(run.statuses).toEqual([200, 200]); // the question, then the resumed stream
      expect(run.events.at(-1)?.type).toBe("done");
      const ids = run.events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      const start = run.events[0];
      const stored = conversationDetailSchema.parse(
        await (
          await fetch(`${root}/api/agents/${agent.id}/conversations/${start?.conversationId}/`, {
            headers: { Authorization: `Bearer ${token}` },
          })
        ).json(),
      );
      expect(stored.messages.map((m) => `${m.role} ${m.status}`)).toEqual([
        "user complete",
        "assistant complete",
      ]);
      const shown = run.events.map((e) => e.token ?? "").join("");
      expect(shown).toBe(stored.messages[1]?.content);
      expect(await conversations()).toBe(asked + 1);
      expect(fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length).toBe(modelCalls + 1);
      expect(problems.pageErrors).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
