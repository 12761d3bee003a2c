// Issue #52 item 5, in Chromium: a visitor who asked for a person is never missed. The console
// badges the agent with its open contact requests, says whether owners get them by e-mail (a local
// SMTP server here), keeps the request open when the owner corrects the answer (which resolves the
// conversation), replies by e-mail with the transcript, and resolving the request is its own action.
import type { Agent, WidgetQueryResponse } from "@lore/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import { httpRequest, type TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { type LocalSmtp, startLocalSmtp } from "../helpers/smtp.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe, signInToConsole, tabTo } from "./browser.ts";

const ORIGIN = "https://shop.example";
const QUESTION = "Do you ship to Iceland?";
const REQUEST = "Please tell me whether you ship to Reykjavik, I need it by Friday.";

let server: TestServer;
let smtp: LocalSmtp;
let browser: Browser;
let token = "";
let agent: Agent;
let owner: Page;
let problems: PageProblems;

beforeAll(async () => {
  smtp = await startLocalSmtp();
  ({ server, browser, token } = await startServerAndBrowser({
    serves: ["console"],
    env: { LORE_SMTP_URL: smtp.url, LORE_SMTP_FROM: "Lore <lore@shop.example>" },
  }));
  const faq = await readyTextSource(server, token, "Shop FAQ", [
    { title: "Shipping", content: "Orders ship within two business days from our Lisbon warehouse." },
  ]);
  agent = await createAgent(server, token, {
    name: "Shop helper",
    dataSourceIds: [faq.id],
    allowedOrigins: [ORIGIN],
    handoff: { mode: "form", url: null },
  });
  // The visitor, through the widget's own routes: asks, rates the answer down, asks for a person.
  const widget = <T>(path: string, body: unknown) =>
    httpRequest<T>(server.api, "POST", `/widget/${agent.widgetId}${path}`, {
      body,
      headers: { Origin: ORIGIN },
    });
  const asked = await widget<WidgetQueryResponse & { visitorToken: string }>("/query/", {
    message: QUESTION,
  });
  expect(asked.status).toBe(200);
  const { visitorToken, conversationId, messageId } = asked.body;
  const rated = await widget(`/messages/${messageId}/feedback/`, { visitorToken, rating: "down" });
  expect(rated.status).toBe(204);
  const sent = await widget(`/conversations/${conversationId}/handoff/`, {
    visitorToken,
    email: "ana@example.org",
    name: "Ana",
    message: REQUEST,
  });
  expect(sent.status).toBe(201);
});

afterAll(() => closeAll(browser, server, smtp));

const badge = () => owner.locator(".sidebar [data-testid=requests-badge]");

