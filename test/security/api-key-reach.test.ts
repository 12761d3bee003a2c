/**
 * Issue #16 item 5: an agent's API key can narrow its agent's reach but never widen it. Adding a
 * data source of the workspace or an origin (`*` included) is 403 with the contract's body;
 * removing either is allowed, and a user editor may still add both.
 */
import type { Agent } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agent: Agent;
let key: string;
let secretSource: string;
let ownSource: string;

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  ownSource = (await readyTextSource(server, token, "Public", [{ title: "Hours", content: "Open 9 to 5." }]))
    .id;
  secretSource = (
    await readyTextSource(server, token, "Payroll", [
      { title: "Salaries", content: "The CEO earns 9 million." },
    ])
  ).id;
  agent = await createAgent(server, token, {
    dataSourceIds: [ownSource],
    allowedOrigins: ["https://shop.example.com", "https://blog.example.com"],
  });
  const created = await server.request<{ key: string }>("POST", `/agents/${agent.id}/api-keys/`, {
    token,
    body: { name: "ci" },
  });
  key = created.body.key;
});

afterAll(async () => {
  await server?.close();
});

/** The agent as its owner reads it back through the API. */
async function stored(): Promise<Agent> {
  return (await server.request<Agent>("GET", `/agents/${agent.id}/`, { token })).body;
}

describe("an API key patching its own agent", () => {
  it("may not attach another source of the workspace, and cannot then search it", async () => {
    const res = await server.request("PATCH", `/agents/${agent.id}/`, {
      token: key,
      body: { dataSourceIds: [ownSource, secretSource] },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      error: "permission_denied",
      details: { dataSourceIds: [secretSource] },
    });
    const search = await server.request<{ results: { text: string }[] }>(
      "POST",
      `/agents/${agent.id}/search/`,
      {
        token: key,
        body: { query: "CEO salaries", dataSourceIds: [secretSource] },
      },
    );
    expect(JSON.stringify(search.body)).not.toContain("9 million");
    expect((await stored()).dataSourceIds).toEqual([ownSource]);
  });

  it("may not add an origin or the wildcard", async () => {
    for (const origins of [["*"], ["https://shop.example.com", "https://evil.example"]]) {
      const res = await server.request("PATCH", `/agents/${agent.id}/`, {
        token: key,
        body: { allowedOrigins: origins },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: "permission_denied" });
    }
    expect((await stored()).allowedOrigins).toEqual(["https://shop.example.com", "https://blog.example.com"]);
  });

  it("may remove origins and sources, and change other fields", async () => {
    const res = await server.request<Agent>("PATCH", `/agents/${agent.id}/`, {
      token: key,
      body: { allowedOrigins: ["https://shop.example.com"], dataSourceIds: [], name: "Renamed" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      allowedOrigins: ["https://shop.example.com"],
      dataSourceIds: [],
      name: "Renamed",
    });
  });

  it("leaves a user editor free to add both", async () => {
    const res = await server.request<Agent>("PATCH", `/agents/${agent.id}/`, {
      token,
      body: { allowedOrigins: ["*"], dataSourceIds: [ownSource, secretSource] },
    });
    expect(res.status).toBe(200);
    expect(res.body.dataSourceIds).toEqual([ownSource, secretSource]);
  });
});

describe("an API key and the owner's console conversation (issue #49)", () => {
  it("cannot post into it: 404, as an unknown conversation, and the owner's console still can", async () => {
    const asked = await server.request<{ conversationId: string }>("POST", `/agents/${agent.id}/query/`, {
      token,
      body: { message: "When are you open?", channel: "console" },
    });
    expect(asked.status).toBe(200);
    const { conversationId } = asked.body;
    const hidden = await server.request<{ error: string }>("POST", `/agents/${agent.id}/query/`, {
      token: key,
      body: { message: "When are you open?", conversationId },
    });
    expect([hidden.status, hidden.body.error]).toEqual([404, "not_found"]);
    const owner = await server.request("POST", `/agents/${agent.id}/query/`, {
      token,
      body: { message: "And on Sundays?", conversationId, channel: "console" },
    });
    expect(owner.status).toBe(200);
  });
});
