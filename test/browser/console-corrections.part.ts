// Issue #50 item 3 in Chromium against the real server: the Corrections tab lists the recent
// questions a correction catches and misses, adds a missed one to its wordings in one click, and
// marks a correction whose source passage changed as stale, with a way to review it.
import type { Correction, QueryResponse } from "@lore/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { until } from "../helpers/until.ts";
import { createAgent, readyTextSource, waitForSettled } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe, signInToConsole } from "./browser.ts";

let server: TestServer;
let browser: Browser;
let page: Page;
let problems: PageProblems;
let token: string;
let agentId: string;
let sourceId: string;
let correctionId: string;

const WARRANTY = {
  title: "Warranty",
  content: "Every appliance carries a two year warranty against defects.",
};
const SHIPPING = { title: "Shipping", content: "Standard shipping takes three to five business days." };
const QUESTION = "How long is the warranty on appliances?";
const ANOTHER_WORD = "What warranty do appliances come with?";
const MISSED = "For how many years are appliances covered?";

async function ask(message: string): Promise<QueryResponse> {
  const res = await server.request<QueryResponse>("POST", `/agents/${agentId}/query/`, {
    token,
    body: { message, stream: false },
  });
  expect(res.status).toBe(200);
  return res.body;
}
const correction = async () =>
  (await server.request<Correction>("GET", `/agents/${agentId}/corrections/${correctionId}/`, { token }))
    .body;

beforeAll(async () => {
  ({ server, browser, token } = await startServerAndBrowser({ serves: ["console"] }));
  const source = await readyTextSource(server, token, "Shop FAQ", [WARRANTY, SHIPPING]);
  sourceId = source.id;
  agentId = (await createAgent(server, token, { name: "Shop desk", dataSourceIds: [source.id] })).id;
  const answered = await ask(QUESTION);
  expect(answered.sources[0]?.title).toBe("Warranty");
  const made = await server.request<Correction>(
    "POST",
    `/agents/${agentId}/messages/${answered.messageId}/correction/`,
    { token, body: { answer: "Appliances carry a **two year** warranty, parts and labour." } },
  );
  expect(made.status).toBe(201);
  correctionId = made.body.id;
  for (const q of [ANOTHER_WORD, MISSED]) await ask(q);
  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 720 } }));
  await signInToConsole(page, server.url);
  await page.getByRole("heading", { name: "Agents" }).waitFor();
}, 60_000);

afterAll(() => closeAll(browser, server));

describe("the Corrections tab", () => {
  it("shows what a correction catches and misses, and adds a missed question in one click", async () => {
    await page.goto(`${server.url}/console/#/agents/${agentId}/corrections`);
    await page.getByRole("heading", { name: "Corrections" }).waitFor();
    await page.locator(".correction summary", { hasText: "Which questions it answers" }).click();
    const caught = page.locator(".example-yes li");
    const missed = page.locator(".example-no li");
    await caught.first().waitFor();
    expect(await caught.allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining(`“${ANOTHER_WORD}”`)]),
    );
    expect(await missed.allTextContents()).toEqual([expect.stringContaining(`“${MISSED}”`)]);
    // No meaningless percentage any more.
    expect(await page.locator(".examples").textContent()).not.toContain("match 0%");
    expect(await runAxe(page)).toEqual([]);

    await page.getByRole("button", { name: `Also answers this: “${MISSED}”` }).click();
    await page.locator(".also-answers", { hasText: MISSED }).waitFor();
    expect((await correction()).alsoAnswers).toEqual([MISSED]);
    // The list was reloaded: open the examples again and the question is now caught.
    const summary = page.locator(".correction summary", { hasText: "Which questions it answers" });
    if (!(await page.locator(".examples[open]").count())) await summary.click();
    await page.locator(".example-yes li", { hasText: MISSED }).waitFor();
    expect(await page.locator(".example-no li", { hasText: MISSED }).count()).toBe(0);
    expect((await ask(MISSED)).correctionId).toBe(correctionId);
    expect(problems.pageErrors).toEqual([]);
  }, 60_000);

  it("marks a correction stale when its source passage changes, and saving the review clears it", async () => {
    const res = await server.request("PATCH", `/data-sources/${sourceId}/`, {
      token,
      body: {
        config: {
          entries: [{ ...WARRANTY, content: "Every appliance carries a three year warranty." }, SHIPPING],
        },
      },
    });
    expect(res.status).toBe(200);
    await waitForSettled(server, token, sourceId);
    await until(async () => (await correction()).stale, {
      timeout: 20_000,
      what: "the correction to go stale",
    });

    // The tab is open already: a reload shows the list as it is now.
    await page.reload();
    const note = page.locator(".correction .stale-note");
    await note.waitFor();
    expect(await note.textContent()).toContain("Source changed");
    expect(await note.textContent()).toContain("“Warranty” was changed");
    expect(await note.getByRole("link", { name: "Open Sources" }).getAttribute("href")).toBe(
      `#/agents/${agentId}/sources`,
    );
    expect(await runAxe(page)).toEqual([]);

    await note.getByRole("button", { name: `Review the correction for ${QUESTION}` }).click();
    const form = page.getByRole("form", { name: "Edit the correction" });
    await form.waitFor();
    expect(await form.getByLabel("Other ways to ask it").inputValue()).toBe(MISSED);
    await form.getByLabel("Answer", { exact: true }).fill("Appliances carry a **three year** warranty.");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Correction updated.").waitFor();
    expect(await page.locator(".stale-note").count()).toBe(0);
    expect(await correction()).toMatchObject({ stale: false, alsoAnswers: [MISSED] });

    await page.setViewportSize({ width: 375, height: 720 });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
    ).toBe(true);
    expect(problems.pageErrors).toEqual([]);
  }, 60_000);
});
