// Issue #29's three outcomes as a visitor sees them in the widget, in real Chromium against the real
// server and its default (extractive) answerer, on the small shop knowledge base of the API test: an
// answer with its source cards; a doubt that says so, gives the closest passage and lists the
// articles that may help instead of source cards; the fallback with no sources. The agent's way out
// (a link) is offered under the doubt and the fallback, never under the confident answer.
import type { Agent } from "@lore/shared";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTRIES } from "../answers/outcomes-kb.ts";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe } from "./browser.ts";

const HELP_URL = "https://help.shop.example/contact";

let server: TestServer;
let browser: Browser;
let token = "";
let page: Page;
let problems: PageProblems;
let agent: Agent;

beforeAll(async () => {
  ({ server, browser, token } = await startServerAndBrowser({ serves: ["widget"] }));
  const source = await readyTextSource(server, token, "Shop", ENTRIES);
  agent = await createAgent(server, token, {
    name: "Shop",
    dataSourceIds: [source.id],
    allowedOrigins: [server.url],
    handoff: { mode: "link", url: HELP_URL },
  });
  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } }));
  await page.goto(`${server.url}/?widget=${agent.widgetId}`);
  await page.locator('[data-lore="launcher"]').click();
  await page.locator('[data-lore="panel"]').waitFor({ state: "visible" });
}, 60_000);

afterAll(() => closeAll(browser, server));

/** Asks in the composer and returns the completed answer's list item. */
async function ask(question: string): Promise<Locator> {
  const before = await page.locator('[data-lore="message"][data-role="assistant"]').count();
  await page.locator('[data-lore="input"]').fill(question);
  await page.keyboard.press("Enter");
  const answer = page.locator('[data-lore="message"][data-role="assistant"]').nth(before);
  await expect.poll(() => answer.getAttribute("data-status"), { timeout: 20_000 }).toBe("complete");
  return answer;
}

describe("the widget shows how sure the answer is", () => {
  it("shows a confident answer with its source cards and no way out", async () => {
    const answer = await ask("How long do refunds take?");
    expect(await answer.locator(".bubble").textContent()).toContain("Refunds are issued within 14 days");
    expect(await answer.locator('[data-lore="source-toggle"]').first().textContent()).toContain("Refunds");
    expect(await answer.locator('[data-lore="uncertain"]').count()).toBe(0);
    expect(await answer.locator('[data-lore="way-out"]').count()).toBe(0);
  });

  it("says it is not sure, quotes the closest passage, lists the articles and offers the way out", async () => {
    const answer = await ask("Do you ship to Canada?");
    expect(await answer.locator(".bubble").textContent()).toContain(
      "Standard shipping takes 5 to 7 business days",
    );
    const doubt = answer.locator('[data-lore="uncertain"]');
    await doubt.waitFor();
    expect(await doubt.locator(".uncertain-note").textContent()).toBe("Not sure — these articles may help:");
    const articles = await doubt.locator("li").allTextContents();
    expect(articles[0]).toBe("Shipping");
    expect(articles.length).toBeLessThanOrEqual(3);
    expect(new Set(articles).size).toBe(articles.length);
    // The articles replace the source cards: an unsure answer does not look like a cited one, and
    // its [1] is plain text, not a button that would open a card that isn't there.
    expect(await answer.locator('[data-lore="sources"]').count()).toBe(0);
    expect(await answer.locator(".bubble").textContent()).toContain("[1]");
    expect(await answer.locator('[data-lore="cite"]').count()).toBe(0);
    const contact = answer.locator('[data-lore="way-out"] a[data-lore="contact"]');
    expect(await contact.getAttribute("href")).toBe(HELP_URL);
    expect(await contact.textContent()).toBe("Contact us");
  });

  it("falls back with the agent's message, no sources, and the way out", async () => {
    const answer = await ask("Do you have a store in Paris?");
    expect((await answer.locator(".bubble").textContent())?.trim()).toBe(agent.fallbackMessage);
    expect(await answer.locator('[data-lore="sources"]').count()).toBe(0);
    expect(await answer.locator('[data-lore="uncertain"]').count()).toBe(0);
    expect(await answer.locator('[data-lore="way-out"] a[data-lore="contact"]').getAttribute("href")).toBe(
      HELP_URL,
    );
  });

  it("has no accessibility violations with all three on screen, and no script error", async () => {
    expect(await runAxe(page)).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
  });
});
