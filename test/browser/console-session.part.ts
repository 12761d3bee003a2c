// The console remembers and covers the API (issue #31, item 5), in real Chromium against the real
// server: one session shared by the tabs of a browser (an HttpOnly cookie, no token in web storage),
// an expired access token renewed from the cookie, logout in one tab ending every tab; the members
// and invitations screens (invite, change role, remove, revoke, accept by link); and the phone
// layout with the agent picker in a compact header.
import type { Agent, Page as ApiPage, Member } from "@lore/shared";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  DEFAULT_PASSWORD,
  startTestServer,
  type TestServer,
} from "../helpers/server.ts";
import { ensureConsoleBuilt, launchBrowser, openPage, type PageProblems, runAxe, tabTo } from "./browser.ts";

/** Access tokens live 4 s here, so the console has to renew them from the cookie while in use. */
const ACCESS_TTL_S = 4;
const TEAMMATE = "teammate@example.com";

let server: TestServer;
let browser: Browser;
let page: Page;
let problems: PageProblems;
let context: BrowserContext;
let workspaceId: string;
let adminToken: string;

beforeAll(async () => {
  ensureConsoleBuilt();
  [server, browser] = await Promise.all([
    startTestServer({ LORE_ACCESS_TOKEN_TTL: String(ACCESS_TTL_S) }),
    launchBrowser(),
  ]);
  ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
  context = page.context();
  const login = await server.login();
  adminToken = login.access;
  for (const name of ["Support bot", "Sales bot"]) {
    const res = await server.request<Agent>("POST", "/agents/", { token: adminToken, body: { name } });
    workspaceId = res.body.workspaceId;
  }
  await server.createUser(TEAMMATE);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Every value in the page's localStorage and sessionStorage, joined. */
const webStorage = (p: Page) => p.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));

async function logIn(p: Page, email: string, password: string, at = "/console/"): Promise<void> {
  await p.goto(`${server.url}${at}`);
  await p.getByLabel("Email").fill(email);
  await p.getByLabel("Password").fill(password);
  await p.getByRole("button", { name: "Log in" }).click();
  await p.getByRole("button", { name: "Log out" }).waitFor();
}

async function membersOf(): Promise<Member[]> {
  const { access } = await server.login();
  const res = await server.request<ApiPage<Member>>("GET", `/workspaces/${workspaceId}/members/`, {
    token: access,
  });
  return res.body.results;
}

describe("one session for every tab", () => {
  it("logs in once; a second tab of the same browser is signed in too, and no script can read a token", async () => {
    await logIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.locator("#agent-title").waitFor();
    const second = await context.newPage();
    await second.goto(`${server.url}/console/`);
    await second.getByRole("button", { name: "Log out" }).waitFor();
    expect(await second.locator(".who").textContent()).toBe(ADMIN_EMAIL);
    expect(await second.getByLabel("Password").count()).toBe(0);
    for (const p of [page, second]) {
      expect(await webStorage(p)).not.toMatch(/eyJ/);
      expect(await p.evaluate(() => document.cookie)).not.toContain("lore_session");
    }
    const [cookie] = (await context.cookies()).filter((c) => c.name === "lore_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/api/auth/session/" });
    await second.close();
  });

  it("keeps working after the access token expires: a new one comes from the cookie", async () => {
    await page.waitForTimeout((ACCESS_TTL_S + 1) * 1000);
    const renewed = page.waitForResponse(
      (r) => r.url().endsWith("/auth/session/refresh/") && r.status() === 200,
    );
    await page.getByRole("link", { name: "Members" }).click();
    await renewed;
    await page.getByRole("heading", { name: "Members", level: 1 }).waitFor();
    expect(await page.getByLabel("Password").count()).toBe(0);
  });

  it("logging out in one tab signs out the others and the next tab asks to log in", async () => {
    const other = await context.newPage();
    await other.goto(`${server.url}/console/`);
    await other.getByRole("button", { name: "Log out" }).waitFor();
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in to Lore" }).waitFor();
    await other.getByRole("heading", { name: "Log in to Lore" }).waitFor();
    expect(await other.getByText("You logged out in another tab.").count()).toBe(1);
    const fresh = await context.newPage();
    await fresh.goto(`${server.url}/console/`);
    await fresh.getByRole("heading", { name: "Log in to Lore" }).waitFor();
    await Promise.all([other.close(), fresh.close()]);
  });

  it("a login right after logging out stays signed in, though the logout was still on its way", async () => {
    await logIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    // A slow network holds the logout; it revokes every token of the user when it arrives.
    let released = false;
    await page.route("**/auth/session/logout/", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      released = true;
      await route.continue();
    });
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("button", { name: "Log out" }).waitFor();
    await expect.poll(() => released, { timeout: 10_000 }).toBe(true);
    await page.unroute("**/auth/session/logout/");
    // Still signed in after the logout's arrival: the next screen loads, no "session ended".
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByRole("heading", { name: "Members", level: 1 }).waitFor();
    expect(await page.getByLabel("Password").count()).toBe(0);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in to Lore" }).waitFor();
  });
});

