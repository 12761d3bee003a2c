// The visitor's ways out, in real Chromium against the real server (the chat model is the local
// fake OpenAI server): links in answers, thumbs-down reasons, the contact form, Stop then Retry.
import type { Page as ApiPage, ConversationDetail, Handoff } from "@lore/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe, waitUntil } from "./browser.ts";

const ANSWER =
  'Returns are accepted within 30 days [1]. Write to help@shop.example or call +1 (555) 123-4567. <img src=x onerror="window.pwned=1">';

let fake: FakeOpenAI;
let server: TestServer;
let browser: Browser;
let page: Page;
let problems: PageProblems;
let token = "";
let agentId = "";
let widgetId = "";

beforeAll(async () => {
  fake = await startFakeOpenAI({ answer: ANSWER, tokenDelayMs: 5 });
  ({ server, browser, token } = await startServerAndBrowser({
    serves: ["widget"],
    env: { LORE_OPENAI_BASE_URL: fake.url },
  }));
  const source = await readyTextSource(server, token, "FAQ", [
    { title: "Returns", content: "Returns are accepted within 30 days." },
  ]);
  ({ id: agentId, widgetId } = await createAgent(server, token, {
    name: "Shop",
    model: "openai:fake-chat",
    dataSourceIds: [source.id],
    allowedOrigins: [server.url],
    handoff: { mode: "form", url: null },
  }));
  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } }));
}, 60_000);

afterAll(() => closeAll(browser, server, fake));

const lastAnswer = (p: Page) => p.locator('[data-lore="message"][data-role="assistant"]').last();

async function openFresh(p: Page): Promise<void> {
  await p.goto(`${server.url}/?widget=${widgetId}`);
  await p.evaluate(() => localStorage.clear());
  await p.goto(`${server.url}/?widget=${widgetId}`);
  await p.locator('[data-lore="launcher"]').click();
  await p.locator('[data-lore="panel"]').waitFor({ state: "visible" });
}

async function askAndWait(p: Page, question: string): Promise<void> {
  await p.locator('[data-lore="input"]').fill(question);
  await p.keyboard.press("Enter");
  await expect.poll(() => lastAnswer(p).getAttribute("data-status"), { timeout: 20_000 }).toBe("complete");
}

async function latestConversation(): Promise<ConversationDetail> {
  const list = await server.request<ApiPage<{ id: string }>>("GET", `/agents/${agentId}/conversations/`, {
    token,
  });
  const id = list.body.results[0]?.id ?? "";
  return (
    await server.request<ConversationDetail>("GET", `/agents/${agentId}/conversations/${id}/`, { token })
  ).body;
}

describe("answers", () => {
  it("turn e-mail addresses and phone numbers into links, and markup into text", async () => {
    await openFresh(page);
    await askAndWait(page, "How do returns work?");
    const bubble = lastAnswer(page).locator(".bubble");
    expect(await bubble.locator('a[href="mailto:help@shop.example"]').textContent()).toBe(
      "help@shop.example",
    );
    expect(await bubble.locator('a[href="tel:+15551234567"]').textContent()).toBe("+1 (555) 123-4567");
    expect(await bubble.locator("img").count()).toBe(0);
    expect(await bubble.textContent()).toContain("<img src=x");
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
  });
});

