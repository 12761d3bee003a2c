// Issue #52 item 1, in Chromium: the owner connects a model from the console (no environment
// variable): an OpenAI-compatible server (the protocol-faithful fake on loopback), its key stored
// encrypted, its models fetched from it, a Test that shows the answer or the server's own error,
// and an agent that then answers with the model chosen in its Settings.
import type { Agent, ModelProvider, WidgetQueryResponse } from "@lore/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { closeAll } from "../helpers/dispose.ts";
import { httpRequest, type TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { openPage, type PageProblems, runAxe, signInToConsole } from "./browser.ts";

const KEY = "sk-local-4242-secret-key";
const ORIGIN = "https://shop.example";

let fake: FakeOpenAI;
let server: TestServer;
let browser: Browser;
let owner: Page;
let problems: PageProblems;
let agent: Agent;
let token = "";

beforeAll(async () => {
  fake = await startFakeOpenAI({
    apiKey: KEY,
    models: ["fake-chat", "fake-embed"],
    answer: (body) =>
      (body.messages ?? []).some((m) => m.content.includes("five words"))
        ? "Hello from the fake model."
        : "Orders ship from Lisbon within two business days [1].",
  });
  // No LORE_OPENAI_BASE_URL: the model comes from the console. The fake listens on loopback.
  ({ server, browser, token } = await startServerAndBrowser({
    serves: ["console"],
    env: { LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" },
  }));
  const faq = await readyTextSource(server, token, "Shop FAQ", [
    { title: "Shipping", content: "Orders ship within two business days from our Lisbon warehouse." },
  ]);
  agent = await createAgent(server, token, {
    name: "Shop helper",
    dataSourceIds: [faq.id],
    allowedOrigins: [ORIGIN],
  });
});

afterAll(() => closeAll(browser, server, fake));

describe("connecting a model in the console", () => {
  it("refuses a private address outside LORE_OUTBOUND_ALLOWLIST, saying what to do", async () => {
    const workspaceId = agent.workspaceId;
    const res = await server.request<{ error: string; message: string }>(
      "PUT",
      `/workspaces/${workspaceId}/model-provider/`,
      { token, body: { kind: "compatible", baseUrl: "http://10.1.2.3:11434/v1" } },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_error");
    expect(res.body.message).toContain("LORE_OUTBOUND_ALLOWLIST");
  });

  it("shows the server's own error for a wrong key", async () => {
    ({ page: owner, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInToConsole(owner, server.url);
    await owner.getByRole("link", { name: "Model" }).click();
    await owner.getByRole("heading", { name: "Language model", level: 1 }).waitFor();
    await owner.getByLabel("An OpenAI-compatible server").check();
    await owner.getByLabel("Server URL").fill(fake.url);
    await owner.getByLabel("API key").fill("sk-wrong");
    await owner.getByRole("button", { name: "Save model server" }).click();
    await owner.getByText("Saved. Load the models to test one.").waitFor();
    await owner.getByRole("button", { name: "Load the models" }).click();
    const error = owner.locator(".form-error");
    await error.waitFor();
    expect(await error.textContent()).toMatch(/The model server answered 401/);
  });

  it("stores the right key encrypted and shows it masked", async () => {
    await owner.getByLabel("API key").fill(KEY);
    await owner.getByRole("button", { name: "Save model server" }).click();
    await owner.getByText("Stored encrypted: sk-loca…-key. Leave empty to keep it.").waitFor();
    const stored = server.services.store.workspaces.get(agent.workspaceId)?.modelProvider;
    expect(stored?.apiKey).toMatch(/^enc:v1:/);
    expect(JSON.stringify(stored)).not.toContain(KEY);
    const shown = await server.request<ModelProvider>(
      "GET",
      `/workspaces/${agent.workspaceId}/model-provider/`,
      {
        token,
      },
    );
    expect(shown.body).toMatchObject({ kind: "compatible", baseUrl: fake.url, environment: false });
    expect(JSON.stringify(shown.body)).not.toContain(KEY);
  });

  it("lists the server's chat models and tests one with a question", async () => {
    await owner.getByRole("button", { name: "Load the models" }).click();
    await owner.getByText("1 model: pick one in an agent's Settings.").waitFor();
    expect(await owner.getByLabel("Model", { exact: true }).inputValue()).toBe("fake-chat");
    await owner.getByRole("button", { name: "Test" }).click();
    const answer = owner.getByTestId("test-answer");
    await answer.waitFor();
    expect(await answer.textContent()).toContain("Hello from the fake model.");
    expect(fake.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(await runAxe(owner)).toEqual([]);
  });

  it("lets an agent pick the model, which then writes its answers", async () => {
    await owner.goto(`${server.url}/console/#/agents/${agent.id}/settings`);
    const model = owner.getByLabel("Answers written by");
    await expect
      .poll(() =>
        model.locator("option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
      )
      .toEqual(["extractive", "openai:fake-chat"]);
    // The stored choices show (a select has no defaultValue: the first option used to show).
    expect(await owner.getByLabel("When to answer").inputValue()).toBe("balanced");
    await model.selectOption("openai:fake-chat");
    await owner.getByRole("button", { name: "Save settings" }).click();
    await owner.getByText("Saved.").waitFor();
    await owner.reload();
    await expect.poll(() => owner.getByLabel("Answers written by").inputValue()).toBe("openai:fake-chat");
    const asked = await httpRequest<WidgetQueryResponse>(
      server.api,
      "POST",
      `/widget/${agent.widgetId}/query/`,
      {
        body: { message: "Where do orders ship from?" },
        headers: { Origin: ORIGIN },
      },
    );
    expect(asked.status).toBe(200);
    expect(asked.body.response).toContain("Orders ship from Lisbon within two business days");
  });

  it("fits a 375 px phone", async () => {
    await owner.setViewportSize({ width: 375, height: 740 });
    await owner.getByRole("link", { name: "Model" }).click();
    await owner.getByRole("heading", { name: "Language model", level: 1 }).waitFor();
    const overflow = await owner.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  it("ran the console without script errors or CSP violations", () => {
    // The wrong key's 502 is the one error the browser logs, by design of the test.
    expect(problems.consoleErrors.filter((e) => !e.includes("502"))).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
  });
});
