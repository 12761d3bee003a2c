// The site owner's first hour, in Chromium, from an empty data directory: log in to the console,
// create an agent and a text source, paste the snippet on a page of another origin, see the
// console name that site as refused, allow it in one click, and watch the widget answer there;
// connect a model (the fake OpenAI-compatible server on loopback) and pick it in Settings, allow a
// second site, add a website (the local test site) and edit its settings, invite a second person
// who sets a password and logs in, and see a visitor's contact request (sent from the widget)
// badge the agent, reach the owner by e-mail (a local SMTP server), and stay open through a
// correction (issue #52). The owner only clicks and types.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAnswer, type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { startTestSite, type TestSite } from "../fakes/web-site.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type LocalSmtp, startLocalSmtp } from "../helpers/smtp.ts";
import {
  ensureConsoleBuilt,
  ensureWidgetBuilt,
  type HostSite,
  launchBrowser,
  openPage,
  type PageProblems,
  runAxe,
  signInToConsole,
  startHostSite,
  tabTo,
} from "./browser.ts";

let server: TestServer;
let fake: FakeOpenAI;
let smtp: LocalSmtp;
let site: TestSite;
let shop: HostSite;
let blog: HostSite;
let browser: Browser;
let owner: Page;
let visitor: Page;
let visitorProblems: PageProblems;
let snippet = "";

const FACT = "Orders ship within two business days from our Lisbon warehouse.";
const KEY = "sk-local-4242-secret-key";
const NEWCOMER = "nia@example.org";
const PASSWORD = "lantern-orchard-42";
const QUESTION = "Do you ship to Iceland?";
const REQUEST = "Please tell me whether you ship to Reykjavik, I need it by Friday.";

/** How far the page is wider than the window (0 when it fits). */
const overflowOf = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

