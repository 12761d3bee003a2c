// The owner console driven by keyboard alone (Tab, arrows, Enter, Space), audited with axe-core on
// each view, and on a phone-sized viewport: the tab strip scrolls instead of the page, the active tab
// stays in view.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { openPage, type PageProblems, runAxe, tabTo } from "./browser.ts";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  ({ server, browser } = await startServerAndBrowser({ serves: ["console"] }));
});

afterAll(() => closeAll(browser, server));

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el?.getAttribute("aria-label") ?? el?.textContent?.trim() ?? "";
  });

/** Logs in from the login form by keyboard. */
async function logInByKeyboard(page: Page): Promise<void> {
  await page.goto(`${server.url}/console/`);
  // The email field has focus when the form appears.
  await page.getByLabel("Email").waitFor();
  await page.keyboard.type(ADMIN_EMAIL);
  await page.keyboard.press("Tab");
  await page.keyboard.type(ADMIN_PASSWORD);
  await page.keyboard.press("Enter");
  // The agents list, or on a phone the compact agent picker.
  await page
    .getByRole("heading", { name: "Agents" })
    .or(page.getByRole("navigation", { name: "Agents" }))
    .waitFor();
}

describe("the console by keyboard", () => {
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
  });

  it("logs in with no accessibility violations on the login form", async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByRole("heading", { name: "Log in to Lore" }).waitFor();
    expect(await runAxe(page)).toEqual([]);
    await logInByKeyboard(page);
    expect(await page.locator(".who").textContent()).toBe(ADMIN_EMAIL);
  });

  it("creates an agent, which says it has no sources rather than Ready", async () => {
    await tabTo(page, page.getByLabel("Agent name"));
    await page.keyboard.type("Keyboard bot");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Keyboard bot", level: 1 }).waitFor();
    await page.getByRole("tab", { name: "Sources", selected: true }).waitFor();
    const badge = page.locator(".detail-head .badge");
    expect(await badge.getAttribute("data-status")).toBe("empty");
    expect(await badge.textContent()).toBe("No sources");
    expect(await page.locator(".agent-link", { hasText: "Keyboard bot" }).textContent()).not.toContain(
      "Ready",
    );
    expect(await runAxe(page)).toEqual([]);
  });

  it("adds a text source, and the form keeps a kind selected afterwards", async () => {
    const form = page.locator("form.add-source");
    await tabTo(page, form.getByLabel("Name", { exact: true }));
    await page.keyboard.type("Handbook");
    // Arrow keys move through the kinds; back to Text.
    await tabTo(page, form.getByLabel("Text", { exact: true }));
    await page.keyboard.press("ArrowRight");
    await form.locator('[data-kind="web"]').waitFor();
    await page.keyboard.press("ArrowLeft");
    await form.locator('[data-kind="text"]').waitFor();
    await tabTo(page, form.getByLabel("Title"));
    await page.keyboard.type("Vacation policy");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Every employee receives 27 days of paid vacation per year.");
    await tabTo(page, form.getByRole("button", { name: "Add source" }));
    await page.keyboard.press("Enter");

    const row = page.locator(".source-row", { hasText: "Handbook" });
    await row.locator('.badge[data-status="ready"]').waitFor({ timeout: 20_000 });
    await expect.poll(() => page.locator(".detail-head .badge").getAttribute("data-status")).toBe("ready");
    expect(await form.locator('input[type="radio"]:checked').count()).toBe(1);
    expect(await form.getByLabel("Name", { exact: true }).inputValue()).toBe("");
    // The status follows the sync: "added; syncing now." gives way to what is ready.
    await expect
      .poll(() => page.getByRole("status").first().textContent())
      .toMatch(/“Handbook” is ready: 1 document, 1 chunk\./);
  });

  it("moves between tabs with the arrow keys, Home and End", async () => {
    await tabTo(page, page.getByRole("tab", { name: "Sources" }));
    await page.keyboard.press("ArrowRight");
    await page.getByRole("tab", { name: "Try it", selected: true }).waitFor();
    await expect.poll(() => focused(page)).toBe("Try it");
    await page.keyboard.press("End");
    await page.getByRole("tab", { name: "Analytics", selected: true }).waitFor();
    await page.keyboard.press("Home");
    await page.getByRole("tab", { name: "Settings", selected: true }).waitFor();
    await expect.poll(() => focused(page)).toBe("Settings");
  });

  it("saves settings and shows a field error, by keyboard", async () => {
    await tabTo(page, page.getByLabel("Primary colour"));
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("blue");
    await tabTo(page, page.getByRole("button", { name: "Save settings" }));
    await page.keyboard.press("Enter");
    // The invalid field takes focus, with its message beside it.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("name")))
      .toBe("theme.primaryColor");
    expect(await page.locator(".field-error").textContent()).toMatch(/hex colour/);
    expect(await runAxe(page)).toEqual([]);
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("#0f766e");
    await page.keyboard.press("Enter");
    await page.getByText("Saved.").waitFor();
  });

  it("asks in Try it and opens a citation by keyboard", async () => {
    await tabTo(page, page.getByRole("tab", { name: "Settings" }));
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await page.getByRole("tab", { name: "Try it", selected: true }).waitFor();
    await tabTo(page, page.getByLabel("Question"));
    await page.keyboard.type("How many vacation days do employees get?");
    await page.keyboard.press("Enter");
    await page.locator('.turn .answer[data-state="done"]').waitFor();
    const summary = page.locator(".turn details.citation summary").first();
    await tabTo(page, summary);
    await page.keyboard.press("Enter");
    expect(
      await page
        .locator(".turn details.citation")
        .first()
        .evaluate((el) => (el as HTMLDetailsElement).open),
    ).toBe(true);
    expect(await runAxe(page)).toEqual([]);
  });

  it("creates and dismisses an API key by keyboard", async () => {
    await tabTo(page, page.getByRole("tab", { name: "Try it" }));
    await page.keyboard.press("End");
    await page.keyboard.press("ArrowLeft");
    await page.getByRole("tab", { name: "API keys", selected: true }).waitFor();
    await tabTo(page, page.getByLabel("Key name"));
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("Keyboard key");
    await page.keyboard.press("Enter");
    await page.locator('[data-secret="api-key"]').waitFor();
    // Focus moves to the one-time reveal, so a screen reader announces it.
    await expect.poll(() => page.evaluate(() => document.activeElement?.className)).toBe("key-reveal");
    expect(await runAxe(page)).toEqual([]);
    await tabTo(page, page.getByRole("button", { name: "I have stored it" }));
    await page.keyboard.press("Enter");
    expect(await page.locator('[data-secret="api-key"]').count()).toBe(0);
  });

  it("shows the review queue, corrections and analytics with no accessibility violations", async () => {
    for (const tab of ["Conversations", "Corrections", "Analytics", "Embed", "Sources"]) {
      await page.getByRole("tab", { name: tab }).click();
      await page.getByRole("tab", { name: tab, selected: true }).waitFor();
      await page.waitForLoadState("networkidle");
      expect({ tab, violations: await runAxe(page) }).toEqual({ tab, violations: [] });
    }
  });

  it("ran under the strict CSP without violations or script errors", () => {
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    // The bad colour is an expected 400.
    expect(problems.consoleErrors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  });
});

