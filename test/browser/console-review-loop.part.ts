// Issue #31 item 4 in Chromium against the real server: a transcript opened from the review queue
// lands on the message that brought it there, and the Corrections tab shows which visitor questions
// a correction would and would not answer.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe, signInToConsole, tabTo } from "./browser.ts";

let server: TestServer;
let browser: Browser;
let page: Page;
let problems: PageProblems;
let token: string;
let agentId: string;
let ratedId: string;
let firstQuestionId: string;

const LONG_TITLE = "How many vacation days do employees get?";

async function ask(
  message: string,
  conversationId?: string,
): Promise<{ messageId: string; conversationId: string }> {
  const res = await server.request<{ messageId: string; conversationId: string }>(
    "POST",
    `/agents/${agentId}/query/`,
    { token, body: { message, stream: false, ...(conversationId ? { conversationId } : {}) } },
  );
  expect(res.status).toBe(200);
  return res.body;
}

beforeAll(async () => {
  ({ server, browser, token } = await startServerAndBrowser({ serves: ["console"] }));
  const source = await readyTextSource(server, token, "Employee handbook", [
    {
      title: "Vacation policy",
      content:
        "Every employee receives 27 days of paid vacation per year. Unused vacation days carry over until March. " +
        "Parental leave is 16 weeks at full pay. Sick days need a doctor's note after three days.",
    },
  ]);
  agentId = (await createAgent(server, token, { name: "Loop desk", dataSourceIds: [source.id] })).id;
  // One conversation of 14 messages (7 questions, 7 answers); the visitor rates the 6th answer down.
  const questions = [
    LONG_TITLE,
    "Do unused vacation days carry over?",
    "How long is parental leave?",
    "Is parental leave paid?",
    "When do I need a doctor's note?",
    "How many sick days need a note?",
    "Until when do vacation days carry over?",
  ];
  const first = await ask(questions[0] as string);
  const conversationId = first.conversationId;
  let answers = [first.messageId];
  for (const q of questions.slice(1)) answers = [...answers, (await ask(q, conversationId)).messageId];
  ratedId = answers[5] as string;
  const rated = await server.request("POST", `/agents/${agentId}/messages/${ratedId}/feedback/`, {
    token,
    body: { rating: "down", comment: "Too vague" },
  });
  expect(rated.status).toBeLessThan(300);
  const transcript = await server.request<{ messages: { id: string }[] }>(
    "GET",
    `/agents/${agentId}/conversations/${conversationId}/`,
    { token },
  );
  expect(transcript.body.messages).toHaveLength(14);
  firstQuestionId = transcript.body.messages[0]?.id as string;

  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 720 } }));
  await signInToConsole(page, server.url);
  await page.getByRole("heading", { name: "Agents" }).waitFor();
});

afterAll(() => closeAll(browser, server));

const inView = (id: string) =>
  page.evaluate((messageId) => {
    const el = document.querySelector(`[data-message-id="${messageId}"]`);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  }, id);

describe("a transcript opened from the review queue", () => {
  it("opens at the answer rated thumbs down, outlined and focused, and a reload keeps it", async () => {
    await page.goto(`${server.url}/console/#/agents/${agentId}/conversations`);
    await page.getByRole("heading", { name: "Review queue" }).waitFor();
    await page.getByLabel("Thumbs down").check();
    await page.locator(".conv-row", { hasText: LONG_TITLE }).getByRole("link").click();
    const rated = page.locator(`[data-message-id="${ratedId}"]`);
    await rated.waitFor();
    await expect.poll(() => inView(ratedId)).toBe(true);
    expect(await inView(firstQuestionId)).toBe(false);
    expect(await rated.getAttribute("class")).toContain("queue-target");
    expect(await rated.locator(".target-label").textContent()).toBe("The answer rated thumbs down");
    // Keyboard and screen-reader users land there too: it has the focus.
    expect(await rated.evaluate((el) => el === document.activeElement)).toBe(true);
    // Only that message is marked.
    expect(await page.locator(".queue-target").count()).toBe(1);
    // The address names the message, so a reload opens at the same place.
    expect(page.url()).toContain(`?at=${ratedId}`);
    await page.reload();
    await rated.waitFor();
    await expect.poll(() => inView(ratedId)).toBe(true);
    expect(await inView(firstQuestionId)).toBe(false);
    expect(await rated.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await runAxe(page)).toEqual([]);
  });

  it("opens at the top, nothing marked, from the unfiltered list", async () => {
    await page.goto(`${server.url}/console/#/agents/${agentId}/conversations`);
    await page.getByLabel("All conversations").check();
    await page.locator(".conv-row", { hasText: LONG_TITLE }).getByRole("link").click();
    await page.locator(`[data-message-id="${ratedId}"]`).waitFor();
    expect(await inView(firstQuestionId)).toBe(true);
    expect(await page.locator(".queue-target").count()).toBe(0);
    expect(problems.pageErrors).toEqual([]);
  });
});

describe("the Corrections tab", () => {
  it("shows, for a correction, recent questions it would and would not answer; keyboard, axe, 375 px", async () => {
    const created = await server.request("POST", `/agents/${agentId}/corrections/`, {
      token,
      body: { question: "How long is parental leave?", answer: "Sixteen weeks, at full pay." },
    });
    expect(created.status).toBe(201);
    await page.goto(`${server.url}/console/#/agents/${agentId}/corrections`);
    await page.getByRole("heading", { name: "Corrections" }).waitFor();
    // The copy promises what matching does, no more.
    const intro = await page.locator("main p.muted", { hasText: "Your own answers" }).textContent();
    expect(intro).toContain("close rewording");
    expect(intro).not.toContain("any words");
    const summary = page.locator(".correction summary", { hasText: "Which questions it answers" });
    await tabTo(page, summary);
    await page.keyboard.press("Enter");
    const yes = page.locator(".example-yes li");
    const no = page.locator(".example-no li");
    await yes.first().waitFor();
    expect(await yes.allTextContents()).toEqual([expect.stringContaining("“How long is parental leave?”")]);
    expect(await no.allTextContents()).toEqual([expect.stringContaining("“Is parental leave paid?”")]);
    expect(await page.locator(".examples").textContent()).toContain("Of the last 7 distinct questions");
    expect(await runAxe(page)).toEqual([]);

    await page.setViewportSize({ width: 375, height: 720 });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
    ).toBe(true);
    expect(await runAxe(page)).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
  });
});
