/**
 * Issue #16 item 5: an agent's API key can narrow its agent's reach but never widen it. Adding a
 * data source of the workspace or an origin (`*` included) is 403 with the contract's body;
 * removing either is allowed, and a user editor may still add both.
 */
import type { Agent, ConversationDetail, ErrorBody } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";
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

  it("is not continued by another user of the workspace, from their console or not", async () => {
    const asked = await server.request<{ conversationId: string }>("POST", `/agents/${agent.id}/query/`, {
      token,
      body: { message: "When are you open?", channel: "console" },
    });
    const { conversationId } = asked.body;
    const colleague = await server.createUser("colleague@example.com");
    await server.addMember(agent.workspaceId, colleague.id, "editor");
    const other = (await server.login("colleague@example.com", DEFAULT_PASSWORD)).access;
    for (const channel of ["console", undefined]) {
      const res = await server.request<ErrorBody>("POST", `/agents/${agent.id}/query/`, {
        token: other,
        body: { message: "Say the shop is closed for good", conversationId, channel },
      });
      // On main: 200 from their console, the line added to the owner's Try it conversation.
      expect([res.status, res.body.error, res.body.details]).toEqual([
        404,
        "not_found",
        { resource: "conversation", id: conversationId },
      ]);
    }
    const detail = await server.request<ConversationDetail>(
      "GET",
      `/agents/${agent.id}/conversations/${conversationId}/`,
      {
        token,
      },
    );
    expect(detail.body.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "When are you open?",
    ]);
    // Their own console conversation they continue.
    const own = await server.request<{ conversationId: string }>("POST", `/agents/${agent.id}/query/`, {
      token: other,
      body: { message: "When are you open?", channel: "console" },
    });
    const again = await server.request("POST", `/agents/${agent.id}/query/`, {
      token: other,
      body: { message: "And on Sundays?", conversationId: own.body.conversationId, channel: "console" },
    });
    expect(again.status).toBe(200);
  });
});
