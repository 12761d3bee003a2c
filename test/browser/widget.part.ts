// The widget on the demo page (served under the strict CSP) in real Chromium: opened by keyboard,
// streamed answer, expandable citation, conversation kept across a reload, the mobile sheet, an
// axe-core audit, and screenshots in light and dark.
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAnswer, type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { observeUntil, openPage, type PageProblems, saveScreenshot } from "./browser.ts";

const axeSource: string = createRequire(import.meta.url)("axe-core").source;

let fake: FakeOpenAI;
let server: TestServer;
let browser: Browser;
let token = "";
let page: Page;
let problems: PageProblems;
let demoUrl: string;

const QUESTION = "How many vacation days do employees get?";
const FACT = "Every employee receives 27 days of paid vacation per year.";

beforeAll(async () => {
  // A model that streams one word every 40 ms, so the stream is observable in the page.
  fake = await startFakeOpenAI({ tokenDelayMs: 40 });
  ({ server, browser, token } = await startServerAndBrowser({
    serves: ["widget"],
    env: { LORE_CHAT_MODEL: "openai:fake-chat", LORE_OPENAI_BASE_URL: fake.url },
  }));
  const source = await readyTextSource(server, token, "Employee handbook", [
    {
      title: "Vacation policy",
      content: `${FACT} Unused vacation days expire on March 31 of the following year.`,
    },
    { title: "Expenses", content: "Travel expenses are reimbursed within 14 days when filed with receipts." },
  ]);
  const agent = await createAgent(server, token, {
    name: "Handbook",
    dataSourceIds: [source.id],
    suggestedQuestions: ["How do I file expenses?"],
    theme: { title: "Ask HR", colorScheme: "auto" },
  });
  // The demo page shows the agent in a preview opened from the console (its origin is not listed).
  const preview = await server.request<{ url: string }>("POST", `/agents/${agent.id}/preview/`, {
    token,
  });
  demoUrl = `${server.url}${preview.body.url}`;
  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } }));
});

afterAll(() => closeAll(browser, server, fake));

/** What has focus inside the widget's shadow root (its data-lore name), or null outside it. */
function focusedInWidget(p: Page): Promise<string | null> {
  return p.evaluate(() => {
    const host = document.activeElement;
    if (host?.tagName !== "LORE-WIDGET") return null;
    const inner = host.shadowRoot?.activeElement as HTMLElement | null | undefined;
    return inner?.dataset.lore ?? inner?.tagName ?? null;
  });
}

const answerBubble = (p: Page) => p.locator('[data-lore="message"][data-role="assistant"] .bubble').last();
const answerStatus = (p: Page) =>
  p.locator('[data-lore="message"][data-role="assistant"]').last().getAttribute("data-status");

/** Runs axe-core on the whole page (shadow roots included); "rule: targets" per violation. */
async function runAxe(p: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, so the page's strict CSP does not block it.
  await p.evaluate(axeSource);
  return p.evaluate(async () => {
    type AxeResult = { violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> };
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<AxeResult> } })
      .axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

/** The page is served with the server's strict policy. */
async function cspOf(p: Page, url: string): Promise<string> {
  const response = await p.goto(url);
  return response?.headers()["content-security-policy"] ?? "";
}