const hostPage = (title: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title></head>
<body><main><h1>${title}</h1><p>Welcome to our site.</p></main>
${snippet}
</body></html>`;

/** The launcher in the visitor's page: shown, or hidden because the site was refused. */
const launcherShown = (page: Page) =>
  page.evaluate(() => {
    const launcher = document
      .querySelector("lore-widget")
      ?.shadowRoot?.querySelector('[data-lore="launcher"]');
    return launcher ? !(launcher as HTMLElement).hidden : null;
  });

beforeAll(async () => {
  ensureWidgetBuilt();
  ensureConsoleBuilt();
  [fake, smtp, site] = await Promise.all([
    startFakeOpenAI({
      apiKey: KEY,
      models: ["fake-chat", "fake-embed"],
      answer: (body) =>
        (body.messages ?? []).some((m) => m.content.includes("five words"))
          ? "Hello from the fake model."
          : defaultAnswer(body),
    }),
    startLocalSmtp(),
    startTestSite(),
  ]);
  // startTestServer: a fresh temporary data dir, with LORE_ADMIN_EMAIL/PASSWORD set. No model in the
  // environment (the owner connects one); the fake model server and the test site are on loopback.
  [server, shop, blog, browser] = await Promise.all([
    startTestServer({
      LORE_OUTBOUND_ALLOWLIST: "127.0.0.1",
      LORE_SMTP_URL: smtp.url,
      LORE_SMTP_FROM: "Lore <lore@shop.example>",
    }),
    startHostSite(),
    startHostSite(),
    launchBrowser(),
  ]);
  ({ page: owner } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
  ({ page: visitor, problems: visitorProblems } = await openPage(browser, {
    viewport: { width: 1280, height: 800 },
  }));
});

afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await blog?.close();
  await server?.close();
  await Promise.all([fake?.close(), smtp?.close(), site?.close()]);
});

describe("a new owner's first hour", () => {
  it("starts from an empty store", async () => {
    expect([...server.services.store.agents.all()]).toEqual([]);
    expect([...server.services.store.dataSources.all()]).toEqual([]);
  });

  it("logs in, creates an agent and a text source that syncs", async () => {
    await signInToConsole(owner, server.url);
    await owner.getByLabel("Agent name").fill("Shop helper");
    await owner.getByRole("button", { name: "Create agent" }).click();
    await owner.getByRole("heading", { name: "Shop helper", level: 1 }).waitFor();

    const form = owner.locator("form.add-source");
    await form.getByLabel("Name", { exact: true }).fill("Shipping FAQ");
    await form.getByLabel("Title").fill("Shipping times");
    await form.getByLabel("Content").fill(`${FACT} Express delivery takes one day.`);
    await form.getByRole("button", { name: "Add source" }).click();
    const row = owner.locator(".source-row", { hasText: "Shipping FAQ" });
    await row.locator('.badge[data-status="ready"]').waitFor({ timeout: 30_000 });
  });

  it("pastes the snippet on a site of another origin: the console names it as refused", async () => {
    await owner.getByRole("tab", { name: "Embed" }).click();
    // What the owner copies from the Embed tab, pasted into their page.
    snippet = (await owner.locator('[data-snippet="embed"]').textContent()) ?? "";
    expect(snippet).toContain("data-widget-id=");
    shop.set("/", { body: hostPage("Our shop") });
    await visitor.goto(`${shop.origin}/`);
    // The site is not allowed yet: no launcher for visitors.
    await expect.poll(() => launcherShown(visitor), { timeout: 10_000 }).toBe(false);

    const refused = owner.getByTestId("refused-origins");
    await refused.waitFor({ timeout: 15_000 });
    expect(await refused.textContent()).toContain(shop.origin);
    expect(await owner.getByText("No site may show the widget yet").count()).toBe(1);
  });

  it("keeps the Embed tab accessible, keyboard reachable and within 375 px", async () => {
    expect(await runAxe(owner)).toEqual([]);
    await tabTo(owner, owner.getByRole("button", { name: `Allow ${shop.origin}` }));
    // The owner's browser state (the session cookie): the phone's page signs in from it, as another tab would.
    const phone = await browser.newContext({
      viewport: { width: 375, height: 740 },
      storageState: await owner.context().storageState(),
    });
    const small = await phone.newPage();
    await small.goto(owner.url());
    await small.getByTestId("refused-origins").waitFor({ timeout: 15_000 });
    const overflow = await small.evaluate(() => ({
      page: document.documentElement.scrollWidth - window.innerWidth,
      wide: [...document.querySelectorAll(".site-origins *")]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth)
        .map((el) => `${el.tagName}.${el.className}`),
    }));
    expect(overflow).toEqual({ page: 0, wide: [] });
    await phone.close();
  });

  it("allows the refused site in one click; the widget shows there and answers", async () => {
    await owner.getByRole("button", { name: `Allow ${shop.origin}` }).click();
    await owner.getByTestId("refused-origins").waitFor({ state: "detached" });
    const allowed = owner.getByTestId("allowed-origins");
    expect(await allowed.textContent()).toContain(shop.origin);

    await visitor.reload();
    await expect.poll(() => launcherShown(visitor), { timeout: 10_000 }).toBe(true);
    const root = visitor.locator("lore-widget");
    await root.locator('[data-lore="launcher"]').click();
    await root.locator('[data-lore="input"]').fill("How fast do orders ship?");
    await root.locator('[data-lore="input"]').press("Enter");
    const answer = root.locator('[data-lore="message"][data-role="assistant"][data-status="complete"]');
    await answer.waitFor({ timeout: 20_000 });
    expect(await answer.textContent()).toContain("two business days");
    expect(visitorProblems.pageErrors).toEqual([]);

    // The console now says when the widget was last seen on that site.
    await expect
      .poll(async () => allowed.locator("li", { hasText: shop.origin }).textContent(), { timeout: 15_000 })
      .toMatch(/just now|second|minute/);
  });

  it("connects a model: the fake server's models load and one answers a Test", async () => {
    await owner.getByRole("link", { name: "Model" }).click();
    await owner.getByRole("heading", { name: "Language model", level: 1 }).waitFor();
    await owner.getByLabel("An OpenAI-compatible server").check();
    await owner.getByLabel("Server URL").fill(fake.url);
    await owner.getByLabel("API key").fill(KEY);
    await owner.getByRole("button", { name: "Save model server" }).click();
    await owner.getByText("Stored encrypted: sk-loca…-key. Leave empty to keep it.").waitFor();
    await owner.getByRole("button", { name: "Load the models" }).click();
    await owner.getByText("1 model: pick one in an agent's Settings.").waitFor();
    await owner.getByRole("button", { name: "Test" }).click();
    await owner.getByTestId("test-answer").waitFor();
    expect(await owner.getByTestId("test-answer").textContent()).toContain("Hello from the fake model.");
    expect(await runAxe(owner)).toEqual([]);
    await owner.setViewportSize({ width: 375, height: 740 });
    expect(await overflowOf(owner)).toBeLessThanOrEqual(0);
    await owner.setViewportSize({ width: 1280, height: 900 });
    await owner.getByRole("link", { name: "Lore console" }).click();
    await owner.getByRole("heading", { name: "Shop helper", level: 1 }).waitFor();
  });

  it("gives the launcher a label and a greeting, the model and a contact form from Settings", async () => {
    await owner.getByRole("tab", { name: "Settings" }).click();
    const model = owner.getByLabel("Answers written by");
    await expect
      .poll(() =>
        model.locator("option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
      )
      .toContain("openai:fake-chat");
    await model.selectOption("openai:fake-chat");
    await owner.getByLabel("Way out for visitors").selectOption("form");
    await owner.getByLabel("Launcher label").fill("Ask us");
    await owner.getByLabel("Greeting").fill("Questions about delivery? Ask me.");
    await owner.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => owner.getByRole("status").first().textContent()).toContain("Saved.");
    expect(await runAxe(owner)).toEqual([]);

    // A new visitor (the first one opened the chat this visit, which ends the greeting for them).
    const { page } = await openPage(browser);
    await page.goto(`${shop.origin}/`);
    const root = page.locator("lore-widget");
    await expect.poll(() => root.locator('[data-lore="launcher"]').textContent()).toBe("Ask us");
    await root.locator('[data-lore="greeting"]').waitFor();
    expect(await root.locator('[data-lore="greeting"]').textContent()).toContain(
      "Questions about delivery? Ask me.",
    );
    await page.context().close();
    await owner.getByRole("tab", { name: "Embed" }).click();
  });

  it("allows a second site by typing its bare host", async () => {
    const host = blog.origin.replace("http://", "");
    await owner.getByLabel("Site address").fill("127.0.0.1/blog");
    await owner.getByRole("button", { name: "Allow site" }).click();
    await expect
      .poll(() => owner.locator(".site-origins .field-error").textContent())
      .toMatch(/without a path/);
    await owner.getByLabel("Site address").fill(host);
    await owner.getByRole("button", { name: "Allow site" }).click();
    const allowed = owner.getByTestId("allowed-origins");
    await allowed.locator("li", { hasText: blog.origin }).waitFor();
    expect(await allowed.locator("li", { hasText: blog.origin }).textContent()).toContain("not yet");

    blog.set("/", { body: hostPage("Our blog") });
    const { page } = await openPage(browser);
    await page.goto(`${blog.origin}/`);
    await expect.poll(() => launcherShown(page), { timeout: 10_000 }).toBe(true);
    await page.context().close();
  });

  it("adds the website as a source, then edits its settings and syncs it again", async () => {
    await owner.getByRole("tab", { name: "Sources" }).click();
    const form = owner.locator("form.add-source");
    await form.getByLabel("Name", { exact: true }).fill("Help site");
    await form.getByLabel("Web address").check();
    await form.getByLabel("Address", { exact: true }).fill(`${site.url}/`);
    await form.getByRole("button", { name: "Add source" }).click();
    const row = owner.locator(".source-row", { hasText: "Help site" });
    await row.locator('.badge[data-status="ready"]').waitFor({ timeout: 60_000 });

    await row.getByText("Settings", { exact: true }).click();
    const settings = row.getByRole("form", { name: "Settings of Help site" });
    await settings.getByLabel("Name", { exact: true }).fill("Help docs");
    await settings.getByLabel("Only pages matching (one per line)").fill("/docs/**");
    await settings.getByLabel("At most this many pages").fill("5");
    expect(await runAxe(owner)).toEqual([]);
    await settings.getByRole("button", { name: "Save and sync" }).click();
    await owner.getByText("Saved. A sync with the new settings is queued.").waitFor();
    const renamed = owner.locator(".source-row", { hasText: "Help docs" });
    await renamed.locator('.badge[data-status="ready"]').waitFor({ timeout: 60_000 });
    const saved = [...server.services.store.dataSources.all()].find((s) => s.name === "Help docs");
    expect(saved?.config).toMatchObject({ include: ["/docs/**"], maxPages: 5 });
  });

  it("invites a second person, who gets the link by e-mail, sets a password and logs in", async () => {
    await owner.getByRole("link", { name: "Members" }).click();
    await owner.getByLabel("Email").fill(NEWCOMER);
    await owner.getByRole("button", { name: "Invite" }).click();
    const sent = owner.locator(".invite-sent");
    await sent.waitFor();
    expect(await sent.textContent()).toContain("It was e-mailed to them with this link.");
    expect(await runAxe(owner)).toEqual([]);
    const mail = await smtp.waitForMail(
      (m) => m.to.includes(NEWCOMER),
      "the invitation on the local SMTP server",
    );
    const link =
      mail.text.split(/\r?\n/).find((line) => /\/console\/#\/invitations\/[\w-]+$/.test(line)) ?? "";
    expect(link).toBe(await sent.getByLabel(`Invitation link for ${NEWCOMER}`).inputValue());

    // The newcomer, on a phone, opens the e-mail's link logged out.
    const { page: newcomer, problems } = await openPage(browser, { viewport: { width: 375, height: 740 } });
    await newcomer.goto(link);
    await newcomer.getByRole("heading", { name: /^Join .+'s workspace$/ }).waitFor();
    expect(await runAxe(newcomer)).toEqual([]);
    expect(await overflowOf(newcomer)).toBeLessThanOrEqual(0);
    await newcomer.getByLabel("First name").fill("Nia");
    await newcomer.getByLabel("Choose a password").fill(PASSWORD);
    await newcomer.getByRole("button", { name: /^Join / }).click();
    await newcomer.getByRole("heading", { name: "Shop helper", level: 1 }).waitFor({ timeout: 15_000 });
    expect(await newcomer.locator(".who").textContent()).toBe(NEWCOMER);
    await newcomer.getByRole("button", { name: "Log out" }).click();
    await newcomer.getByLabel("Email").fill(NEWCOMER);
    await newcomer.getByLabel("Password").fill(PASSWORD);
    await newcomer.getByRole("button", { name: "Log in" }).click();
    await newcomer.getByRole("heading", { name: "Shop helper", level: 1 }).waitFor({ timeout: 15_000 });
    expect(problems.pageErrors).toEqual([]);
    await newcomer.context().close();
  });

  it("takes a visitor's contact request from the widget: badge and e-mail for the owner", async () => {
    // The visitor asks with the model now writing the answers, then asks for a person.
    await visitor.reload();
    const root = visitor.locator("lore-widget");
    await root.locator('[data-lore="launcher"]').click();
    await root.locator('[data-lore="input"]').fill(QUESTION);
    await root.locator('[data-lore="input"]').press("Enter");
    await root.locator('[data-lore="message"][data-role="user"]', { hasText: QUESTION }).waitFor();
    const last = root.locator('[data-lore="message"]').last();
    await expect
      .poll(async () => [await last.getAttribute("data-role"), await last.getAttribute("data-status")], {
        timeout: 20_000,
      })
      .toEqual(["assistant", "complete"]);
    // The connected model wrote it: the question reached the fake model server, with the stored key.
    const toModel = fake.requests.filter((r) => r.headers.authorization === `Bearer ${KEY}`);
    expect(
      toModel.some((r) => r.path.endsWith("/chat/completions") && JSON.stringify(r.body).includes(QUESTION)),
    ).toBe(true);
    await root.locator('[data-lore="menu-contact"]').click();
    const form = root.locator('[data-lore="contact-form"]');
    await form.waitFor();
    await form.locator('input[name="email"]').fill("ana@example.org");
    await form.locator('textarea[name="message"]').fill(REQUEST);
    await form.locator('[data-lore="contact-send"]').click();
    await root.locator('[data-lore="contact-sent"]').waitFor();
    expect(visitorProblems.pageErrors).toEqual([]);

    // The owner goes back to the console's start (a new page load): the agent carries a badge, and
    // the request was e-mailed to them.
    await owner.getByRole("link", { name: "Lore console" }).click();
    const badge = owner.locator(".sidebar [data-testid=requests-badge]");
    await badge.waitFor({ timeout: 15_000 });
    expect(await badge.textContent()).toBe("1 open contact request");
    const mail = await smtp.waitForMail(
      (m) => m.data.includes("ana@example.org"),
      "the owner's notice on the local SMTP server",
    );
    expect(mail.to).toEqual(["admin@example.com"]);
    expect(mail.text).toContain(QUESTION);

    await owner.getByRole("tab", { name: /Conversations/ }).click();
    expect(await owner.getByTestId("requests-notice").textContent()).toContain(
      "1 open contact request: a visitor is waiting.",
    );
    expect(await runAxe(owner)).toEqual([]);
  });

  it("keeps the contact request open through a correction of the answer", async () => {
    await owner.getByRole("button", { name: "Show contact requests" }).click();
    // The visitor's one conversation (their first question, then this one): it carries the request.
    await owner.getByText("1 conversation", { exact: true }).waitFor();
    await owner.locator(".conv-row").getByRole("link").click();
    const answer = owner.locator(".msg-assistant").last();
    await answer.getByRole("button", { name: "Correct this answer" }).click();
    const form = answer.getByRole("form", { name: "Correct this answer" });
    await form.getByLabel("Answer").fill("Yes: we ship to Iceland in five to seven business days.");
    expect(await runAxe(owner)).toEqual([]);
    await form.getByRole("button", { name: "Save correction" }).click();
    await answer.getByText("Correction saved").waitFor();
    expect(await owner.locator(".handoff").getAttribute("data-status")).toBe("open");
    await owner.setViewportSize({ width: 375, height: 740 });
    expect(await overflowOf(owner)).toBeLessThanOrEqual(0);
    await owner.setViewportSize({ width: 1280, height: 900 });

    await owner.getByRole("link", { name: "← Review queue" }).click();
    expect(await owner.getByLabel("Request status").inputValue()).toBe("open");
    await owner.getByText("1 conversation", { exact: true }).waitFor();
    expect(await owner.locator(".sidebar [data-testid=requests-badge]").textContent()).toBe(
      "1 open contact request",
    );
    // The correction resolved the conversation; the visitor's request is still open.
    await owner.locator(".conv-row").getByRole("link").click();
    await owner.locator(".conv-status[data-status=resolved]").waitFor();
    expect(await owner.locator(".handoff").getAttribute("data-status")).toBe("open");
  });
});
