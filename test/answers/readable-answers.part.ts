// Issue #29 item 2, the walk-through on a 10-entry shop FAQ over a real server: what a visitor reads
// is the answer, not a heading glued onto it, not sentences of other articles, a procedure as a list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walkthroughEntries } from "../fixtures/shop-corpus.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { askShop, type ShopAgent } from "./shop-agent.ts";

let shop: ShopAgent;

beforeAll(async () => {
  const { server, token, agent } = await startServerWithAgent({
    source: { name: "Shop FAQ", entries: walkthroughEntries },
    agent: { name: "Shop" },
  });
  shop = { server, token, agent };
});

afterAll(async () => {
  await shop?.server.close();
});

describe("answers that read as answers (the walk-through)", () => {
  it("answers a returns question from the Returns article alone, with nothing appended from elsewhere", async () => {
    const body = await askShop(shop, "Can I return an opened item?");
    expect(body.response).toContain("Returned items must be unused");
    expect(body.sources.map((s) => s.title)).toEqual(["Returns"]);
    expect(body.response).not.toMatch(/store|shipping|warranty|battery/i);
  });

  it("gives the phone number from the Contact article, which the widget turns into a tel: link", async () => {
    const body = await askShop(shop, "Do you have a phone number?");
    expect(body.response).toContain("+31 20 123 4567");
    // Stated or offered with a doubt (then with further articles that may help), it cites Contact first.
    expect(body.sources[0]?.title).toBe("Contact");
  });

  it("keeps the installation procedure a numbered list and never glues its heading onto the text", async () => {
    const body = await askShop(shop, "How do I install the Acme Widget Pro?");
    expect(body.response).not.toContain("Installing the Acme Widget Pro");
    expect(body.response).toMatch(/^1\. Fix the mounting plate.*\n2\. Click the Widget Pro.*\n3\. Plug in/m);
    expect(body.response).not.toMatch(/Wipe|battery/i);
    expect(body.sources.map((s) => s.title)).toEqual(["Acme Widget Pro"]);
  });

  it("answers from the section under a heading without quoting the heading", async () => {
    const body = await askShop(shop, "How do I clean the Widget Pro?");
    expect(body.response).toMatch(/^Wipe the Widget Pro with a dry cloth\./);
    expect(body.response).not.toMatch(/Cleaning Wipe|mounting plate/);
  });
});
