// The console's views for issue #15 items 1–3 in Chromium against the real server: the review queue
// and its filters, a conversation opened as a thread, corrections added, edited and deleted, "add an
// answer" on analytics' unanswered questions, and suggested questions checked after saving.
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

const ANSWERED = "How many vacation days do employees get?";
const UNANSWERED = "Is there a gym on site?";
/** How analytics lists it: questions are grouped lowercased, without punctuation. */
const UNANSWERED_GROUP = "is there a gym on site";

async function ask(message: string): Promise<string> {
  const res = await server.request<{ messageId: string }>("POST", `/agents/${agentId}/query/`, {
    token,
    body: { message, stream: false },
  });
  expect(res.status).toBe(200);
  return res.body.messageId;
}

async function rate(messageId: string, rating: "up" | "down", comment?: string): Promise<void> {
  const res = await server.request("POST", `/agents/${agentId}/messages/${messageId}/feedback/`, {
    token,
    body: { rating, comment },
  });
  expect(res.status).toBeLessThan(300);
}

beforeAll(async () => {
  ({ server, browser, token } = await startServerAndBrowser({ serves: ["console"] }));
  const source = await readyTextSource(server, token, "Employee handbook", [
    { title: "Vacation policy", content: "Every employee receives 27 days of paid vacation per year." },
  ]);
  const agent = await createAgent(server, token, {
    name: "Review desk",
    dataSourceIds: [source.id],
    suggestedQuestions: [ANSWERED, UNANSWERED],
  });
  agentId = agent.id;
  await rate(await ask(ANSWERED), "up");
  // Without its source the agent can only give the fallback.
  await server.request("PATCH", `/agents/${agentId}/`, { token, body: { dataSourceIds: [] } });
  await rate(await ask(UNANSWERED), "down", "Nothing about the gym");
  await server.request("PATCH", `/agents/${agentId}/`, { token, body: { dataSourceIds: [source.id] } });

  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
  await signInToConsole(page, server.url);
  await page.getByRole("heading", { name: "Agents" }).waitFor();
});

afterAll(() => closeAll(browser, server));

const focused = (p: Page) => p.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
const rowTitles = () => page.locator(".conv-row .conv-title").allTextContents();

describe("the review queue", () => {
  it("filters by thumbs down, thumbs up, unanswered and text", async () => {
    await page.goto(`${server.url}/console/#/agents/${agentId}/conversations`);
    await page.getByRole("heading", { name: "Review queue" }).waitFor();
    await expect.poll(rowTitles).toEqual([UNANSWERED]);
    expect(await page.locator(".conv-row").first().textContent()).toMatch(/1 thumbs down · 1 unanswered/);

    await page.getByLabel("Thumbs up").check();
    await expect.poll(rowTitles).toEqual([ANSWERED]);
    await page.getByLabel("Unanswered").check();
    await expect.poll(rowTitles).toEqual([UNANSWERED]);
    await page.getByLabel("All conversations").check();
    await expect.poll(async () => (await rowTitles()).sort()).toEqual([ANSWERED, UNANSWERED].sort());
    await page.getByLabel("Text in any message").fill("vacation");
    await page.getByLabel("Text in any message").press("Enter");
    await expect.poll(rowTitles).toEqual([ANSWERED]);
    expect(await page.getByRole("status").filter({ hasText: "conversation" }).textContent()).toBe(
      "1 conversation",
    );
    expect(await runAxe(page)).toEqual([]);
  });

  it("opens a conversation as a thread with citations, latency and feedback, and goes back to the queue", async () => {
    await page.locator(".conv-row", { hasText: ANSWERED }).getByRole("link").click();
    const answer = page.locator(".msg-assistant");
    await answer.waitFor();
    expect(await page.locator(".msg-user .question").textContent()).toBe(ANSWERED);
    expect(await answer.locator(".answer").textContent()).toContain("27 days");
    expect(await answer.locator(".flag-up").textContent()).toBe("Thumbs up");
    expect(await answer.locator(".meta").textContent()).toMatch(/\d+ ms/);
    const card = answer.locator("details.citation").first();
    await card.locator("summary").click();
    expect(await card.locator(".snippet").textContent()).toContain("27 days of paid vacation");
    expect(await runAxe(page)).toEqual([]);

    await page.getByRole("link", { name: "← Review queue" }).click();
    // The filter and the search are kept.
    await expect.poll(rowTitles).toEqual([ANSWERED]);
    expect(await page.getByLabel("Text in any message").inputValue()).toBe("vacation");
  });

  it("flags a fallback answer and shows the visitor's comment", async () => {
    await page.getByLabel("Text in any message").fill("");
    await page.getByLabel("Text in any message").press("Enter");
    await page.getByLabel("Unanswered").check();
    await page.locator(".conv-row", { hasText: UNANSWERED }).getByRole("link").click();
    const answer = page.locator(".msg-assistant");
    await answer.locator(".flag-fallback").waitFor();
    expect(await answer.locator(".feedback-comment").textContent()).toContain("Nothing about the gym");
    expect(await answer.getAttribute("data-fallback")).toBe("true");
  });

  it("resolves a conversation out of the open queue and opens it again", async () => {
    await page.getByRole("button", { name: "Resolve conversation" }).click();
    await page.getByRole("button", { name: "Reopen conversation" }).waitFor();
    expect(await page.locator(".conv-status strong").textContent()).toBe("Resolved");
    expect(await runAxe(page)).toEqual([]);
    await page.getByRole("link", { name: "← Review queue" }).click();
    // The queue shows open conversations by default: the resolved one is gone from it.
    await expect.poll(rowTitles).not.toContain(UNANSWERED);
    await page.getByLabel("Status").selectOption("resolved");
    await expect.poll(rowTitles).toEqual([UNANSWERED]);
    await page.locator(".conv-row", { hasText: UNANSWERED }).getByRole("link").click();
    await page.getByRole("button", { name: "Reopen conversation" }).click();
    await page.getByRole("button", { name: "Resolve conversation" }).waitFor();
    await page.getByRole("link", { name: "← Review queue" }).click();
    await expect.poll(rowTitles).toEqual([]);
    await page.getByLabel("Status").selectOption("open");
    await expect.poll(rowTitles).toContain(UNANSWERED);
  });
});

