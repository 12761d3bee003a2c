// Sources managed where they are shown, in Chromium: a text source's entries edited, added and
// removed; an upload source created from a dropped file (its name from the file), a second file
// added through the picker, its section titles shown; axe clean, keyboard reachable, 375 px wide.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll } from "../helpers/dispose.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerAndBrowser } from "../helpers/server-and-browser.ts";
import { openPage, runAxe, signInToConsole, tabTo } from "./browser.ts";

let server: TestServer;
let browser: Browser;
let owner: Page;

const GUIDE =
  "# Kettle\n\n## Filling\n\nFill to MAX.\n\n## Boiling\n\nPress once.\n\n## Descaling\n\nUse vinegar monthly.\n";
const SECOND =
  "# Mugs\n\n## Storage\n\nMugs go on the top shelf.\n\n## Washing\n\nMugs are dishwasher safe.\n";

beforeAll(async () => {
  ({ server, browser } = await startServerAndBrowser({ serves: ["console"] }));
  ({ page: owner } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
});

afterAll(() => closeAll(browser, server));

const entryTitles = () =>
  owner.locator(".entries .entry-title").evaluateAll((els) => els.map((e) => e.textContent));

describe("sources edited in the console", () => {
  it("edits, adds and removes entries of a text source", async () => {
    await signInToConsole(owner, server.url);
    await owner.getByLabel("Agent name").fill("Kitchen helper");
    await owner.getByRole("button", { name: "Create agent" }).click();
    await owner.getByRole("heading", { name: "Kitchen helper", level: 1 }).waitFor();

    const form = owner.locator("form.add-source");
    await form.getByLabel("Name", { exact: true }).fill("Kitchen FAQ");
    await form.getByLabel("Title").fill("Oven");
    await form.getByLabel("Content").fill("The oven preheats in ten minutes.");
    await form.getByRole("button", { name: "Add source" }).click();
    const row = owner.locator(".source-row", { hasText: "Kitchen FAQ" });
    await row.locator('.badge[data-status="ready"]').waitFor({ timeout: 30_000 });
    await row.getByText("Documents and sync history").click();
    await row.locator(".entry-item", { hasText: "Oven" }).waitFor();

    // Edit
    await row.getByRole("button", { name: "Edit Oven" }).click();
    await row.locator(".entry-form textarea").first().fill("The oven preheats in twelve minutes.");
    await row.getByRole("button", { name: "Save entry" }).click();
    await row.getByText("The oven preheats in twelve minutes.").waitFor();
    // Add
    await row.getByText("Add an entry").click();
    const add = row.locator(".new-entry");
    await add.getByLabel("Title").fill("Fridge");
    await add.getByLabel("Content").fill("The fridge is set to four degrees.");
    await add.getByRole("button", { name: "Add entry" }).click();
    await row.locator(".entry-item", { hasText: "Fridge" }).waitFor();
    expect(await entryTitles()).toEqual(["Oven", "Fridge"]);
    // Search narrows the list
    await row.getByLabel("Search entries").fill("fridge");
    expect(await entryTitles()).toEqual(["Fridge"]);
    await row.getByLabel("Search entries").fill("");
    // Remove
    owner.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: "Remove Oven" }).click();
    await expect.poll(entryTitles).toEqual(["Fridge"]);

    const source = [...server.services.store.dataSources.all()].find((s) => s.name === "Kitchen FAQ");
    const stored = server.services.sources.entryList(server.services.sources.get(source?.id ?? ""));
    expect(stored.map((e) => e.title)).toEqual(["Fridge"]);
  });

  it("creates an upload source from a dropped file, adds a second by the picker, shows sections", async () => {
    const form = owner.locator("form.add-source");
    await form.getByText("Upload files").click();
    await expect
      .poll(() => form.locator(".drop-zone .hint").textContent())
      .toMatch(/Up to .* per upload: .*\.md/);
    // Drop a file onto the form's file area.
    const zone = await form.locator(".drop-zone").elementHandle();
    const transfer = await owner.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], "kettle-guide.md", { type: "text/markdown" }));
      return dt;
    }, GUIDE);
    await zone?.dispatchEvent("dragover", { dataTransfer: transfer });
    await zone?.dispatchEvent("drop", { dataTransfer: transfer });
    expect(await form.getByLabel("Name", { exact: true }).inputValue()).toBe("kettle-guide");
    await form.getByRole("button", { name: "Add source" }).click();
    const row = owner.locator(".source-row", { hasText: "kettle-guide" });
    await row.locator('.badge[data-status="ready"]').waitFor({ timeout: 30_000 });
    await row.getByText("Documents and sync history").click();
    const sections = row.locator("ul.sections li");
    await expect
      .poll(() => sections.allTextContents())
      .toEqual(["Kettle > Filling", "Kettle > Boiling", "Kettle > Descaling"]);

    await row.getByLabel("Add files (or drop them here)").setInputFiles({
      name: "mugs.md",
      mimeType: "text/markdown",
      buffer: Buffer.from(SECOND),
    });
    await expect
      .poll(() => sections.allTextContents(), { timeout: 30_000 })
      .toEqual([
        "Kettle > Filling",
        "Kettle > Boiling",
        "Kettle > Descaling",
        "Mugs > Storage",
        "Mugs > Washing",
      ]);
  });

  it("is axe clean, keyboard reachable and fits 375 px", async () => {
    expect(await runAxe(owner)).toEqual([]);
    await tabTo(owner, owner.getByRole("button", { name: "Edit Fridge" }));
    await tabTo(owner, owner.getByLabel("Add files (or drop them here)"));
    await owner.setViewportSize({ width: 375, height: 740 });
    const overflow = await owner.evaluate(() => ({
      page: document.documentElement.scrollWidth - window.innerWidth,
      // The documents table (with its sections) scrolls inside its own box, like every console table.
      wide: [...document.querySelectorAll(".entries *, .file-tools *")]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map((el) => `${el.tagName}.${el.className}`),
    }));
    expect(overflow).toEqual({ page: 0, wide: [] });
  });
});
