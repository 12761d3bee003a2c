// A reload while an answer streams: the server finishes and stores it, and the reloaded widget
// shows it, instead of an empty "Stopped" bubble. Real Chromium against the real server.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems } from "./browser.ts";

const ANSWER =
  "Items can be returned within thirty days of delivery. They must be unused and in their original box, and the refund reaches your account within ten days [1].";

let fake: FakeOpenAI;
let server: TestServer;
let browser: Browser;
let token = "";
let page: Page;
let problems: PageProblems;
let widgetId = "";

beforeAll(async () => {
  fake = await startFakeOpenAI({ answer: ANSWER, tokenDelayMs: 120 });
  ({ server, browser, token } = await startServerAndBrowser({
    serves: ["widget"],
    env: { LORE_OPENAI_BASE_URL: fake.url },
  }));
  const source = await readyTextSource(server, token, "FAQ", [
    { title: "Returns", content: "Returns are accepted within 30 days." },
  ]);
  ({ widgetId } = await createAgent(server, token, {
    name: "Shop",
    model: "openai:fake-chat",
    dataSourceIds: [source.id],
    allowedOrigins: [server.url],
  }));
  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } }));
}, 60_000);

afterAll(() => closeAll(browser, server, fake));

async function openWidget(): Promise<void> {
  await page.goto(`${server.url}/?widget=${widgetId}`);
  await page.locator('[data-lore="launcher"]').click();
  await page.locator('[data-lore="panel"]').waitFor({ state: "visible" });
}

describe("reloading the page mid-answer", () => {
  it("shows the finished answer once it is stored, not a Stopped bubble", async () => {
    await openWidget();
    await page.locator('[data-lore="input"]').fill("How do returns work?");
    await page.keyboard.press("Enter");
    const answer = page.locator('[data-lore="message"][data-role="assistant"]').first();
    await expect.poll(() => answer.getAttribute("data-status"), { timeout: 20_000 }).toBe("streaming");
    await page.reload();
    await page.locator('[data-lore="launcher"]').click();
    await page.locator('[data-lore="panel"]').waitFor({ state: "visible" });
    const reloaded = page.locator('[data-lore="message"][data-role="assistant"]').first();
    await expect.poll(() => reloaded.getAttribute("data-status"), { timeout: 30_000 }).toBe("complete");
    const text = (await reloaded.textContent()) ?? "";
    expect(text).toContain("within ten days");
    expect(text).not.toMatch(/Stopped/);
    expect(await page.locator('[data-lore="message"][data-role="assistant"]').count()).toBe(1);
  });

  it("raised no CSP violation and no script error", () => {
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
  });
});
