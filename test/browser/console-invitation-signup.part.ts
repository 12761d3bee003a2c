// Issue #52 item 4, in Chromium: an invitation that finishes. The owner invites a new person and
// copies the link; the link opens (logged out) on a page naming the workspace, where the person sets
// a name and password and lands in the workspace, then logs in again with that password.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe, signInToConsole } from "./browser.ts";

const NEWCOMER = "nia@example.org";
const PASSWORD = "lantern-orchard-42";

let server: TestServer;
let browser: Browser;
let token = "";
let owner: Page;
let newcomer: Page;
let newcomerProblems: PageProblems;
let link = "";

beforeAll(async () => {
  ({ server, browser, token } = await startServerAndBrowser({ serves: ["console"] }));
  await createAgent(server, token, { name: "Team helper" });
});

afterAll(() => closeAll(browser, server));

describe("an invitation to someone without an account", () => {
  it("gives the owner a link with a copy button", async () => {
    ({ page: owner } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await owner.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await signInToConsole(owner, server.url);
    await owner.getByRole("link", { name: "Members" }).click();
    await owner.getByLabel("Email").fill(NEWCOMER);
    await owner.getByRole("button", { name: "Invite" }).click();
    // This server has no SMTP settings: the console says the link is the owner's to send.
    expect(await owner.locator(".invite-sent").textContent()).toContain(
      "This server sends no e-mail (LORE_SMTP_URL is not set): send them this link.",
    );
    const copy = owner.locator(".invite-sent").getByRole("button", { name: `Copy the link for ${NEWCOMER}` });
    await copy.click();
    await owner.locator(".invite-sent").getByText("Copied to the clipboard.").waitFor();
    link = await owner.evaluate(() => navigator.clipboard.readText());
    expect(link).toMatch(/\/console\/#\/invitations\/[\w-]+$/);
  });

  it("opens, logged out, on a page where the newcomer sets a name and password", async () => {
    ({ page: newcomer, problems: newcomerProblems } = await openPage(browser, {
      viewport: { width: 375, height: 740 },
    }));
    await newcomer.goto(link);
    await newcomer.getByRole("heading", { name: /^Join .+'s workspace$/ }).waitFor();
    expect(await newcomer.locator(".invitation").textContent()).toContain(`invited ${NEWCOMER}`);
    expect(await runAxe(newcomer)).toEqual([]);
    const overflow = await newcomer.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // The password policy speaks first.
    await newcomer.getByLabel("First name").fill("Nia");
    await newcomer.getByLabel("Choose a password").fill("short");
    await newcomer.getByRole("button", { name: /^Join / }).click();
    await newcomer.locator(".field-error").first().waitFor();
    await newcomer.getByLabel("Choose a password").fill(PASSWORD);
    await newcomer.getByLabel("Choose a password").press("Enter");
    // Lands in the workspace: its agent, signed in as the newcomer.
    await newcomer.getByRole("heading", { name: "Team helper", level: 1 }).waitFor({ timeout: 15_000 });
    expect(await newcomer.locator(".who").textContent()).toBe(NEWCOMER);
  });

  it("logs in again with the password chosen", async () => {
    // The logout request revokes every token of the user: a login sent before it is answered would
    // be revoked too (it was, on a busy machine).
    const loggedOut = newcomer.waitForResponse((res) => res.url().endsWith("/auth/session/logout/"));
    await newcomer.getByRole("button", { name: "Log out" }).click();
    await loggedOut;
    await newcomer.getByLabel("Email").fill(NEWCOMER);
    await newcomer.getByLabel("Password").fill(PASSWORD);
    await newcomer.getByRole("button", { name: "Log in" }).click();
    await newcomer.getByRole("heading", { name: "Team helper", level: 1 }).waitFor({ timeout: 15_000 });
  });

  it("says a used link no longer works", async () => {
    await newcomer.getByRole("button", { name: "Log out" }).click();
    await newcomer.goto(link);
    await newcomer.getByText("This invitation link no longer works").waitFor();
    await newcomer.getByRole("button", { name: "Log in" }).waitFor();
    // The expected 404 of the used link is the only error the browser logs.
    expect(newcomerProblems.consoleErrors.filter((e) => !/404|400/.test(e))).toEqual([]);
    expect(newcomerProblems.pageErrors).toEqual([]);
    expect(newcomerProblems.cspViolations).toEqual([]);
  });
});
