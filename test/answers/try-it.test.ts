// Issue #31 item 4: a trial question (`test: true`, what the console's Try it sends) is answered as
// any other, but its conversation is tagged `channel: console`, the review queue leaves it out unless
// asked to include it, and analytics do not count it — not even its follow-ups.
import type { AgentAnalytics, Conversation, Page, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agentId: string;

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  const source = await readyTextSource(server, token, "Handbook", [
    { title: "Vacation policy", content: "Every employee receives 27 days of paid vacation per year." },
  ]);
  agentId = (await createAgent(server, token, { name: "HR", dataSourceIds: [source.id] })).id;
});
afterAll(() => server?.close());

const ask = async (body: Record<string, unknown>) => {
  const res = await call<QueryResponse>(server, "POST", `/agents/${agentId}/query/`, token, body);
  expect(res.status).toBe(200);
  return res.body;
};
const list = async (query = "") =>
  (await call<Page<Conversation>>(server, "GET", `/agents/${agentId}/conversations/${query}`, token)).body;
const queries = async () =>
  (await call<AgentAnalytics>(server, "GET", `/analytics/agents/${agentId}/`, token)).body.totals.queries;

describe("trial questions", () => {
  let visitor: QueryResponse;
  let trial: QueryResponse;

  it("are answered like any question, and tagged", async () => {
    visitor = await ask({ message: "How many vacation days do I get?" });
    trial = await ask({ message: "How many vacation days do employees get?", test: true });
    expect(trial.response).toContain("27 days");
    expect(trial.sources.length).toBeGreaterThan(0);
    const all = await list("?console=include");
    const channels = Object.fromEntries(all.results.map((c) => [c.id, c.channel]));
    expect(channels).toEqual({ [visitor.conversationId]: "api", [trial.conversationId]: "console" });
  });

  it("are left out of the review queue unless asked for", async () => {
    expect((await list()).results.map((c) => c.id)).toEqual([visitor.conversationId]);
    expect((await list("?console=only")).results.map((c) => c.id)).toEqual([trial.conversationId]);
    expect((await list("?console=include")).count).toBe(2);
    // Combined with the other filters like any of them.
    expect((await list("?console=only&status=resolved")).count).toBe(0);
  });

  it("are not counted by analytics, nor are their follow-ups", async () => {
    expect(await queries()).toBe(1);
    // A follow-up in the trial conversation, even without the flag, stays a trial.
    const followUp = await ask({ message: "And sick days?", conversationId: trial.conversationId });
    expect(followUp.conversationId).toBe(trial.conversationId);
    await ask({ message: "Is vacation paid?" });
    expect(await queries()).toBe(2);
  });

  it("refuses a flag that is not a boolean, and an unknown filter value", async () => {
    const bad = await call<{ error: string; details: { fields: Record<string, string[]> } }>(
      server,
      "POST",
      `/agents/${agentId}/query/`,
      token,
      { message: "Hello", test: "yes" },
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.details.fields)).toEqual(["test"]);
    const filter = await call<{ error: string }>(
      server,
      "GET",
      `/agents/${agentId}/conversations/?console=maybe`,
      token,
    );
    expect(filter.status).toBe(400);
    expect(filter.body.error).toBe("validation_error");
  });
});