describe("widget on the demo page under a strict CSP", () => {
  it("opens by keyboard: Tab to the launcher, Enter opens the panel and focuses the question box", async () => {
    const csp = await cspOf(page, demoUrl);
    expect(csp).toContain("script-src 'self' 'nonce-");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    await page.locator('[data-lore="launcher"]').waitFor();

    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = (await focusedInWidget(page)) === "launcher";
    }
    expect(reached).toBe(true);
    expect(await page.locator('[data-lore="launcher"]').getAttribute("aria-expanded")).toBe("false");

    await page.keyboard.press("Enter");
    await page.locator('[data-lore="panel"]').waitFor({ state: "visible" });
    // The launcher belongs to the loader; the bundle's effect sets its state just after the panel renders.
    await expect
      .poll(() => page.locator('[data-lore="launcher"]').getAttribute("aria-expanded"))
      .toBe("true");
    await expect.poll(() => focusedInWidget(page)).toBe("input");
  });

  it("streams the answer: its text grows over several observations, then shows citations", async () => {
    await page.keyboard.type(QUESTION);
    await page.keyboard.press("Enter");
    const readings = await observeUntil(
      async () => ({
        text: (await answerBubble(page).textContent()) ?? "",
        status: await answerStatus(page),
      }),
      (r) => r.status === "complete",
    );
    const partial = [
      ...new Set(
        readings
          .filter((r) => r.status === "streaming")
          .map((r) => r.text.trim())
          .filter(Boolean),
      ),
    ];
    // Several partial answers while streaming, each extending the one before.
    expect(partial.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < partial.length; i++) expect(partial[i]?.startsWith(partial[i - 1] ?? "")).toBe(true);
    // The complete answer (its [n] markers now rendered as citation links) holds the fact.
    expect(readings.at(-1)?.text).toContain("27 days of paid vacation");
    expect(fake.requests.some((r) => r.path.endsWith("/chat/completions"))).toBe(true);
  });

  it("expands a citation to show the cited passage", async () => {
    const toggle = page.locator('[data-lore="source-toggle"]').first();
    await toggle.waitFor();
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await page.locator('[data-lore="source-body"]').first().isVisible()).toBe(false);
    await toggle.focus();
    await page.keyboard.press("Enter");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    const body = page.locator('[data-lore="source-body"]').first();
    await body.waitFor({ state: "visible" });
    // The snippet's code may still be arriving (it is a separate chunk): wait for the marked quote.
    await body.locator("mark").waitFor();
    expect(await body.textContent()).toContain(FACT);
    // The answer quoted the fact, so the snippet marks it.
    expect(await body.locator("mark").textContent()).toBe(FACT.replace(/\.$/, ""));
  });

  it("has no accessibility violations with the widget open (axe-core)", async () => {
    expect(await runAxe(page)).toEqual([]);
  });

  it("saves screenshots of the open widget in light and dark", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      const background = await page
        .locator('[data-lore="panel"]')
        .evaluate((el) => getComputedStyle(el).backgroundColor);
      const [r = 0, g = 0, b = 0] = (background.match(/\d+/g) ?? []).map(Number);
      // The panel follows the visitor's scheme (the agent's theme says "auto").
      if (colorScheme === "light") expect(r + g + b).toBeGreaterThan(600);
      else expect(r + g + b).toBeLessThan(200);
      await saveScreenshot(page, `widget-open-${colorScheme}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
  });

  it("keeps the conversation across a reload", async () => {
    await page.reload();
    await page.locator('[data-lore="launcher"]').click();
    await page.locator('[data-lore="panel"]').waitFor({ state: "visible" });
    const user = page.locator('[data-lore="message"][data-role="user"]');
    await user.first().waitFor();
    expect(await user.first().textContent()).toContain(QUESTION);
    expect(await answerBubble(page).textContent()).toContain("27 days of paid vacation");
    expect(await page.locator('[data-lore="source"]').count()).toBeGreaterThan(0);
  });

  it("renders a Markdown table in the answer, and lays out each bubble by its own text's direction", async () => {
    const table = [
      "| Leave type | Days per year | Carried over | Notes |",
      "|---|:-:|---:|---|",
      "| Paid vacation | 27 [1] | until March 31 | booked through the HR portal, approved by your manager |",
      "| Sick leave \\| paid | 10 | no | a doctor's note from the third day |",
    ].join("\n");
    // The follow-up is first condensed (no sources in that prompt), then answered from the sources.
    fake.setBehaviour({
      answer: (body) =>
        body.messages?.some((m) => /^\[1\] /m.test(m.content)) ? `Here is the overview:\n${table}` : QUESTION,
    });
    await page.locator('[data-lore="input"]').fill("كم عدد أيام الإجازة؟");
    await page.keyboard.press("Enter");
    await expect.poll(() => answerStatus(page), { timeout: 15_000 }).toBe("complete");

    const bubble = answerBubble(page);
    expect(await bubble.locator("thead th").allTextContents()).toEqual([
      "Leave type",
      "Days per year",
      "Carried over",
      "Notes",
    ]);
    expect(await bubble.locator("tbody tr").count()).toBe(2);
    expect(await bubble.locator("tbody td").nth(4).textContent()).toBe("Sick leave | paid");
    expect(await bubble.locator('tbody td [data-lore="cite"]').textContent()).toBe("1");
    // A wide table scrolls inside the bubble; the bubble stays inside the panel.
    const panel = await page.locator('[data-lore="panel"]').boundingBox();
    const box = await bubble.boundingBox();
    expect(box && panel && box.x + box.width <= panel.x + panel.width).toBe(true);

    const user = page.locator('[data-lore="message"][data-role="user"] .bubble').last();
    for (const el of [user, bubble, page.locator('[data-lore="input"]')])
      expect(await el.getAttribute("dir")).toBe("auto");
    const direction = (el: typeof user) => el.evaluate((node) => getComputedStyle(node).direction);
    expect(await direction(user)).toBe("rtl");
    expect(await direction(bubble)).toBe("ltr");
    await page.locator('[data-lore="source-toggle"]').last().click();
    await bubble.scrollIntoViewIfNeeded();
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await saveScreenshot(page, `widget-table-${colorScheme}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
    expect(await runAxe(page)).toEqual([]);
    fake.setBehaviour({ answer: defaultAnswer });
  });

  it("follows the conversation at its end, says 'New message ↓' further up, and keeps Try again in view", async () => {
    // Forty one-word paragraphs, one every 150 ms: taller than the panel, and slow enough to scroll away.
    const steps = Array.from({ length: 40 }, (_, i) => `Step-${i + 1}.`).join("\n\n");
    fake.setBehaviour({
      tokenDelayMs: 150,
      answer: (body) => (body.messages?.some((m) => /^\[1\] /m.test(m.content)) ? `${steps} [1]` : QUESTION),
    });
    const body = page.locator('[data-lore="panel"] .body');
    const fromEnd = () => body.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    const paragraphs = () => answerBubble(page).locator("p").count();
    const jump = page.locator('[data-lore="jump"]');
    /** Whether `target` lies inside the conversation's visible area. */
    const inView = async (target: typeof body) => {
      const [outer, inner] = await Promise.all([body.boundingBox(), target.boundingBox()]);
      return (
        !!outer && !!inner && inner.y >= outer.y - 1 && inner.y + inner.height <= outer.y + outer.height + 1
      );
    };

    // Asking from further up brings the end back, and the answer is followed as it grows.
    await body.evaluate((el) => {
      el.scrollTop = 0;
    });
    await page.locator('[data-lore="input"]').fill("How do I book my vacation?");
    await page.keyboard.press("Enter");
    await expect.poll(paragraphs, { timeout: 15_000 }).toBeGreaterThanOrEqual(12);
    expect(await answerStatus(page)).toBe("streaming");
    expect(await fromEnd()).toBeLessThan(5);
    expect(await jump.count()).toBe(0);

    // Scrolled up to read: the text stays put and the button says something new arrived.
    await body.evaluate((el) => {
      el.scrollTop = 0;
    });
    await jump.waitFor({ timeout: 10_000 });
    expect(await jump.textContent()).toBe("New message ↓");
    const seen = await paragraphs();
    await expect.poll(paragraphs).toBeGreaterThan(seen + 2);
    expect(await body.evaluate((el) => el.scrollTop)).toBeLessThan(5);
    expect(await inView(jump)).toBe(true);
    await jump.click();
    expect(await fromEnd()).toBeLessThan(5);
    await jump.waitFor({ state: "detached" });
    expect(await focusedInWidget(page)).toBe("input");
    // At the end again: followed to the last step.
    await expect.poll(() => answerStatus(page), { timeout: 20_000 }).toBe("complete");
    expect(await fromEnd()).toBeLessThan(5);

    // Stop pressed while reading further up: the stopped answer's Try again comes into view.
    await page.locator('[data-lore="input"]').fill("And how do I cancel it?");
    await page.keyboard.press("Enter");
    await expect.poll(paragraphs, { timeout: 15_000 }).toBeGreaterThanOrEqual(12);
    await body.evaluate((el) => {
      el.scrollTop = 0;
    });
    await jump.waitFor({ timeout: 10_000 });
    await page.locator('[data-lore="stop"]').click();
    await expect.poll(() => answerStatus(page)).toBe("stopped");
    const tryAgain = page.locator('[data-lore="retry-stopped"]');
    await expect.poll(() => inView(tryAgain)).toBe(true);
    expect(await jump.count()).toBe(0);
    fake.setBehaviour({ answer: defaultAnswer, tokenDelayMs: 40 });
  });

  it("Esc closes the panel and returns focus to the launcher", async () => {
    await page.locator('[data-lore="input"]').focus();
    await page.keyboard.press("Escape");
    await page.locator('[data-lore="panel"]').waitFor({ state: "hidden" });
    expect(await focusedInWidget(page)).toBe("launcher");
  });

  it("raised no CSP violation and no script error", () => {
    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });
});

describe("widget on a phone-sized screen", () => {
  it("opens as a full-screen sheet at 375×667", async () => {
    const phone = await openPage(browser, {
      viewport: { width: 375, height: 667 },
      hasTouch: true,
      isMobile: true,
    });
    try {
      await phone.page.goto(demoUrl);
      await phone.page.locator('[data-lore="launcher"]').click();
      const panel = phone.page.locator('[data-lore="panel"]');
      await panel.waitFor({ state: "visible" });
      await expect
        .poll(async () => {
          const box = await panel.boundingBox();
          return box && [Math.round(box.x), Math.round(box.y), Math.round(box.width), Math.round(box.height)];
        })
        .toEqual([0, 0, 375, 667]);
      expect(await panel.getAttribute("aria-modal")).toBe("true");
      // Inputs at 16 px or more, so phones don't zoom in on focus.
      const fontSize = await phone.page
        .locator('[data-lore="input"]')
        .evaluate((el) => getComputedStyle(el).fontSize);
      expect(Number.parseFloat(fontSize)).toBeGreaterThanOrEqual(16);
      await saveScreenshot(phone.page, "widget-open-mobile");
      expect(phone.problems.cspViolations).toEqual([]);
    } finally {
      await phone.page.context().close();
    }
  });
});
