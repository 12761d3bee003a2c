// Host-page isolation in real Chromium: a page on another origin with aggressive global CSS
// (Bootstrap-like and Tailwind-preflight-like) and a strict CSP embeds the widget. The widget must
// look exactly as on a plain page, and the page must look exactly as it did without the widget.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import { repoRoot, type TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { type HostSite, openPage, type PageProblems, startHostSite, waitUntil } from "./browser.ts";

const NONCE = "aG9zdC1ub25jZQ";
const CSS_DIR = join(repoRoot, "test/fixtures/host-css");

let server: TestServer;
let host: HostSite;
let browser: Browser;
let token = "";
let page: Page;
let problems: PageProblems;
let widgetId = "";
/** Whether the Lore server lets other origins load its widget files (module chunks need CORS). */
let crossOriginFiles = false;
const CORS_SKIP =
  "the Lore server sends no Access-Control-Allow-Origin on /widget.js and /assets/* (see the CORS test)";

function hostPage(options: { css: boolean; widget: boolean; title: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>${options.title}</title>
${options.css ? '<link rel="stylesheet" href="/bootstrap-like.css">\n<link rel="stylesheet" href="/tailwind-preflight-like.css">' : ""}
</head>
<body>
<main>
<h1 id="host-h1">Our product</h1>
<div id="host-div">A host div with <a id="host-a" href="#x">a link</a></div>
<p id="host-p">A paragraph of host text.</p>
<ul id="host-ul"><li>One</li><li>Two</li></ul>
<button id="host-button" type="button">Host button</button>
<textarea id="host-textarea" aria-label="Host notes"></textarea>
</main>
${options.widget ? `<script src="${server.url}/widget.js" data-widget-id="${widgetId}" nonce="${NONCE}" async></script>` : ""}
</body>
</html>`;
}

beforeAll(async () => {
  [{ server, browser, token }, host] = await Promise.all([
    startServerAndBrowser({ serves: ["widget"] }),
    startHostSite(),
  ]);
  const source = await readyTextSource(server, token, "Notes", [
    { title: "Shipping", content: "Orders ship within two business days." },
  ]);
  ({ widgetId } = await createAgent(server, token, {
    name: "Shop",
    dataSourceIds: [source.id],
    suggestedQuestions: ["Do you ship abroad?"],
    allowedOrigins: [host.origin],
    theme: { primaryColor: "#0f766e", colorScheme: "light" },
  }));
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${NONCE}' ${server.url}`,
    "style-src 'self'",
    `connect-src ${server.url}`,
    "img-src 'self' data:",
    "base-uri 'none'",
  ].join("; ");
  const headers = { "Content-Security-Policy": csp };
  for (const file of ["bootstrap-like.css", "tailwind-preflight-like.css"]) {
    host.set(`/${file}`, { body: readFileSync(join(CSS_DIR, file), "utf8"), type: "text/css" });
  }
  host.set("/plain.html", { body: hostPage({ css: false, widget: true, title: "Plain host" }), headers });
  host.set("/styled.html", { body: hostPage({ css: true, widget: true, title: "Styled host" }), headers });
  host.set("/styled-bare.html", {
    body: hostPage({ css: true, widget: false, title: "Styled host" }),
    headers,
  });
  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } }));
  crossOriginFiles = (await panelChunkCors()) === "*";
});

/** The `Access-Control-Allow-Origin` the server sends with the panel chunk to another origin. */
async function panelChunkCors(): Promise<string | null> {
  const manifest = JSON.parse(readFileSync(join(repoRoot, "widget/dist/manifest.json"), "utf8"));
  const res = await fetch(`${server.url}/${manifest.panel.file}`, { headers: { Origin: host.origin } });
  await res.arrayBuffer();
  return res.ok ? res.headers.get("access-control-allow-origin") : `HTTP ${res.status}`;
}

afterAll(() => closeAll(browser, host, server));

const WIDGET_PROPS = [
  "width",
  "height",
  "background-color",
  "color",
  "font-size",
  "font-family",
  "font-weight",
  "line-height",
  "letter-spacing",
  "text-transform",
  "margin-top",
  "padding-top",
  "padding-left",
  "border-top-width",
  "border-top-left-radius",
  "box-sizing",
  "outline-style",
];