describe("suggested questions", () => {
  it("are checked after saving the settings, with the fallback one flagged", async () => {
    await page.getByRole("tab", { name: "Settings" }).click();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    const checks = page.locator(".suggested-check");
    await expect.poll(() => checks.count(), { timeout: 20_000 }).toBe(2);
    const gym = checks.filter({ hasText: UNANSWERED });
    expect(await gym.getAttribute("data-verdict")).toBe("fallback");
    expect(await gym.locator(".flag").textContent()).toBe("No answer");
    const vacation = checks.filter({ hasText: ANSWERED });
    expect(await vacation.getAttribute("data-verdict")).not.toBe("fallback");
    expect(await vacation.textContent()).toContain("27 days");
    expect(await page.locator("#checks-title ~ .status").textContent()).toMatch(/need attention/);
    expect(await runAxe(page)).toEqual([]);
  });
});

describe("when to answer", () => {
  it("is one plain choice in the settings, saved as the agent's answer policy", async () => {
    const policy = async () =>
      (await server.request<{ answerPolicy: string }>("GET", `/agents/${agentId}/`, { token })).body
        .answerPolicy;
    await page.getByRole("tab", { name: "Settings" }).click();
    const choice = page.getByLabel("When to answer");
    const before = await policy();
    expect(await choice.inputValue()).toBe(before);
    await choice.selectOption({ label: "Always try" });
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(policy).toBe("always");
    await page.getByText("Saved.").waitFor();
    expect(await choice.inputValue()).toBe("always");
    await choice.selectOption(before);
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(policy).toBe(before);
  });
});