describe("thumbs-down", () => {
  it("asks what was wrong and sends the reason with the comment", async () => {
    await openFresh(page);
    await askAndWait(page, "Can I return an opened item?");
    await lastAnswer(page).locator('[data-lore="feedback-down"]').click();
    const reasons = page.locator('[data-lore="reasons"]');
    await reasons.waitFor();
    // Focus moves to the first choice, so a keyboard user is in the question.
    await expect.poll(() => page.locator('[data-lore="reason-wrong"]:focus').count()).toBe(1);
    expect(await runAxe(page)).toEqual([]);
    await page.locator('[data-lore="reason-outdated"]').check();
    // The message box takes the answer's width (not beside its label) and shows a few lines.
    const [box, conversation] = await Promise.all([
      page.locator('[data-lore="reason-comment"]').boundingBox(),
      page.locator('[data-lore="messages"]').boundingBox(),
    ]);
    expect(box?.width).toBeGreaterThanOrEqual((conversation?.width ?? 0) * 0.8);
    expect(box?.height).toBeGreaterThanOrEqual(70);
    await page.locator('[data-lore="reason-comment"]').fill("The policy changed last month.");
    await page.locator('[data-lore="reason-send"]').click();
    await reasons.waitFor({ state: "detached" });
    await waitUntil(async () => {
      const answer = (await latestConversation()).messages.find((m) => m.role === "assistant");
      return answer?.feedbackReason === "outdated";
    }, "the reason stored on the answer");
    const answer = (await latestConversation()).messages.find((m) => m.role === "assistant");
    expect(answer).toMatchObject({ feedback: "down", feedbackComment: "The policy changed last month." });
  });

  it("offers the way out, whose form refuses a bad e-mail and then sends the request", async () => {
    const contact = lastAnswer(page).locator('[data-lore="way-out"] [data-lore="contact"]');
    await contact.click();
    const form = page.locator('[data-lore="contact-form"]');
    await form.waitFor();
    const email = form.locator('input[name="email"]');
    await expect.poll(() => form.locator('input[name="email"]:focus').count()).toBe(1);
    await email.fill("not an address");
    await form.locator('textarea[name="message"]').fill("Please call me about my return.");
    await form.locator('[data-lore="contact-send"]').click();
    await expect.poll(() => email.getAttribute("aria-invalid")).toBe("true");
    expect(await form.locator(".field-error").textContent()).toMatch(/e-mail/i);
    expect(await runAxe(page)).toEqual([]);
    await email.fill("ana@example.org");
    await form.locator('[data-lore="contact-send"]').click();
    await page.locator('[data-lore="contact-sent"]').waitFor();
    const conversation = await latestConversation();
    expect(conversation.handoffRequests.map((h: Handoff) => [h.email, h.message])).toEqual([
      ["ana@example.org", "Please call me about my return."],
    ]);
  });

  it("reaches Contact us in the header by keyboard", async () => {
    // Shift+Tab from the question box, as a keyboard user would go (the panel is in a shadow root).
    await page.locator('[data-lore="input"]').focus();
    let reached = false;
    for (let i = 0; i < 60 && !reached; i++) {
      await page.keyboard.press("Shift+Tab");
      reached = (await page.locator('[data-lore="menu-contact"]:focus').count()) === 1;
    }
    expect(reached).toBe(true);
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.locator('[data-lore="contact-form"] input[name="email"]:focus').count())
      .toBe(1);
  });
});

describe("Contact us before asking", () => {
  it("sends the form from the header before any question; the owner sees the open request, and the next question continues it", async () => {
    await openFresh(page);
    expect(await page.locator('[data-lore="message"]').count()).toBe(0);
    await page.locator('[data-lore="menu-contact"]').click();
    const form = page.locator('[data-lore="contact-form"]');
    await form.waitFor();
    await form.locator('input[name="email"]').fill("lea@example.org");
    await form.locator('textarea[name="message"]').fill("Do you sell gift cards?");
    await form.locator('[data-lore="contact-send"]').click();
    await page.locator('[data-lore="contact-sent"]').waitFor();

    const open = await server.request<ApiPage<{ id: string; title: string; openHandoffs: number }>>(
      "GET",
      `/agents/${agentId}/conversations/?handoff=open`,
      { token },
    );
    const started = open.body.results.find((c) => c.title === "Do you sell gift cards?");
    expect(started?.openHandoffs).toBe(1);
    const detail = await latestConversation();
    expect(detail.id).toBe(started?.id);
    expect(detail.handoffRequests.map((h: Handoff) => [h.email, h.message, h.status])).toEqual([
      ["lea@example.org", "Do you sell gift cards?", "open"],
    ]);

    await askAndWait(page, "How do returns work?");
    const after = await latestConversation();
    expect(after.id).toBe(started?.id);
    expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});

describe("Stop", () => {
  it("puts the question back in the composer and offers Retry, which asks again", async () => {
    fake.setBehaviour({ tokenDelayMs: 150 });
    try {
      await openFresh(page);
      await page.locator('[data-lore="input"]').fill("What is your return window?");
      await page.keyboard.press("Enter");
      await expect
        .poll(() => lastAnswer(page).getAttribute("data-status"), { timeout: 20_000 })
        .toBe("streaming");
      await page.locator('[data-lore="stop"]').click();
      await expect.poll(() => lastAnswer(page).getAttribute("data-status")).toBe("stopped");
      expect(await page.locator('[data-lore="input"]').inputValue()).toBe("What is your return window?");
      fake.setBehaviour({ tokenDelayMs: 5 });
      await lastAnswer(page).locator('[data-lore="retry-stopped"]').click();
      await expect
        .poll(() => lastAnswer(page).getAttribute("data-status"), { timeout: 20_000 })
        .toBe("complete");
      expect(await page.locator('[data-lore="input"]').inputValue()).toBe("");
      const asked = page.locator('[data-lore="message"][data-role="user"]');
      expect(await asked.allTextContents()).toEqual([
        expect.stringContaining("What is your return window?"),
        expect.stringContaining("What is your return window?"),
      ]);
    } finally {
      fake.setBehaviour({ tokenDelayMs: 5 });
    }
  });

  it("raised no CSP violation and no script error", () => {
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
  });
});