describe("members and invitations", () => {
  let invitationLink = "";

  beforeAll(async () => {
    await logIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    page.on("dialog", (dialog) => void dialog.accept());
  });

  it("invites by e-mail and role, and shows the link to send", async () => {
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByRole("heading", { name: "Members", level: 1 }).waitFor();
    const form = page.locator("form", { hasText: "Invite someone" });
    await form.getByLabel("Email").fill(TEAMMATE);
    await form.getByLabel("Role").selectOption("editor");
    await form.getByRole("button", { name: "Invite" }).click();
    const link = page.getByRole("textbox", { name: `Invitation link for ${TEAMMATE}` }).first();
    await link.waitFor();
    invitationLink = await link.inputValue();
    expect(invitationLink).toMatch(new RegExp(`^${server.url}/console/#/invitations/[0-9a-f-]{36}$`));
    const pending = page.locator(".member-row", { hasText: TEAMMATE });
    expect(await pending.textContent()).toContain("as editor");
  });

  it("refuses a second invitation to the same e-mail with the API's message beside the form", async () => {
    const form = page.locator("form", { hasText: "Invite someone" });
    await form.getByLabel("Email").fill(TEAMMATE);
    await form.getByRole("button", { name: "Invite" }).click();
    await expect.poll(() => form.locator(".form-error").textContent()).toMatch(/\S/);
  });

  it("revokes an invitation", async () => {
    const form = page.locator("form", { hasText: "Invite someone" });
    await form.getByLabel("Email").fill("nobody@example.com");
    await form.getByRole("button", { name: "Invite" }).click();
    const row = page.locator(".member-row", { hasText: "nobody@example.com" });
    await row.waitFor();
    await row.getByRole("button", { name: "Revoke the invitation to nobody@example.com" }).click();
    await page.getByText("The invitation to nobody@example.com was revoked.").waitFor();
    await row.waitFor({ state: "detached" });
    const res = await server.request<ApiPage<{ email: string }>>(
      "GET",
      `/workspaces/${workspaceId}/invitations/`,
      {
        token: (await server.login()).access,
      },
    );
    expect(res.body.results.map((i) => i.email)).toEqual([TEAMMATE]);
  });

  it("is accessible and reachable by keyboard", async () => {
    expect(await runAxe(page)).toEqual([]);
    await page.getByRole("heading", { name: "Members", level: 1 }).click();
    await tabTo(
      page,
      page.locator("form", { hasText: "Invite someone" }).getByRole("button", { name: "Invite" }),
    );
    await tabTo(page, page.getByRole("button", { name: `Revoke the invitation to ${TEAMMATE}` }));
  });

  it("the invitee opens the link, logs in and accepts it", async () => {
    const { page: invitee, problems: inviteeProblems } = await openPage(browser, {
      viewport: { width: 1280, height: 900 },
    });
    const path = new URL(invitationLink);
    await logIn(invitee, TEAMMATE, DEFAULT_PASSWORD, `${path.pathname}${path.hash}`);
    await invitee.getByText(`${ADMIN_EMAIL} invited you to join`).waitFor();
    expect(await runAxe(invitee)).toEqual([]);
    await tabTo(invitee, invitee.getByRole("button", { name: "Accept" }));
    await invitee.keyboard.press("Enter");
    await invitee.getByText(/^You joined .+ as editor\.$/).waitFor();
    // The accepted workspace's agents are there.
    await invitee.getByRole("link", { name: "Go to your agents" }).click();
    await invitee.getByRole("link", { name: "Support bot" }).waitFor();
    expect(inviteeProblems.pageErrors).toEqual([]);
    await invitee.context().close();
    expect((await membersOf()).find((m) => m.email === TEAMMATE)?.role).toBe("editor");
  });

  it("changes the member's role and removes them", async () => {
    await page.reload();
    const row = page.locator(".member-row", { hasText: TEAMMATE });
    await row.getByRole("combobox", { name: `Role of ${TEAMMATE}` }).selectOption("viewer");
    await page.getByText(`${TEAMMATE} is now viewer.`).waitFor();
    expect((await membersOf()).find((m) => m.email === TEAMMATE)?.role).toBe("viewer");
    await row.getByRole("button", { name: `Remove ${TEAMMATE}` }).click();
    await page.getByText(`${TEAMMATE} was removed.`).waitFor();
    await row.waitFor({ state: "detached" });
    expect((await membersOf()).map((m) => m.email)).toEqual([ADMIN_EMAIL]);
  });

  it("shows why the last owner cannot be demoted and puts the role back", async () => {
    const own = page.getByRole("combobox", { name: `Role of ${ADMIN_EMAIL}` });
    await own.selectOption("admin");
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/owner/i);
    await expect.poll(() => own.inputValue()).toBe("owner");
    expect((await membersOf()).find((m) => m.email === ADMIN_EMAIL)?.role).toBe("owner");
  });

  it("an invitation link for someone else explains itself", async () => {
    await page.goto(`${server.url}/console/#/invitations/00000000-0000-4000-8000-000000000000`);
    await page.getByText("There is no pending invitation here for").waitFor();
    expect(problems.pageErrors).toEqual([]);
  });
});

