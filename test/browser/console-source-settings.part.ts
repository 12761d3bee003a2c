// Issue #52 item 2, in Chromium: a website source is managed after creation — renamed, its mode,
// page limit, depth, page rules (with a preview of the pages they keep) and schedule changed, saved
// with a new sync — and one page left out from its pages list. The site is the local test site.
import type { DataSource, SyncRun } from "@lore/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fakes/web-site.ts";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, syncRuns, waitForSettled } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe, signInToConsole } from "./browser.ts";

let site: TestSite;
let server: TestServer;
let browser: Browser;
let owner: Page;
let problems: PageProblems;
let token = "";
let source: DataSource;

beforeAll(async () => {
  site = await startTestSite();
  ({ server, browser, token } = await startServerAndBrowser({
    serves: ["console"],
    env: { LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" },
  }));
  const created = await server.request<DataSource>("POST", "/data-sources/", {
    token,
    body: { name: "Test site", type: "web", config: { url: `${site.url}/`, mode: "crawl", maxPages: 20 } },
  });
  expect(created.status).toBe(201);
  source = await waitForSettled(server, token, created.body.id, 60_000);
  expect(source.status).toBe("ready");
  await createAgent(server, token, { name: "Site helper", dataSourceIds: [source.id] });
});

afterAll(() => closeAll(browser, server, site));

const row = () => owner.locator(".source-row", { hasText: "site" });
const fetchSource = async () =>
  (await server.request<DataSource>("GET", `/data-sources/${source.id}/`, { token })).body;

describe("a website source after creation", () => {
  it("previews which pages new rules keep, before saving", async () => {
    ({ page: owner, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInToConsole(owner, server.url);
    await owner.getByRole("heading", { name: "Site helper", level: 1 }).waitFor();
    await owner.getByRole("tab", { name: "Sources" }).click();
    await row().getByText("Settings", { exact: true }).click();
    const form = row().getByRole("form", { name: "Settings of Test site" });
    await form.getByLabel("Only pages matching (one per line)").fill("/docs/**");
    await form.getByRole("button", { name: "Preview the pages these rules keep" }).click();
    const preview = form.getByTestId("rules-preview");
    await preview.waitFor();
    const kept = await preview.locator('[data-list="kept"] li').allTextContents();
    const dropped = await preview.locator('[data-list="dropped"] li').allTextContents();
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((u) => new URL(u).pathname.startsWith("/docs/"))).toBe(true);
    expect(dropped).toContain(`${site.url}/`);
    // Nothing is saved by a preview.
    expect((await fetchSource()).config.include).toEqual([]);
    expect(await runAxe(owner)).toEqual([]);
  });

  it("saves the name, mode, limits, rules and schedule, and syncs again", async () => {
    const runsBefore = (await syncRuns(server, token, source.id)).length;
    const form = row().getByRole("form", { name: "Settings of Test site" });
    await form.getByLabel("Name", { exact: true }).fill("Docs site");
    await form.getByLabel("The pages its sitemap lists").check();
    await form.getByLabel("At most this many pages").fill("7");
    await form.getByLabel("Links followed at most this deep").fill("1");
    await form.getByLabel("Leave out pages matching (one per line)").fill("/docs/configure");
    await form.getByLabel("Sync again").selectOption({ label: "Every day" });
    await form.getByRole("button", { name: "Save and sync" }).click();
    await owner.getByText("Saved. A sync with the new settings is queued.").waitFor();
    const saved = await fetchSource();
    expect(saved.name).toBe("Docs site");
    expect(saved.config).toMatchObject({
      mode: "sitemap",
      maxPages: 7,
      maxDepth: 1,
      include: ["/docs/**"],
      exclude: ["/docs/configure"],
    });
    expect(saved.schedule).toEqual({ intervalMinutes: 1440 });
    await owner.locator(".source-row", { hasText: "Docs site" }).waitFor();
    const runs: SyncRun[] = await syncRuns(server, token, source.id);
    expect(runs.length).toBeGreaterThan(runsBefore);
    await waitForSettled(server, token, source.id, 60_000);
  });

  it("leaves one page out from the source's pages list", async () => {
    const docsRow = owner.locator(".source-row", { hasText: "Docs site" });
    await docsRow.getByText("Pages (leave one out) and sync history").click();
    const leaveOut = docsRow.getByRole("button", { name: /^Leave out Install/ }).first();
    await leaveOut.waitFor({ timeout: 30_000 });
    await leaveOut.click();
    await owner.getByText(/is left out; a sync is queued\./).waitFor();
    const exclude = (await fetchSource()).config.exclude as string[];
    expect(exclude).toContain("/docs/configure");
    expect(exclude.some((rule) => rule.startsWith("/docs/install"))).toBe(true);
  });

  it("says why a website was refused when it synced, and what to do (issue #52)", async () => {
    // The address itself is allowed (127.0.0.1 is in LORE_OUTBOUND_ALLOWLIST); its redirect is not.
    site.setPage("/moved-away", { redirectTo: "http://10.1.2.3/help" });
    const form = owner.locator("form.add-source");
    await form.getByLabel("Name", { exact: true }).fill("Moved site");
    await form.getByLabel("Web address").check();
    await form.getByLabel("Address", { exact: true }).fill(`${site.url}/moved-away`);
    await form.getByRole("button", { name: "Add source" }).click();
    const moved = owner.locator(".source-row", { hasText: "Moved site" });
    await moved.locator('.badge[data-status="failed"]').waitFor({ timeout: 30_000 });
    const error = (await moved.locator(".source-error").textContent()) ?? "";
    expect(error).toContain("redirected to 10.1.2.3/help: Refusing to connect to 10.1.2.3: private address.");
    expect(error).toContain("start Lore with its host or network in LORE_OUTBOUND_ALLOWLIST");
    expect(await owner.getByText(/“Moved site” could not be synced: .*\)\.$/).count()).toBe(1);
    expect(await runAxe(owner)).toEqual([]);
  });

  it("ran the console without script errors or CSP violations", () => {
    expect(problems.consoleErrors).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
  });
});
