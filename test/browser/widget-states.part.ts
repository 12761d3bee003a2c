// States a visitor can meet, in real Chromium against the real server: an agent still learning
// (503 agent_processing) and the anonymous rate limit (429 with a countdown from Retry-After).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { openPage, type PageProblems, waitUntil } from "./browser.ts";

// Anonymous requests (login, questions; not widget config reads) per IP, and a visitor's questions
// per visitor token: small enough to reach quickly.
const ANON_LIMIT = 8;

let server: TestServer;
/** A web site that accepts connections and never answers, so a sync of it never finishes. */
let silent: Server;
let browser: Browser;
let token = "";
let page: Page;
let problems: PageProblems;
let readyWidget = "";
let learningWidget = "";
let refusedWidget = "";

beforeAll(async () => {
  ({ server, browser, token } = await startServerAndBrowser({
    serves: ["widget"],
    env: { LORE_LIMIT_ANON_PER_HOUR: String(ANON_LIMIT), LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" },
  }));
  const ready = await server.request<{ id: string }>("POST", "/data-sources/", {
    token,
    body: {
      name: "FAQ",
      type: "text",
      config: { entries: [{ title: "Returns", content: "Returns are accepted within 30 days." }] },
    },
  });
  const answering = await server.request<{ widgetId: string }>("POST", "/agents/", {
    token,
    // Outside production `/?widget=` shows any agent; it talks to it only with the page's origin listed.
    body: { name: "Answering", dataSourceIds: [ready.body.id], allowedOrigins: [server.url] },
  });
  readyWidget = answering.body.widgetId;
  await waitUntil(
    async () =>
      (await server.request<{ status: string }>("GET", `/data-sources/${ready.body.id}/`, { token })).body
        .status === "ready",
    "the FAQ source to be ready",
  );
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const never = await server.request<{ id: string }>("POST", "/data-sources/", {
    token,
    body: {
      name: "Intranet",
      type: "web",
      config: { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/handbook`, mode: "page" },
    },
  });
  const learning = await server.request<{ widgetId: string }>("POST", "/agents/", {
    token,
    body: { name: "Learning", dataSourceIds: [never.body.id], allowedOrigins: [server.url] },
  });
  learningWidget = learning.body.widgetId;
  const refused = await server.request<{ widgetId: string }>("POST", "/agents/", {
    token,
    body: {
      name: "Elsewhere",
      dataSourceIds: [ready.body.id],
      allowedOrigins: ["https://elsewhere.example"],
    },
  });
  refusedWidget = refused.body.widgetId;
  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } }));
});

afterAll(async () => {
  await browser?.close();
  silent?.closeAllConnections();
  silent?.close();
  await server?.close();
});

async function openWidget(p: Page, widgetId: string): Promise<void> {
  await p.goto(`${server.url}/?widget=${widgetId}`);
  await p.locator('[data-lore="launcher"]').click();
  await p.locator('[data-lore="panel"]').waitFor({ state: "visible" });
}

async function ask(p: Page, question: string): Promise<void> {
  await p.locator('[data-lore="input"]').fill(question);
  await p.keyboard.press("Enter");
}

describe("widget states", () => {
  it("says the assistant is still learning while its source has never been ready (503)", async () => {
    await openWidget(page, learningWidget);
    // The config already says "processing", so the visitor is told before asking.
    await page.locator('[data-lore="processing-info"]').waitFor();
    await ask(page, "Where is the handbook?");
    const notice = page.locator('[data-lore="notice"][data-kind="processing"]');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/still learning/i);
    expect(await notice.getAttribute("role")).toBe("alert");
  });

  it("shows no launcher for a refused origin or an unknown widget, and warns the site owner", async () => {
    const { page: other } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    try {
      for (const widgetId of [refusedWidget, "wgt_doesnotexist123"]) {
        const warned = other.waitForEvent(
          "console",
          (m) => m.type() === "warning" && m.text().includes("Lore"),
        );
        await other.goto(`${server.url}/?widget=${widgetId}`);
        const warning = await warned;
        expect(warning.text()).toMatch(/not_found|origin_not_allowed|Object/);
        await other.locator("lore-widget").waitFor({ state: "attached" });
        expect(await other.locator('[data-lore="launcher"]').isVisible()).toBe(false);
        expect(await other.locator('[data-lore="panel"]').count()).toBe(0);
      }
    } finally {
      await other.close();
    }
  });

  it("page views never spend the visitor's question quota", async () => {
    // More page views than the anonymous limit, each reading the widget's config.
    for (let i = 0; i < ANON_LIMIT + 2; i++) {
      await page.goto(`${server.url}/?widget=${readyWidget}`);
      await page.locator('[data-lore="launcher"]').waitFor({ state: "visible" });
    }
    await openWidget(page, readyWidget);
    await ask(page, "How long do I have to return an item?");
    const answer = page.locator('[data-lore="message"][data-role="assistant"]').first();
    await expect.poll(() => answer.getAttribute("data-status"), { timeout: 20_000 }).toBe("complete");
    expect(await page.locator('[data-lore="notice"]').count()).toBe(0);
  });

  it("shows the rate-limit message in minutes once the visitor's limit is spent (429)", async () => {
    await openWidget(page, readyWidget);
    const limited = page.locator('[data-lore="notice"][data-kind="rate_limited"]');
    // The visitor's questions after the first are charged to its visitor token: ANON_LIMIT of them.
    for (let i = 1; i <= ANON_LIMIT + 1 && !(await limited.isVisible()); i++) {
      await ask(page, `How long do I have to return an item? (${i})`);
      await page
        .locator(
          '[data-lore="message"][data-role="assistant"]:not([data-status="pending"]):not([data-status="streaming"])',
        )
        .nth(i)
        .or(limited)
        .first()
        .waitFor();
    }
    await limited.waitFor();
    expect(await limited.textContent()).toMatch(/too quickly/i);
    // An hourly window: the wait reads in minutes, as people say it, not thousands of seconds (in
    // seconds only when the window ends within the minute: a run in the hour's last minute).
    const countdown = (await page.locator('[data-lore="countdown"]').textContent()) ?? "";
    expect(countdown).toMatch(/in about \d+ minutes?\.|in \d{1,2} s\./);
    expect(countdown).not.toMatch(/\d{3,}/);
  });

  it("raised no CSP violation and no script error", () => {
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    // The 503 and 429 answers are what these tests provoke.
    expect(problems.consoleErrors.filter((e) => !/status of (503|429)/.test(e))).toEqual([]);
    expect(problems.consoleErrors.length).toBeGreaterThan(0);
  });
});