/** Computed styles of the widget's parts (launcher, panel, header, welcome, input, send). */
function widgetStyles(p: Page): Promise<Record<string, Record<string, string>>> {
  return p.evaluate((props) => {
    const root = document.querySelector("lore-widget")?.shadowRoot;
    const parts: Record<string, string> = {
      launcher: '[data-lore="launcher"]',
      launcherIcon: '[data-lore="launcher"] svg',
      panel: '[data-lore="panel"]',
      title: '[data-lore="panel"] h2',
      welcome: '[data-lore="welcome"] .bubble',
      welcomeText: '[data-lore="welcome"] p',
      suggestion: '[data-lore="suggestion"]',
      input: '[data-lore="input"]',
      send: '[data-lore="send"]',
      close: '[data-lore="close"]',
    };
    const out: Record<string, Record<string, string>> = {};
    for (const [name, selector] of Object.entries(parts)) {
      const el = root?.querySelector(selector);
      if (!el) {
        out[name] = { missing: selector };
        continue;
      }
      const style = getComputedStyle(el);
      const rect = el.getBoundingClientRect();
      out[name] = Object.fromEntries([
        ...props.map((prop) => [prop, style.getPropertyValue(prop)]),
        ["rect", `${Math.round(rect.width)}x${Math.round(rect.height)}`],
      ]);
    }
    return out;
  }, WIDGET_PROPS);
}

/** Computed styles and boxes of the host's own elements. */
function hostStyles(p: Page): Promise<Record<string, Record<string, string>>> {
  return p.evaluate(() => {
    const out: Record<string, Record<string, string>> = {};
    for (const el of [
      document.documentElement,
      document.body,
      ...document.querySelectorAll("main, main *"),
    ]) {
      const style = getComputedStyle(el);
      const rect = el.getBoundingClientRect();
      out[el.id || el.tagName] = {
        font: style.font,
        color: style.color,
        background: style.backgroundColor,
        margin: style.margin,
        padding: style.padding,
        box: `${rect.x},${rect.y},${rect.width},${rect.height}`,
        overflow: style.overflow,
      };
    }
    return out;
  });
}

async function openWidget(p: Page): Promise<void> {
  await p.locator('[data-lore="launcher"]').click();
  await p.locator('[data-lore="panel"]').waitFor({ state: "visible" });
  await p.locator('[data-lore="welcome"]').waitFor();
  // The agent's colour has reached the launcher (its config has loaded).
  await waitUntil(
    () =>
      p
        .locator('[data-lore="launcher"]')
        .evaluate((el) => getComputedStyle(el).backgroundColor === "rgb(15, 118, 110)"),
    "the agent's theme",
    10_000,
  );
}

describe("widget isolation on a host page with aggressive CSS and a strict CSP", () => {
  let plain: Record<string, Record<string, string>>;

  it("serves widget.js and its panel chunk to other origins (CORS)", async () => {
    // The loader imports the panel as an ES module chunk, which browsers fetch in CORS mode.
    expect(await panelChunkCors()).toBe("*");
    const loader = await fetch(`${server.url}/widget.js`, { headers: { Origin: host.origin } });
    await loader.arrayBuffer();
    expect(loader.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("renders the widget on a plain host page (the reference)", async (ctx) => {
    if (!crossOriginFiles) ctx.skip(CORS_SKIP);
    await page.goto(`${host.origin}/plain.html`);
    await openWidget(page);
    plain = await widgetStyles(page);
    expect(plain.launcher?.rect).toBe("56x56");
    expect(plain.launcher?.["background-color"]).toBe("rgb(15, 118, 110)");
    expect(Object.values(plain).filter((s) => "missing" in s)).toEqual([]);
  });

  it("looks exactly the same under Bootstrap-like and Tailwind-preflight-like global CSS", async (ctx) => {
    if (!crossOriginFiles) ctx.skip(CORS_SKIP);
    await page.goto(`${host.origin}/styled.html`);
    // The host CSS is really in force on the host's own elements.
    expect(await page.locator("#host-div").evaluate((el) => getComputedStyle(el).fontSize)).toBe("30px");
    await openWidget(page);
    const styled = await widgetStyles(page);
    expect(styled).toEqual(plain);
  });

  it("leaves the host page's own elements unchanged", async (ctx) => {
    if (!crossOriginFiles) ctx.skip(CORS_SKIP);
    await page.goto(`${host.origin}/styled-bare.html`);
    const before = await hostStyles(page);
    await page.goto(`${host.origin}/styled.html`);
    await openWidget(page);
    const after = await hostStyles(page);
    expect(after).toEqual(before);
    // Nothing added to the document's own styles: the widget's CSS lives in its shadow root.
    const documentStyles = await page.evaluate(() => ({
      styleElements: document.querySelectorAll("style").length,
      adopted: document.adoptedStyleSheets.length,
      sheets: document.styleSheets.length,
    }));
    expect(documentStyles).toEqual({ styleElements: 0, adopted: 0, sheets: 2 });
  });

  it("answers on the host page across origins", async (ctx) => {
    if (!crossOriginFiles) ctx.skip(CORS_SKIP);
    await page.locator('[data-lore="input"]').fill("How fast do orders ship?");
    await page.keyboard.press("Enter");
    const answer = page.locator('[data-lore="message"][data-role="assistant"][data-status="complete"]');
    await answer.waitFor({ timeout: 15_000 });
    expect(await answer.textContent()).toContain("two business days");
  });

  it("raised no CSP violation and no script error under the host's strict policy", (ctx) => {
    if (!crossOriginFiles) ctx.skip(CORS_SKIP);
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });
});
