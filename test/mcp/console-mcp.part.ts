// The console's Embed tab in real Chromium: the MCP URL and client configuration it shows work as
// they are, with the SDK's own client and a key made in the console's API keys tab.

import type { Agent } from "@lore/shared";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type PageProblems } from "../browser/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent } from "../ingestion/source-helpers.ts";

let server: TestServer;
let browser: Browser;
let page: Page;
let problems: PageProblems;
let agent: Agent;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  ({ page, problems } = await openPage(browser));
  const token = (await server.login()).access;
  agent = await createAgent(server, token, { name: "Support Desk" });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the console's MCP configuration", () => {
  it("shows the agent's MCP URL and a client configuration that connects once a key is filled in", async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Agents" }).waitFor();

    await page.goto(`${server.url}/console/#/agents/${agent.id}/keys`);
    await page.getByLabel("Key name").fill("MCP client");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator('[data-secret="api-key"]').textContent()) ?? "";
    expect(key).toMatch(/^lore_sk_/);

    await page.getByRole("tab", { name: "Embed" }).click();
    await page.getByRole("heading", { name: "AI agents (MCP)" }).waitFor();
    const url = await page.locator('[data-snippet="mcp-url"]').textContent();
    expect(url).toBe(`${server.api}/agents/${agent.id}/mcp/`);
    const config = JSON.parse((await page.locator('[data-snippet="mcp-config"]').textContent()) ?? "");
    expect(config).toEqual({
      mcpServers: {
        "lore-support-desk": {
          type: "http",
          url,
          headers: { Authorization: "Bearer lore_sk_…" },
        },
      },
    });
    await page.getByRole("button", { name: "Copy configuration" }).waitFor();

    const entry = config.mcpServers["lore-support-desk"];
    const client = new Client({ name: "console-config", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), {
        requestInit: { headers: { Authorization: entry.headers.Authorization.replace("lore_sk_…", key) } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      "ask",
      "list_sources",
      "search",
    ]);
    await client.close();
    expect({ errors: problems.pageErrors, csp: problems.cspViolations }).toEqual({ errors: [], csp: [] });
  });
});