describe("the console on a phone", () => {
  let page: Page;

  beforeAll(async () => {
    ({ page } = await openPage(browser, {
      viewport: { width: 375, height: 740 },
      isMobile: true,
      hasTouch: true,
    }));
    await logInByKeyboard(page);
  });

  /** The page does not scroll sideways, and the selected tab lies inside the tab strip's visible part. */
  const layout = () =>
    page.evaluate(() => {
      const strip = document.querySelector('[role="tablist"]')?.getBoundingClientRect();
      const tab = document.querySelector('[role="tab"][aria-selected="true"]')?.getBoundingClientRect();
      return {
        pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
        tabVisible: Boolean(strip && tab && tab.left >= strip.left - 1 && tab.right <= strip.right + 1),
      };
    });

  it("keeps the page from scrolling sideways and the active tab in view on every tab", async () => {
    // The compact picker has opened the first agent.
    await page.getByRole("combobox", { name: "Agent" }).waitFor();
    await page.getByRole("tablist").waitFor();
    for (const tab of ["Analytics", "API keys", "Corrections", "Settings", "Conversations", "Embed"]) {
      await page.getByRole("tab", { name: tab }).click();
      await page.getByRole("tab", { name: tab, selected: true }).waitFor();
      await expect.poll(layout).toEqual({ pageOverflow: 0, tabVisible: true });
    }
  });

  it("opens a deep link to the last tab with that tab in view", async () => {
    const hash = await page.evaluate(() => location.hash.replace(/\/\w+$/, "/analytics"));
    await page.goto(`${server.url}/console/${hash}`);
    await page.getByRole("tab", { name: "Analytics", selected: true }).waitFor();
    await expect.poll(layout).toEqual({ pageOverflow: 0, tabVisible: true });
    expect(await runAxe(page)).toEqual([]);
  });
});