describe("corrections", () => {
  const corrections = () =>
    server
      .request<{ results: Array<{ question: string; answer: string }> }>(
        "GET",
        `/agents/${agentId}/corrections/`,
        {
          token,
        },
      )
      .then((res) => res.body.results);

  it("adds an answer to an unanswered question from analytics", async () => {
    await page.getByRole("tab", { name: "Analytics" }).click();
    const item = page.locator(".top-list.unanswered li", { hasText: UNANSWERED_GROUP });
    await item.getByRole("button", { name: `Add an answer to “${UNANSWERED_GROUP}”` }).click();
    const form = item.getByRole("form", { name: "Add an answer" });
    expect(await form.getByLabel("Question").inputValue()).toBe(UNANSWERED_GROUP);
    await form.getByLabel("Answer").fill("Yes: the gym on the ground floor is open 6am to 10pm.");
    await form.getByRole("button", { name: "Save answer" }).click();
    await item.getByText("Answer saved.").waitFor();
    expect(await corrections()).toEqual([
      expect.objectContaining({
        question: UNANSWERED_GROUP,
        answer: "Yes: the gym on the ground floor is open 6am to 10pm.",
      }),
    ]);
  });

  it("adds, edits and deletes corrections in the Corrections tab", async () => {
    await page.getByRole("tab", { name: "Corrections" }).click();
    await page.locator(".correction", { hasText: UNANSWERED_GROUP }).waitFor();
    await page.getByRole("button", { name: "Add an answer" }).click();
    const add = page.getByRole("form", { name: "Add an answer" });
    await add.waitFor();
    // The answer box has focus as soon as the form shows, so the question typed next stays in its own box.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("answer");
    await add.getByLabel("Question").fill("Where do I park?");
    await add.getByLabel("Answer").fill("In the **north** car park.");
    await add.getByRole("button", { name: "Save answer" }).click();
    const parking = page.locator(".correction", { hasText: "Where do I park?" });
    await parking.waitFor();
    // The answer is Markdown.
    expect(await parking.locator("strong").textContent()).toBe("north");

    await parking.getByRole("button", { name: "Edit the correction for Where do I park?" }).click();
    const edit = page.getByRole("form", { name: "Edit the correction" });
    await edit.getByLabel("Answer").fill("In the south car park.");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Correction updated.").waitFor();
    // "Correction updated." shows before the list reloads.
    await expect
      .poll(() => page.locator(".correction", { hasText: "Where do I park?" }).textContent())
      .toContain("south");
    expect((await corrections()).find((c) => c.question === "Where do I park?")?.answer).toBe(
      "In the south car park.",
    );
    expect(await runAxe(page)).toEqual([]);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete the correction for Where do I park?" }).click();
    await page.getByText("Correction deleted.").waitFor();
    expect((await corrections()).map((c) => c.question)).toEqual([UNANSWERED_GROUP]);
  });

  it("corrects an answer from the queue by keyboard, then edits and deletes the correction", async () => {
    await page.goto(`${server.url}/console/#/agents/${agentId}/conversations`);
    await page.getByLabel("Thumbs up").waitFor();
    // Tab reaches the filter group at its checked radio; arrow keys move through the filters.
    await tabTo(page, page.locator(".filters input:checked"));
    for (let i = 0; i < 4 && !(await page.getByLabel("Thumbs up").isChecked()); i++) {
      await page.keyboard.press("ArrowDown");
    }
    expect(await page.getByLabel("Thumbs up").isChecked()).toBe(true);
    await expect.poll(rowTitles).toEqual([ANSWERED]);
    await tabTo(page, page.locator(".conv-row", { hasText: ANSWERED }).getByRole("link"));
    await page.keyboard.press("Enter");
    // Opened from the thumbs-up filter, the rated answer takes focus (the heading does from "All").
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.classList.contains("queue-target")))
      .toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-feedback"))).toBe("up");
    await tabTo(page, page.getByRole("button", { name: "Correct this answer" }));
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("answer");
    // The box starts with the current answer; the owner replaces it.
    expect(await page.locator('textarea[name="answer"]').inputValue()).not.toBe("");
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("Employees get 27 paid vacation days a year, plus public holidays.");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByText("Correction saved: visitors").waitFor();
    await expect.poll(() => focused(page)).toBe("Correct this answer");

    await tabTo(page, page.getByRole("button", { name: "See corrections" }));
    await page.keyboard.press("Enter");
    const edit = page.getByRole("button", { name: `Edit the correction for ${ANSWERED}` });
    await tabTo(page, edit);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("answer");
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("Employees get 27 paid vacation days a year.");
    await tabTo(page, page.getByRole("button", { name: "Save changes" }));
    await page.keyboard.press("Enter");
    await page.getByText("Correction updated.").waitFor();
    expect((await corrections()).find((c) => c.question === ANSWERED)?.answer).toBe(
      "Employees get 27 paid vacation days a year.",
    );
    page.once("dialog", (dialog) => void dialog.accept());
    await tabTo(page, page.getByRole("button", { name: `Delete the correction for ${ANSWERED}` }));
    await page.keyboard.press("Enter");
    await page.getByText("Correction deleted.").waitFor();
    expect((await corrections()).map((c) => c.question)).toEqual([UNANSWERED_GROUP]);
  });

  it("keeps Try it questions out of the queue unless asked for, marked when shown", async () => {
    const TRIAL = "Do employees get paid vacation?";
    await page.getByRole("tab", { name: "Try it" }).click();
    await page.getByLabel("Question").fill(TRIAL);
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.locator('.turn .answer[data-state="done"]').last().waitFor();

    await page.getByRole("tab", { name: "Conversations" }).click();
    await page.getByLabel("All conversations").check();
    await page.getByLabel("Status").selectOption("all");
    await expect.poll(rowTitles).toContain(ANSWERED);
    expect(await rowTitles()).not.toContain(TRIAL);
    await page.getByLabel("Asked by").selectOption({ label: "Anyone, with your Try it questions" });
    await expect.poll(rowTitles).toContain(TRIAL);
    const trial = page.locator(".conv-row", { hasText: TRIAL });
    expect(await trial.locator(".conv-meta").textContent()).toMatch(/^Try it · /);
    expect(
      await page.locator(".conv-row", { hasText: ANSWERED }).locator(".conv-meta").textContent(),
    ).not.toMatch(/Try it/);
    expect(await runAxe(page)).toEqual([]);
    await page.getByLabel("Asked by").selectOption({ label: "Visitors and apps" });
  });

  it("ran under the strict CSP without errors", () => {
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });
});
