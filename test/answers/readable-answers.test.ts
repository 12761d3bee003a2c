// Issue #29 item 2, the walk-through on a 10-entry shop FAQ over a real server: what a visitor reads
// is the answer, not a heading glued onto it, not sentences of other articles, a procedure as a list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walkthroughEntries } from "../fixtures/shop-corpus.ts";
import { startTestServer } from "../helpers/server.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";
import { askShop, type ShopAgent } from "./shop-agent.ts";

let shop: ShopAgent;

beforeAll(async () => {
  const server = await startTestServer();
  const token = (await server.login()).access;
  const source = await readyTextSource(server, token, "Shop FAQ", walkthroughEntries);
  const agent = await createAgent(server, token, { name: "Shop", dataSourceIds: [source.id] });
  shop = { server, token, agent };
});

afterAll(async () => {
  await shop?.server.close();
});

const print = async (q: string) => {
  const body = await askShop(shop, q);
  console.log(JSON.stringify({ q, response: body.response, sources: body.sources.map((s) => s.title), outcome: (body as {outcome?: string}).outcome }, null, 1));
  return body;
};

describe("answers that read as answers (the walk-through)", () => {
  it("probe", async () => {
    for (const q of ["Can I return an opened item?", "Do you have a phone number?", "What is the meaning of life?", "How do I install the Acme Widget Pro?", "How do I clean the Widget Pro?", "How long does the battery last?"]) await print(q);
  });
});
