// The README's own two-article help center, asked the way a visitor would: each question is answered
// from the right article (its fact quoted, that article cited first), and a question the two articles
// do not answer gets the fallback.
import type { Agent, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agent: Agent;

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  // Exactly the entries of the README's quick start.
  const source = await readyTextSource(server, token, "Help center", [
    {
      title: "Refunds",
      content:
        "Refunds are issued within 14 days of purchase. Email billing@example.com with your order number.",
    },
    {
      title: "Shipping",
      content: "Standard shipping takes 5 to 7 business days; express shipping takes 2 days.",
    },
  ]);
  agent = await createAgent(server, token, { name: "Support", dataSourceIds: [source.id] });
});

afterAll(async () => {
  await server?.close();
});

const ask = (message: string) =>
  call<QueryResponse>(server, "POST", `/agents/${agent.id}/query/`, token, { message });

describe("the README's two-article example", () => {
  it.each([
    ["How long do refunds take?", "Refunds", "14 days"],
    ["how fast is express shipping?", "Shipping", "express shipping takes 2 days"],
    ["Can I get my money back?", "Refunds", "Refunds are issued"],
  ])("answers %j from the %s article", async (question, title, fact) => {
    const { status, body } = await ask(question);
    expect(status).toBe(200);
    expect(body.response).toContain(fact);
    expect(body.sources[0]?.title).toBe(title);
    // Stated, not offered with a doubt: the default policy answers these.
    expect(body.outcome, `confidence ${body.confidence}`).toBe("answered");
    expect(body.response).not.toMatch(/not sure/);
  });

  it("answers a question neither article covers with the fallback", async () => {
    const { body } = await ask("Do you have a store in Paris?");
    expect(body.response).toBe(agent.fallbackMessage);
    expect(body.sources).toEqual([]);
    expect(body.outcome).toBe("fallback");
  });
});
