// Issue #15's goal, end to end in Chromium: a visitor asks in the widget, gets an answer that does not
// help and rates it down; the owner opens the review queue in the console and writes a correction in
// at most four clicks from the queue; a second visitor asks in other words and gets the correction as
// the agent's own answer (no "Corrections" source), which the owner's transcript marks as such.
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe, signInToConsole } from "./browser.ts";

let server: TestServer;
let browser: Browser;
let token = "";
let agentId: string;
let previewUrl: string;
/** The pages the two visitors asked on, as their browsers had them. */
const askedOn: string[] = [];

const QUESTION = "How long is parental leave for new parents?";
const PARAPHRASE = "For new parents, how long does the parental leave last?";
const CORRECTION =
  "New parents get **16 weeks** of fully paid parental leave, to be taken within the first year.";

beforeAll(async () => {
  ({ server, browser, token } = await startServerAndBrowser({ serves: ["widget", "console"] }));
  const source = await readyTextSource(server, token, "Employee handbook", [
    {
      title: "Vacation policy",
      content:
        "Every employee receives 27 days of paid vacation per year. Unused vacation days expire on March 31.",
    },
    { title: "Expenses", content: "Travel expenses are reimbursed within 14 days when filed with receipts." },
  ]);
  agentId = (await createAgent(server, token, { name: "Handbook", dataSourceIds: [source.id] })).id;
  // Visitors use the demo page of a preview (the agent lists no origins).
  const preview = await server.request<{ url: string }>("POST", `/agents/${agentId}/preview/`, {
    token,
  });
  previewUrl = `${server.url}${preview.body.url}`;
});

afterAll(() => closeAll(browser, server));

/** A visitor on the demo page asks `question` in the widget and waits for the finished answer. */
async function visitorAsks(question: string, phone = false): Promise<{ page: Page; answer: Locator }> {
  const { page } = await openPage(
    browser,
    phone
      ? { viewport: { width: 390, height: 800 }, isMobile: true, hasTouch: true }
      : { viewport: { width: 1280, height: 800 } },
  );
  // A fragment the widget must not send.
  await page.goto(`${previewUrl}#pricing`);
  askedOn.push(page.url().replace(/#.*/, ""));
  await page.locator('[data-lore="launcher"]').click();
  await page.locator('[data-lore="input"]').fill(question);
  await page.locator('[data-lore="input"]').press("Enter");
  const answer = page.locator('[data-lore="message"][data-role="assistant"][data-status="complete"]').last();
  await answer.waitFor({ timeout: 20_000 });
  return { page, answer };
}

describe("the owner's loop", () => {
  let owner: Page;
  let problems: PageProblems;

  it("a visitor gets no useful answer and rates it down", async () => {
    const { page, answer } = await visitorAsks(QUESTION, true);
    expect(await answer.textContent()).not.toContain("16 weeks");
    await answer.locator('[data-lore="feedback-down"]').click();
    await expect
      .poll(() => answer.locator('[data-lore="feedback-down"]').getAttribute("aria-pressed"))
      .toBe("true");
    await page.context().close();
  });

  it("the owner finds it in the review queue and corrects it in at most four clicks", async () => {
    ({ page: owner, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInToConsole(owner, server.url);
    await owner.getByRole("heading", { name: "Agents" }).waitFor();
    await owner.getByRole("tab", { name: "Conversations" }).click();

    // The queue opens on thumbs-down conversations.
    await owner.getByRole("heading", { name: "Review queue" }).waitFor();
    expect(await owner.getByLabel("Thumbs down").isChecked()).toBe(true);
    const row = owner.locator(".conv-row", { hasText: QUESTION });
    await row.waitFor();
    expect(await row.textContent()).toContain("1 thumbs down");
    expect(await runAxe(owner)).toEqual([]);

    let clicks = 0;
    const click = async (target: Locator) => {
      clicks += 1;
      await target.click();
    };
    await click(row.getByRole("link"));
    const answer = owner.locator('.msg-assistant[data-feedback="down"]');
    await answer.waitFor();
    // The transcript says where the visitor asked: the page by host and path (issue #49) and a phone.
    const page = new URL(askedOn[0] ?? "");
    expect(await owner.locator(".asked-on").textContent()).toBe(
      `Asked on ${page.host}${page.pathname} · mobile`,
    );
    expect(askedOn[0]).not.toContain("#");
    expect(await answer.locator(".flag-down").textContent()).toBe("Thumbs down");
    expect(await owner.locator(".msg-user .question").first().textContent()).toBe(QUESTION);
    await click(answer.getByRole("button", { name: "Correct this answer" }));
    const form = answer.getByRole("form", { name: "Correct this answer" });
    // The question is the visitor's own; the answer field has focus.
    expect(await form.getByLabel("Question").inputValue()).toBe(QUESTION);
    // The answer box starts with the current answer; the owner replaces it.
    expect(await form.getByLabel("Answer").inputValue()).not.toBe("");
    await owner.keyboard.press("ControlOrMeta+A");
    await owner.keyboard.type(CORRECTION);
    expect(await runAxe(owner)).toEqual([]);
    await click(form.getByRole("button", { name: "Save correction" }));
    await answer.getByText("Correction saved").waitFor();
    expect(clicks).toBeLessThanOrEqual(4);

    // It is listed under Corrections.
    await owner.getByRole("tab", { name: "Corrections" }).click();
    const listed = owner.locator(".correction", { hasText: QUESTION });
    await listed.waitFor();
    expect(await listed.textContent()).toContain("16 weeks");
    expect(await listed.textContent()).toContain("From a conversation");
  });

  it("a second visitor asks in other words and gets the correction, as the agent's answer", async () => {
    const { page, answer } = await visitorAsks(PARAPHRASE);
    expect(await answer.textContent()).toContain("16 weeks");
    // No source card: the visitor is not shown the owner's corrections list as a document.
    expect(await answer.locator('[data-lore="sources"]').count()).toBe(0);
    expect(await answer.textContent()).not.toContain("Corrections");
    await page.context().close();

    // The owner sees it in the transcript as answered from the correction.
    await owner.getByRole("tab", { name: "Conversations" }).click();
    await owner.getByLabel("All conversations").check();
    const row = owner.locator(".conv-row", { hasText: PARAPHRASE });
    await row.getByRole("link").click();
    const msg = owner.locator(".msg-assistant").last();
    await msg.locator(".flag", { hasText: "From your correction" }).waitFor();
  });

  it("ran the console under the strict CSP without errors", () => {
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });
});
