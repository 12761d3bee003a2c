// Issue #31 item 3 in Chromium: the agent's settings in words a site owner reads. The server has a
// model server (the local fake OpenAI) but no embedding model, so the model is picked from what the
// server lists, and the screen says searches run by keywords even though the agent is set to hybrid.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Agent } from "@lore/shared";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { createAgent } from "../ingestion/source-helpers.ts";
import { openPage, runAxe, signInToConsole } from "./browser.ts";

let fake: FakeOpenAI;
let server: TestServer;
let browser: Browser;
let page: Page;
let token: string;
let agent: Agent;

const fetchAgent = async () => (await server.request<Agent>("GET", `/agents/${agent.id}/`, { token })).body;

beforeAll(async () => {
  fake = await startFakeOpenAI({ models: ["fake-chat", "llama-3.1-8b", "text-embedding-3-small"] });
  // No translation dictionaries compiled: the settings say so (issue #53).
  ({ server, browser, token } = await startServerAndBrowser({
    serves: ["console"],
    env: {
      LORE_OPENAI_BASE_URL: fake.url,
      LORE_DICTIONARIES_DIR: mkdtempSync(join(tmpdir(), "lore-no-dictionaries-")),
    },
  }));
  agent = await createAgent(server, token, { name: "Help desk" });
  // A visitor asks in Spanish before the owner opens the settings.
  await server.request("POST", `/agents/${agent.id}/query/`, {
    token,
    body: { message: "¿Cómo cancelo mi suscripción?" },
  });
  ({ page } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
  await signInToConsole(page, server.url, `#/agents/${agent.id}/settings`);
  await page.getByRole("tab", { name: "Settings" }).click();
  await page.getByRole("button", { name: "Save settings" }).waitFor();
});

afterAll(() => closeAll(browser, server, fake));

describe("agent settings", () => {
  it("labels the everyday settings in plain words, each with a line of help", async () => {
    const form = page.locator("form.settings");
    for (const [label, help] of [
      ["Name", "Shown to visitors at the top of the chat"],
      ["Welcome message", "The first thing visitors read"],
      ["Fallback message", "Said when the knowledge base has nothing relevant."],
      ["When to answer", "How sure the sources must make the assistant"],
      ["Way out for visitors", "Offered with unsure and fallback answers"],
      ["Answers written by", "a model writes answers from them"],
    ] as const) {
      const field = form.locator(".field", { has: page.getByLabel(label, { exact: true }) });
      expect(await field.isVisible(), label).toBe(true);
      expect(await field.textContent(), label).toContain(help);
    }
    // The everyday settings come before the folded retrieval numbers.
    const nameFirst = await form.evaluate((el) => {
      const name = el.querySelector('[name="name"]');
      const advanced = el.querySelector("details.advanced");
      return Boolean(
        name && advanced && name.compareDocumentPosition(advanced) & Node.DOCUMENT_POSITION_FOLLOWING,
      );
    });
    expect(nameFirst).toBe(true);
  });

  it("says no translation dictionary is installed, naming the language visitors asked in", async () => {
    const notice = page.locator("form.settings p.warning", { hasText: "No translation dictionaries" });
    await notice.waitFor();
    expect(await notice.textContent()).toContain("Visitors have asked in Spanish");
  });

  it("picks the model from the list this server offers, and saves it", async () => {
    const model = page.getByLabel("Answers written by");
    await expect
      .poll(() =>
        model.locator("option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
      )
      .toEqual(["extractive", "openai:fake-chat", "openai:llama-3.1-8b"]);
    // Embedding models are not offered for writing answers, and there is no free-text field.
    expect(await page.locator('input[name="model"]').count()).toBe(0);
    expect(await model.inputValue()).toBe("extractive");
    await model.selectOption({ label: "llama-3.1-8b (writes answers from the sources)" });
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await fetchAgent()).model).toBe("openai:llama-3.1-8b");
  });

  it("keeps the retrieval numbers under Advanced, in plain words, and says searches run by keywords", async () => {
    const advanced = page.locator("details.advanced");
    const topK = page.getByLabel("Passages read per question");
    expect(await advanced.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    expect(await topK.isVisible()).toBe(false);
    expect(await page.getByLabel("Closest match required").isVisible()).toBe(false);
    expect(await page.getByLabel("Search by").isVisible()).toBe(false);
    // Folded, the section still says how searches really run: this server has no embedding model.
    expect(await advanced.locator("summary").textContent()).toContain("searches use keywords only");
    // None of the implementation's words.
    const text = await page.locator("form.settings").textContent();
    for (const word of ["Top K", "Chunks", "Minimum score", "BM25", "openai:<model>"]) {
      expect(text).not.toContain(word);
    }

    await advanced.locator("summary").click();
    expect(await topK.isVisible()).toBe(true);
    expect(await advanced.textContent()).toContain("Searches run by keywords only");
    const mode = page.getByLabel("Search by");
    expect(await mode.inputValue()).toBe("hybrid");
    // Meaning-only cannot be chosen without an embedding model; the stored hybrid stays, marked.
    expect(await mode.locator('option[value="semantic"]').isDisabled()).toBe(true);
    expect(await mode.locator('option[value="hybrid"]').textContent()).toContain("needs an embedding model");

    await topK.fill("8");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    const saved = await fetchAgent();
    expect(saved.retrieval.topK).toBe(8);
    expect(saved.effectiveRetrievalMode).toBe("keyword");
    // The screen and the API say the same.
    const models = await server.request<{ embeddings: { available: boolean } }>("GET", "/models/", { token });
    expect(models.body.embeddings.available).toBe(false);
    expect(await runAxe(page)).toEqual([]);
  });

  it("unfolds Advanced to show a retrieval number's error, as a sentence", async () => {
    await page.reload();
    await page.getByRole("button", { name: "Save settings" }).waitFor();
    const advanced = page.locator("details.advanced");
    await advanced.locator("summary").click();
    await page.getByLabel("Passages read per question").fill("99");
    await advanced.locator("summary").click();
    expect(await advanced.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    await page.getByRole("button", { name: "Save settings" }).click();
    const topK = page.getByLabel("Passages read per question");
    await expect.poll(() => topK.getAttribute("aria-invalid")).toBe("true");
    expect(await advanced.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("name")))
      .toBe("retrieval.topK");
    expect(await page.locator(".field", { has: topK }).locator(".field-error").textContent()).toBe(
      "Read at most 50 passages.",
    );
  });

  it("keeps a stored model this server does not offer, marked, instead of changing it", async () => {
    const retired = await createAgent(server, token, { name: "Old desk", model: "openai:retired-model" });
    await page.goto(`${server.url}/console/#/agents/${retired.id}/settings`);
    await page.reload();
    await page.getByRole("button", { name: "Save settings" }).waitFor();
    const model = page.getByLabel("Answers written by");
    await expect.poll(() => model.locator("option").count()).toBe(4);
    expect(await model.inputValue()).toBe("openai:retired-model");
    expect(await model.locator('option[value="openai:retired-model"]').textContent()).toContain(
      "Not available on this server",
    );
    expect(await page.locator(".field", { has: model }).textContent()).toContain(
      "This server does not offer retired-model",
    );
    await page.getByLabel("Welcome message").fill("Hello there.");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved.").waitFor();
    const saved = (await server.request<Agent>("GET", `/agents/${retired.id}/`, { token })).body;
    expect(saved.model).toBe("openai:retired-model");
    expect(saved.welcomeMessage).toBe("Hello there.");
  });

  it("counts the suggested questions checked in words that fit one question", async () => {
    // This agent has no sources, so its one suggested question falls back.
    await page.getByRole("textbox", { name: "Suggested questions" }).fill("When are you open?");
    await page.getByRole("button", { name: "Save settings" }).click();
    const status = page.locator("#checks-title ~ .status");
    await expect
      .poll(() => status.textContent(), { timeout: 20_000 })
      .toBe("Suggested questions that need attention: 1 of 1.");
  });

  it("fits a 375 px screen without scrolling sideways", async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.locator("details.advanced").evaluate((el) => {
      (el as HTMLDetailsElement).open = true;
    });
    expect(await page.getByLabel("Passages read per question").isVisible()).toBe(true);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await runAxe(page)).toEqual([]);
  });
});
