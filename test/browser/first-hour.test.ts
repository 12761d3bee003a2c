// The site owner's first hour, in Chromium, from an empty data directory: log in to the console,
// create an agent and a text source, paste the snippet on a page of another origin, see the
// console name that site as refused, allow it in one click, and watch the widget answer there.
// The owner only clicks and types; a second site is allowed by typing its bare host.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
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
let shop: HostSite;
let blog: HostSite;
let browser: Browser;
let owner: Page;
let visitor: Page;
let visitorProblems: PageProblems;
let snippet = "";

const FACT = "Orders ship within two business days from our Lisbon warehouse.";

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
  // startTestServer: a fresh temporary data dir, with LORE_ADMIN_EMAIL/PASSWORD set.
  [server, shop, blog, browser] = await Promise.all([
    startTestServer(),
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

  it("gives the launcher a label and a greeting from Settings; the visitor sees both", async () => {
    await owner.getByRole("tab", { name: "Settings" }).click();
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
});