describe("an open contact request in the console", () => {
  it("badges the agent and says new requests are e-mailed to the owners", async () => {
    ({ page: owner, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInToConsole(owner, server.url);
    await badge().waitFor({ timeout: 15_000 });
    expect(await badge().textContent()).toBe("1 open contact request");
    expect(await owner.getByRole("tab", { name: /Conversations/ }).textContent()).toContain("1");

    await owner.getByRole("tab", { name: /Conversations/ }).click();
    const notice = owner.getByTestId("requests-notice");
    expect(await notice.textContent()).toContain("1 open contact request: a visitor is waiting.");
    expect(await notice.textContent()).toContain("e-mailed to the workspace's owners");
    // The owner (the test admin) got the e-mail on the local SMTP server, with the conversation.
    const mail = await smtp.waitForMail(
      (m) => m.data.includes("ana@example.org"),
      "the owner's notice on the local SMTP server",
    );
    expect(mail.to).toEqual(["admin@example.com"]);
    expect(mail.text).toContain(QUESTION);
    expect(await runAxe(owner)).toEqual([]);
  });

  it("keeps the request open and listed after the owner corrects the answer", async () => {
    await owner.getByRole("button", { name: "Show contact requests" }).click();
    const row = owner.locator(".conv-row", { hasText: QUESTION });
    await row.waitFor();
    await row.getByRole("link").click();
    const answer = owner.locator(".msg-assistant").first();
    await answer.getByRole("button", { name: "Correct this answer" }).click();
    const form = answer.getByRole("form", { name: "Correct this answer" });
    // The form starts from the answer's words, without its [1] (a correction has no sources to cite).
    const draft = await form.getByLabel("Answer").inputValue();
    expect(draft).toContain("two business days");
    expect(draft).not.toMatch(/\[\d+\]/);
    await form.getByLabel("Answer").fill("Yes: we ship to Iceland in five to seven business days.");
    await form.getByRole("button", { name: "Save correction" }).click();
    await answer.getByText("Correction saved").waitFor();
    // Back in the queue (Contact requests, open): the conversation is still there.
    await owner.getByRole("link", { name: "← Review queue" }).click();
    expect(await owner.getByLabel("Contact requests").isChecked()).toBe(true);
    expect(await owner.getByLabel("Request status").inputValue()).toBe("open");
    await owner.locator(".conv-row", { hasText: QUESTION }).waitFor();
    expect(await owner.getByText("1 conversation", { exact: true }).count()).toBe(1);
    expect(await badge().textContent()).toBe("1 open contact request");
    // The correction resolved the conversation; the visitor's request is still open.
    await owner.locator(".conv-row", { hasText: QUESTION }).getByRole("link").click();
    await owner.locator(".conv-status[data-status=resolved]").waitFor();
    expect(await owner.locator(".handoff").getAttribute("data-status")).toBe("open");
  });

  it("replies by e-mail to the visitor with a subject and the transcript", async () => {
    const reply = owner.getByRole("link", { name: "Reply by e-mail" });
    const href = (await reply.getAttribute("href")) ?? "";
    const link = new URL(href);
    expect(link.protocol).toBe("mailto:");
    expect(link.pathname).toBe("ana@example.org");
    expect(link.searchParams.get("subject")).toBe(`Re: ${QUESTION}`);
    const body = link.searchParams.get("body") ?? "";
    expect(body).toContain("Hello Ana,");
    expect(body).toContain(REQUEST);
    expect(body).toContain(`You: ${QUESTION}`);
    expect(body).toContain("Assistant: ");
  });

  it("resolves the request as its own action, by keyboard; the badge goes", async () => {
    const resolve = owner.getByRole("button", { name: "Mark resolved" });
    await tabTo(owner, resolve);
    await owner.keyboard.press("Enter");
    await owner.locator('.handoff[data-status="resolved"]').waitFor();
    await badge().waitFor({ state: "detached" });
    // The conversation's own status did not move.
    expect(await owner.locator(".conv-status").getAttribute("data-status")).toBe("resolved");
    await owner.getByRole("link", { name: "← Review queue" }).click();
    await owner.getByText("No conversations match.").waitFor();
    await owner.getByLabel("Request status").selectOption("resolved");
    await owner.locator(".conv-row", { hasText: QUESTION }).waitFor();
  });

  it("fits a 375 px phone", async () => {
    await owner.setViewportSize({ width: 375, height: 740 });
    await owner.getByLabel("Request status").selectOption("open");
    const overflow = await owner.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await owner.setViewportSize({ width: 1280, height: 900 });
  });

  it("defines every analytics card where it shows, and keeps 'Resolved' for the status", async () => {
    await owner.getByRole("tab", { name: "Analytics" }).click();
    const cards = owner.locator(".stats .stat");
    await cards.first().waitFor();
    for (const card of await cards.all()) {
      if ((await card.getAttribute("data-stat"))?.startsWith("latency")) continue;
      expect((await card.locator(".stat-def").textContent())?.length ?? 0).toBeGreaterThan(10);
    }
    const labels = await owner.locator(".stats dt").allTextContents();
    expect(labels.some((l) => /resolved/i.test(l))).toBe(false);
    const helped = owner.locator('[data-stat="resolutionRate"]');
    expect(await helped.locator("dt").textContent()).toBe("Helped");
    expect(await helped.locator(".stat-def").textContent()).toContain(
      "a last answer that was not the fallback",
    );
    // The visitor sent a contact request and a thumbs-down: their one conversation was not helped.
    expect(await helped.locator("dd").first().textContent()).toBe("0%");
    expect(await owner.locator('[data-stat="handoffs"] dd').first().textContent()).toBe("1");
    expect(await runAxe(owner)).toEqual([]);
  });

  it("e-mails an invitation's link and says so, since the server has SMTP settings", async () => {
    await owner.getByRole("link", { name: "Members" }).click();
    await owner.getByLabel("Email").fill("bo@shop.example");
    await owner.getByRole("button", { name: "Invite" }).click();
    const sent = owner.locator(".invite-sent");
    await sent.waitFor();
    expect(await sent.textContent()).toContain("It was e-mailed to them with this link.");
    const link = await sent.getByLabel("Invitation link for bo@shop.example").inputValue();
    const mail = await smtp.waitForMail(
      (m) => m.to.includes("bo@shop.example"),
      "the invitation on the local SMTP server",
    );
    expect(mail.text.split(/\r?\n/)).toContain(link);
  });

  it("ran the console without script errors or CSP violations", () => {
    expect(problems.consoleErrors).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
  });
});
