// Widget details a site owner notices on their own pages, in Chromium on another origin: the
// launcher and panel stay in the viewport when the page transforms <body>; the header names the
// assistant when the server can't be reached; a citation marker scrolls its card into view; the
// owner's launcher label and greeting.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import { repoRoot, type TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { type HostSite, openPage, runAxe, startHostSite, waitUntil } from "./browser.ts";

let server: TestServer;
let host: HostSite;
let browser: Browser;
let token = "";
let plainWidget = "";
let greetingWidget = "";

const CSS_DIR = join(repoRoot, "test/fixtures/host-css");
const LONG_WELCOME = Array.from(
  { length: 8 },
  (_, i) => `Paragraph ${i + 1} of a long welcome: we answer questions about orders, shipping and returns.`,
).join("\n\n");

function hostPage(widgetId: string, extra = "", lang = "en"): string {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Host</title>${extra}</head>
<body><main><h1>Our shop</h1><p>Host content.</p></main>
<script src="${server.url}/widget.js" data-widget-id="${widgetId}" async></script>
</body></html>`;
}

beforeAll(async () => {
  [{ server, browser, token }, host] = await Promise.all([
    startServerAndBrowser({ serves: ["widget"] }),
    startHostSite(),
  ]);
  const source = await server.request<{ id: string }>("POST", "/data-sources/", {
    token,
    body: {
      name: "Shop FAQ",
      type: "text",
      config: {
        entries: [
          {
            title: "Shipping",
            content:
              "Orders ship within two business days. Shipping to Portugal takes three days. Shipping to Canada takes nine days.",
          },
          {
            title: "Returns",
            content:
              "Returns are accepted within 30 days. Returned orders are refunded within five business days.",
          },
        ],
      },
    },
  });
  const agent = async (name: string, theme: Record<string, unknown>) =>
    (
      await server.request<{ widgetId: string }>("POST", "/agents/", {
        token,
        body: {
          name,
          dataSourceIds: [source.body.id],
          allowedOrigins: [host.origin],
          welcomeMessage: LONG_WELCOME,
          theme: { colorScheme: "light", ...theme },
        },
      })
    ).body.widgetId;
  plainWidget = await agent("Shop helper", { title: "" });
  greetingWidget = await agent("Greeter", {
    launcherLabel: "Ask us",
    greeting: "Questions about shipping? Ask me.",
  });
  await waitUntil(
    async () =>
      (await server.request<{ status: string }>("GET", `/data-sources/${source.body.id}/`, { token })).body
        .status === "ready",
    "the source to be ready",
  );
  for (const file of ["bootstrap-like.css", "tailwind-preflight-like.css"]) {
    host.set(`/${file}`, { body: readFileSync(join(CSS_DIR, file), "utf8"), type: "text/css" });
  }
  host.set("/plain.html", { body: hostPage(plainWidget) });
  host.set("/greeting.html", { body: hostPage(greetingWidget) });
  host.set("/german.html", { body: hostPage(plainWidget, "", "de") });
  host.set("/transformed.html", {
    body: hostPage(
      plainWidget,
      `<link rel="stylesheet" href="/bootstrap-like.css"><link rel="stylesheet" href="/tailwind-preflight-like.css">
<style>body { transform: translateX(0) scale(1); min-height: 3000px; } main { height: 2800px; }</style>`,
    ),
  });
});

afterAll(() => closeAll(browser, host, server));

const widget = (page: Page) => page.locator("lore-widget");
const rectOf = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const el = document.querySelector("lore-widget")?.shadowRoot?.querySelector(sel);
    const r = el?.getBoundingClientRect();
    return r ? { top: r.top, bottom: r.bottom, left: r.left, right: r.right } : null;
  }, selector);

describe("a host page that transforms <body>", () => {
  it("keeps the launcher and the panel in the viewport, scrolled or not", async () => {
    const { page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    await page.goto(`${host.origin}/transformed.html`);
    const launcher = widget(page).locator('[data-lore="launcher"]');
    await launcher.waitFor();
    for (const scroll of [0, 1500]) {
      await page.evaluate((y) => window.scrollTo(0, y), scroll);
      const box = await rectOf(page, '[data-lore="launcher"]');
      // 20 px from the bottom right corner of the viewport, as on a plain page.
      expect(box && Math.round(800 - box.bottom)).toBe(20);
      expect(box && Math.round(1280 - box.right)).toBe(20);
    }
    await launcher.click();
    await widget(page).locator('[data-lore="input"]').waitFor();
    const panel = await rectOf(page, '[data-lore="panel"]');
    expect(panel && panel.top >= 0 && panel.bottom <= 800 && panel.right <= 1280).toBe(true);
    expect(problems.pageErrors).toEqual([]);
    await page.context().close();
  });
});

describe("a server that can't be reached", () => {
  it("still names the assistant in the header: the last name it gave, else 'Assistant'", async () => {
    const { page } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    const configs = "**/api/widget/*/config/";
    // A first visit while the API is unreachable: nothing known yet, but never a blank bar.
    await page.route(configs, (route) => route.abort("connectionrefused"));
    await page.goto(`${host.origin}/plain.html`);
    await widget(page).locator('[data-lore="launcher"]').click();
    const title = widget(page).locator('[data-lore="panel"] h2');
    await expect.poll(() => title.textContent()).toBe("Assistant");
    await widget(page).locator('[data-lore="notice"][data-kind="unreachable"]').waitFor();

    // A visit that reaches the server, then one that doesn't: the agent's name stays.
    await page.unroute(configs);
    await page.reload();
    await widget(page).locator('[data-lore="launcher"]').click();
    await expect.poll(() => title.textContent()).toBe("Shop helper");
    await page.route(configs, (route) => route.abort("connectionrefused"));
    await page.reload();
    await widget(page).locator('[data-lore="launcher"]').click();
    await widget(page).locator('[data-lore="notice"][data-kind="unreachable"]').waitFor();
    expect(await title.textContent()).toBe("Shop helper");
    await page.context().close();
  });
});

describe("the panel's languages", () => {
  it("English pages don't load the other languages; a German page gets its strings", async () => {
    const { page } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    const chunks: string[] = [];
    page.on("request", (request) => chunks.push(new URL(request.url()).pathname));
    await page.goto(`${host.origin}/plain.html`);
    await widget(page).locator('[data-lore="launcher"]').click();
    await expect
      .poll(() => widget(page).locator('[data-lore="input"]').getAttribute("placeholder"))
      .toBe("Ask a question…");
    expect(chunks.filter((path) => path.includes("/assets/i18n-"))).toEqual([]);

    await page.goto(`${host.origin}/german.html`);
    await widget(page).locator('[data-lore="launcher"]').click();
    await expect
      .poll(() => widget(page).locator('[data-lore="input"]').getAttribute("placeholder"))
      .toBe("Stellen Sie eine Frage…");
    expect(chunks.filter((path) => path.includes("/assets/i18n-"))).toHaveLength(1);
    await page.context().close();
  });
});

describe("citation markers", () => {
  it("scroll the opened card into view inside the panel", async () => {
    const { page } = await openPage(browser, { viewport: { width: 1280, height: 560 } });
    await page.goto(`${host.origin}/plain.html`);
    await widget(page).locator('[data-lore="launcher"]').click();
    const input = widget(page).locator('[data-lore="input"]');
    await input.fill("How long does shipping to Canada take?");
    await input.press("Enter");
    const answer = widget(page).locator(
      '[data-lore="message"][data-role="assistant"][data-status="complete"]',
    );
    await answer.waitFor({ timeout: 20_000 });
    const marker = answer.locator('[data-lore="cite"]').first();
    const rank = await marker.getAttribute("data-rank");
    // The visitor scrolls up to read the answer from its start, then clicks its marker.
    await page.evaluate(() => {
      const body = document.querySelector("lore-widget")?.shadowRoot?.querySelector(".body");
      const text = body?.querySelector('[data-lore="message"][data-role="assistant"] .bubble');
      if (body && text) body.scrollTop = (text as HTMLElement).offsetTop - 8;
    });
    await marker.click();
    const inView = () =>
      page.evaluate((n) => {
        const root = document.querySelector("lore-widget")?.shadowRoot;
        const body = root?.querySelector(".body")?.getBoundingClientRect();
        const card = root
          ?.querySelector(
            `[data-lore="message"][data-role="assistant"] [data-lore="source"][data-rank="${n}"]`,
          )
          ?.querySelector('[data-lore="source-body"]')
          ?.getBoundingClientRect();
        return (
          !!body && !!card && card.height > 0 && card.top >= body.top - 1 && card.bottom <= body.bottom + 1
        );
      }, rank);
    await expect.poll(inView).toBe(true);
    await page.context().close();
  });
});

describe("launcher label and greeting", () => {
  it("shows the label on the launcher and makes it the button's name", async () => {
    const { page } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    await page.goto(`${host.origin}/greeting.html`);
    const launcher = widget(page).locator('[data-lore="launcher"]');
    await expect.poll(() => launcher.textContent()).toBe("Ask us");
    expect(await launcher.getAttribute("aria-label")).toBe("Ask us");
    const box = await rectOf(page, '[data-lore="launcher"]');
    expect(box && box.right - box.left).toBeGreaterThan(80);
    await page.context().close();
  });

  it("greets once per visit: a click opens the chat, × dismisses it; axe finds nothing", async () => {
    const { page } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    await page.goto(`${host.origin}/greeting.html`);
    const greeting = widget(page).locator('[data-lore="greeting"]');
    await greeting.waitFor();
    expect(await greeting.textContent()).toContain("Questions about shipping? Ask me.");
    expect(await runAxe(page)).toEqual([]);
    const box = await rectOf(page, '[data-lore="greeting"]');
    expect(box && box.bottom <= 800 && box.right <= 1280).toBe(true);

    await greeting.getByRole("button", { name: "Questions about shipping? Ask me." }).click();
    await widget(page).locator('[data-lore="panel"]').waitFor();
    expect(await greeting.count()).toBe(0);
    await page.reload();
    await widget(page).locator('[data-lore="launcher"]').waitFor();
    await page.waitForTimeout(1000);
    expect(await greeting.count()).toBe(0);

    // Another visit (a new browser session): by keyboard, then dismissed.
    const second = await openPage(browser, { viewport: { width: 375, height: 700 } });
    await second.page.goto(`${host.origin}/greeting.html`);
    const again = widget(second.page).locator('[data-lore="greeting"]');
    await again.waitFor();
    const close = again.getByRole("button", { name: "Close" });
    // Tab until the focus, inside the widget's shadow root, is on the greeting's ×.
    for (let i = 0; i < 20; i++) {
      if (await close.evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el)) break;
      await second.page.keyboard.press("Tab");
    }
    expect(await close.evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el)).toBe(true);
    await second.page.keyboard.press("Enter");
    await again.waitFor({ state: "detached" });
    expect(await widget(second.page).locator('[data-lore="panel"]:visible').count()).toBe(0);
    expect(await second.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(
      0,
    );
    await second.page.context().close();
    await page.context().close();
  });
});
