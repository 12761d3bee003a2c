// The owner console (console/, served at /console/) in real Chromium against the real server: log in,
// create an agent, add a text source and watch it sync, upload a file source, ask with streaming and
// citations, settings validation, keys shown once, analytics, the session over a reload, and how the page is served.
// Keyboard, phone and the review views: console-keyboard.part.ts, console-review.part.ts, owner-loop.part.ts.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { openPage, type PageProblems, runAxe } from "./browser.ts";

let server: TestServer;
let browser: Browser;
let page: Page;
let problems: PageProblems;

beforeAll(async () => {
  ({ server, browser } = await startServerAndBrowser({ serves: ["console"] }));
  ({ page, problems } = await openPage(browser));
});

afterAll(() => closeAll(browser, server));

describe("owner console", () => {
  it("the demo page, without a preview, shows no agent and points to the console", async () => {
    await page.goto(`${server.url}/`);
    const box = page.locator("#widget-status");
    await box.waitFor({ state: "visible" });
    expect(await box.textContent()).toContain("when you open it from the console");
    // Relative, so the page works under a proxy's path prefix too.
    expect(await box.getByRole("link").evaluate((a) => (a as HTMLAnchorElement).href)).toBe(
      `${server.url}/console/`,
    );
    expect(await page.locator("lore-widget").count()).toBe(0);
  });

  it("shows a wrong password next to the login form, then logs in", async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect.poll(() => page.locator("form.login .form-error").textContent()).toMatch(/\S/);

    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Agents" }).waitFor();
    expect(await page.locator(".who").textContent()).toBe(ADMIN_EMAIL);
  });

  it("creates an agent, adds a text source and watches it become ready", async () => {
    await page.getByLabel("Agent name").fill("Handbook bot");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.getByRole("heading", { name: "Handbook bot", level: 1 }).waitFor();
    await page.getByRole("tab", { name: "Sources", selected: true }).waitFor();

    const form = page.locator("form.add-source");
    await form.getByLabel("Name", { exact: true }).fill("Employee handbook");
    await form.getByLabel("Title").fill("Vacation policy");
    await form
      .getByLabel("Content")
      .fill(
        "Every employee receives 27 days of paid vacation per year. Unused vacation days expire on March 31 of the following year.",
      );
    await form.getByRole("button", { name: "Add source" }).click();

    const row = page.locator(".source-row", { hasText: "Employee handbook" });
    await row.locator('.badge[data-status="ready"]').waitFor({ timeout: 20_000 });
    expect(await row.getByRole("checkbox").isChecked()).toBe(true);
    expect(await row.locator(".counts").textContent()).toMatch(/^1 document · 1 chunk\b/);

    // Documents and sync history, with counts.
    await row.getByText("Documents and sync history").click();
    await row.locator("table", { hasText: "Vacation policy" }).waitFor();
    const history = row.locator("table", { hasText: "Sync history" });
    await history.locator("tbody tr").first().waitFor();
    expect(await history.locator("tbody tr").first().textContent()).toMatch(/completed/);

    // The agent is ready once its only source is.
    await expect.poll(() => page.locator(".detail-head .badge").getAttribute("data-status")).toBe("ready");
  });

  it("uploads a file as a source, and the upload kind stays selected for the next one", async () => {
    const form = page.locator("form.add-source");
    await form.getByLabel("Upload files").check();
    await form.getByLabel("Name", { exact: true }).fill("Office guide");
    await form.getByLabel("Files (or drop them here)").setInputFiles({
      name: "office.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("# Office hours\n\nThe office opens at 8am and closes at 6pm on weekdays.\n"),
    });
    await form.getByRole("button", { name: "Add source" }).click();
    const row = page.locator(".source-row", { hasText: "Office guide" });
    await row.locator('.badge[data-status="ready"]').waitFor({ timeout: 20_000 });
    expect(await row.locator(".type").textContent()).toBe("file");
    expect(await form.getByLabel("Upload files").isChecked()).toBe(true);
    expect(await form.getByLabel("Name", { exact: true }).inputValue()).toBe("");
  });

  it("streams an answer in Try it and shows its citations as expandable cards", async () => {
    await page.getByRole("tab", { name: "Try it" }).click();
    await page.getByLabel("Question").fill("How many vacation days do employees get?");
    await page.getByRole("button", { name: "Ask" }).click();
    const answer = page.locator(".turn .answer").last();
    await answer.and(page.locator('[data-state="done"]')).waitFor();
    expect(await answer.textContent()).toContain("27 days");
    const card = page.locator(".turn details.citation").first();
    expect(await card.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    await card.locator("summary").click();
    expect(await card.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
    expect(await card.locator(".snippet").textContent()).toContain("27 days of paid vacation");
    expect(await page.locator(".turn .meta").last().textContent()).toMatch(/\d+ ms/);

    // Search only: ranked chunks with their scores.
    await page.getByLabel("Question").fill("vacation expire");
    await page.getByRole("button", { name: "Search only" }).click();
    const result = page.locator(".search-results .result").first();
    await result.waitFor();
    expect(Number(await result.locator(".score").textContent())).toBeGreaterThan(0);
  });

  it("shows a validation error next to the field that caused it", async () => {
    await page.getByRole("tab", { name: "Settings" }).click();
    const color = page.getByLabel("Primary colour");
    await color.fill("blue");
    await page.getByRole("button", { name: "Save settings" }).click();
    const note = page.locator(".field", { has: color }).locator(".field-error");
    await note.waitFor();
    expect(await note.textContent()).toMatch(/hex colour/);
    expect(await color.getAttribute("aria-invalid")).toBe("true");

    await color.fill("#0f766e");
    await page.getByLabel("Allowed origins").fill("https://docs.example.com");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    expect(await page.locator(".field-error").count()).toBe(0);
    const agents = await server.request<{
      results: Array<{ theme: { primaryColor: string }; allowedOrigins: string[] }>;
    }>("GET", "/agents/", { token: (await server.login()).access });
    expect(agents.body.results[0]?.theme.primaryColor).toBe("#0f766e");
    expect(agents.body.results[0]?.allowedOrigins).toEqual(["https://docs.example.com"]);
  });

  it("offers the embed snippet with the agent's widget id and a preview on the demo page", async () => {
    await page.getByRole("tab", { name: "Embed" }).click();
    const snippet = await page.locator('[data-snippet="embed"]').textContent();
    expect(snippet).toMatch(
      new RegExp(`^<script src="${server.url}/widget.js" data-widget-id="wgt_[\\w-]+" async></script>$`),
    );
    const [preview] = await Promise.all([
      page.context().waitForEvent("page"),
      page.getByRole("button", { name: "Preview on the demo page" }).click(),
    ]);
    try {
      await preview.waitForLoadState();
      expect(preview.url()).toMatch(/\/\?preview=[\w-]+\.[\w-]+$/);
      const widgetId = await preview.evaluate(() => document.body.dataset.widgetId ?? "");
      expect(widgetId).toMatch(/^wgt_/);
      await preview.locator('[data-lore="launcher"]').waitFor();
      // The agent lists only https://docs.example.com: the preview's grant is what admits this page.
      const status = () =>
        preview.evaluate(async (url) => (await fetch(url)).status, `/api/widget/${widgetId}/config/`);
      expect(await status()).toBe(200);
      await preview.goto(`${server.url}/?widget=${widgetId}`);
      expect(await status()).toBe(403);
    } finally {
      await preview.close();
    }
  });

  it("creates an API key, shows it once, and revokes it", async () => {
    await page.getByRole("tab", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("CI key");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = page.locator('[data-secret="api-key"]');
    await secret.waitFor();
    const key = (await secret.textContent()) ?? "";
    expect(key).toMatch(/^lore_sk_/);
    await page.locator("table", { hasText: "CI key" }).waitFor();

    // The key works against the API for its agent.
    const listed = await server.request("GET", "/agents/", { headers: { Authorization: `Bearer ${key}` } });
    expect(listed.status).toBe(200);

    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await page.locator('[data-secret="api-key"]').count()).toBe(0);
    // Back on the tab later, only the prefix is shown, never the key.
    await page.getByRole("tab", { name: "Embed" }).click();
    await page.getByRole("tab", { name: "API keys" }).click();
    await page.locator("table", { hasText: "CI key" }).waitFor();
    expect(await page.content()).not.toContain(key);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke CI key" }).click();
    await page.getByText("Key “CI key” revoked.").waitFor();
    const refused = await server.request("GET", "/agents/", { headers: { Authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(401);
  });

  it("has no accessibility violations (axe-core) with an answer and its citation open", async () => {
    await page.getByRole("tab", { name: "Try it" }).click();
    await page.getByLabel("Question").fill("When do vacation days expire?");
    await page.getByRole("button", { name: "Ask" }).click();
    await page.locator('.turn .answer[data-state="done"]').waitFor();
    await page.locator(".turn details.citation summary").first().click();
    const violations = await runAxe(page);
    expect(violations).toEqual([]);
  });

  it("shows the agent's analytics: totals and a daily chart drawn as SVG", async () => {
    await page.getByRole("tab", { name: "Analytics" }).click();
    await page.getByRole("heading", { name: "Analytics" }).waitFor();
    expect(await page.locator('.stat[data-stat="queries"] dd:not(.stat-def)').textContent()).toMatch(/^\d+$/);
    // One bar per day of the default 30-day range.
    expect(await page.locator("svg.chart rect.bar").count()).toBe(30);
    expect(await page.locator("svg.chart").getAttribute("aria-label")).toMatch(/per day/);
    await page.locator("table", { hasText: "Recent conversations" }).waitFor();
  });

  it("keeps the session over a reload from the HttpOnly cookie, with no token in web storage", async () => {
    await page.reload();
    await page.getByRole("heading", { name: "Handbook bot", level: 1 }).waitFor();
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(stored).not.toMatch(/eyJ/);
    expect(await page.evaluate(() => document.cookie)).not.toContain("lore_session");
  });

  it("logs out and shows the login form", async () => {
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in to Lore" }).waitFor();
    // The form shows as the other tabs are told, before the logout request clears the cookie.
    await expect
      .poll(async () => (await page.context().cookies()).map((c) => c.name))
      .not.toContain("lore_session");
    await page.reload();
    await page.getByRole("heading", { name: "Log in to Lore" }).waitFor();
  });

  it("is served as one page under the strict CSP, with hashed assets cached for good", async () => {
    const res = await fetch(`${server.url}/console/`);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self' 'nonce-");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await res.text();
    expect(html).toContain(`data-api-prefix="/api"`);
    // Relative to the page (./assets/…), so the console works under a proxy's path prefix too.
    const assets = [...html.matchAll(/(?:src|href)="\.\/(assets\/[\w.-]+)"/g)].map((m) => `/console/${m[1]}`);
    expect(assets.map((a) => a?.split(".").pop()).sort()).toEqual(["css", "js"]);
    for (const asset of assets) {
      const file = await fetch(`${server.url}${asset}`, { headers: { "Accept-Encoding": "br" } });
      expect(file.status).toBe(200);
      expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
    // Compressed siblings are encodings, never files of their own.
    expect((await fetch(`${server.url}${assets[0]}.br`)).status).toBe(404);
  });

  it("ran under the strict CSP without violations or script errors", () => {
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    // The wrong password, the expired token and the bad colour are expected 401s/400; nothing else failed.
    expect(problems.consoleErrors.filter((e) => !/status of 40[01]/.test(e))).toEqual([]);
  });
});