describe("the console at 375 px", () => {
  let phone: Page;

  beforeAll(async () => {
    ({ page: phone } = await openPage(browser, {
      viewport: { width: 375, height: 740 },
      isMobile: true,
      hasTouch: true,
    }));
    await logIn(phone, ADMIN_EMAIL, ADMIN_PASSWORD);
  });

  const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  it("puts the agent picker in a compact header instead of the agents list", async () => {
    const picker = phone.getByRole("combobox", { name: "Agent" });
    await picker.waitFor();
    await phone.getByRole("tablist").waitFor();
    expect(await phone.locator(".sidebar").count()).toBe(0);
    const box = await phone.getByRole("navigation", { name: "Agents" }).boundingBox();
    expect(box?.height).toBeLessThan(80);
    // The agent's own heading starts in the top quarter of the screen.
    const heading = await phone.locator("#agent-title").boundingBox();
    expect(heading?.y).toBeLessThan(740 / 4);
    expect(await overflow()).toBe(0);
    expect(await runAxe(phone)).toEqual([]);
  });

  it("switches agents from the picker, by keyboard too", async () => {
    const picker = phone.getByRole("combobox", { name: "Agent" });
    await picker.selectOption({ label: "Sales bot" });
    await phone.getByRole("heading", { name: "Sales bot", level: 1 }).waitFor();
    await tabTo(phone, picker);
    await tabTo(phone, phone.locator(".agent-picker-new > summary"));
    await phone.keyboard.press("Enter");
    await phone.getByLabel("Agent name").fill("Phone bot");
    await phone.getByRole("button", { name: "Create agent" }).click();
    await phone.getByRole("heading", { name: "Phone bot", level: 1 }).waitFor();
    expect(await overflow()).toBe(0);
  });

  it("shows the members screen without sideways scrolling", async () => {
    await phone.getByRole("link", { name: "Members" }).click();
    await phone.getByRole("heading", { name: "Members", level: 1 }).waitFor();
    await phone.locator(".member-row").first().waitFor();
    expect(await overflow()).toBe(0);
    expect(await runAxe(phone)).toEqual([]);
  });
});
