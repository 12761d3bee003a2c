import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { messageRecord } from "@lore/server/answers/prepare-conversation.ts";
import { type DoctorCheck, examineDataDir } from "@lore/server/store/doctor.ts";
import type { Agent } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, startTestServer, type TestServer } from "../helpers/server.ts";

// Three conversations, each flushed in its own commit (its own data file); then, with the server
// stopped, the middle one's data file is overwritten with garbage and the server started again.
const dataDir = makeTempDir();
const messagesDir = join(dataDir, "lance", "messages.lance", "data");
let server: TestServer;
let token: string;
let agent: Agent;
const ids: string[] = [];
let damagedFile = "";
let checks: DoctorCheck[] = [];

const dataFiles = () => new Set(existsSync(messagesDir) ? readdirSync(messagesDir) : []);

beforeAll(async () => {
  const first = await startTestServer({ LORE_DATA_DIR: dataDir });
  const login = await first.login();
  const created = await first.request<Agent>("POST", "/agents/", {
    token: login.access,
    body: { name: "Support" },
  });
  expect(created.status).toBe(201);
  agent = created.body;
  const { conversations } = first.services;
  for (const title of ["shipping", "warranty", "returns"]) {
    const before = dataFiles();
    const record = conversations.create({
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      title,
      channel: "api",
      visitorId: null,
    });
    await conversations.save(record);
    await conversations.append(messageRecord(agent, record.id, "user", `A question about ${title}?`));
    await conversations.append(messageRecord(agent, record.id, "assistant", `The answer about ${title}.`));
    await conversations.flush();
    ids.push(record.id);
    const added = [...dataFiles()].filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    if (title === "warranty") damagedFile = added[0] ?? "";
  }
  await first.close();
  const path = join(messagesDir, damagedFile);
  writeFileSync(path, Buffer.alloc(readFileSync(path).length, "G"));
  checks = await examineDataDir(dataDir, join(dataDir, "lance"));
  // Starts with the damaged file present.
  server = await startTestServer({ LORE_DATA_DIR: dataDir });
  token = (await server.login()).access;
}, 120_000);
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a damaged data file of the message table", () => {
  it("leaves the conversation list readable", async () => {
    const res = await server.request<{ results: Array<{ id: string }> }>(
      "GET",
      `/agents/${agent.id}/conversations/`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.results.map((c) => c.id).sort()).toEqual([...ids].sort());
  });

  it("serves every other conversation's messages", async () => {
    for (const id of [ids[0], ids[2]]) {
      const res = await server.request<{ messages: Array<{ content: string }> }>(
        "GET",
        `/agents/${agent.id}/conversations/${id}/`,
        { token },
      );
      expect(res.status).toBe(200);
      expect(res.body.messages).toHaveLength(2);
    }
  });

  it("answers 500 storage_damaged for the conversation whose messages it held, without a path", async () => {
    const res = await server.request<{ error: string; message: string; details: Record<string, unknown> }>(
      "GET",
      `/agents/${agent.id}/conversations/${ids[1]}/`,
      { token },
    );
    expect(res.status).toBe(500);
    expect(res.body.error).toBe("internal_error");
    expect(res.body.details).toMatchObject({
      reason: "storage_damaged",
      table: "messages",
      conversationId: ids[1],
    });
    expect(JSON.stringify(res.body)).not.toContain(dataDir);
    expect(JSON.stringify(res.body)).not.toContain("/usr/");
  });

  it("is named by lore doctor, with its rows, and every other table reads", () => {
    const damaged = checks.filter((c) => !c.ok);
    expect(damaged.map((c) => c.what)).toEqual(["table messages"]);
    expect(damaged[0]?.detail).toContain(`damaged: data/${damagedFile} (2 rows)`);
    expect(damaged[0]?.detail).toContain("lore restore");
  });

  it("takes new questions in the other conversations", async () => {
    const { conversations } = server.services;
    const record = conversations.get(agent.id, ids[0] ?? "");
    await conversations.append(messageRecord(agent, record.id, "user", "And to Belgium?"));
    // A rating replaces a stored row: the merge that would do it cannot read the damaged file.
    const [, answer] = await conversations.messages(ids[2] ?? "");
    if (answer) await conversations.setFeedback(answer, "up", null);
    await conversations.flush();
    const res = await server.request<{ messages: Array<{ content: string }> }>(
      "GET",
      `/agents/${agent.id}/conversations/${ids[0]}/`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m) => m.content)).toContain("And to Belgium?");
  });
});

describe("a restart with the damaged file still there", () => {
  it("starts, and keeps the questions and ratings taken meanwhile", async () => {
    await server.close();
    server = await startTestServer({ LORE_DATA_DIR: dataDir });
    token = (await server.login()).access;
    const res = await server.request<{ messages: Array<{ content: string }> }>(
      "GET",
      `/agents/${agent.id}/conversations/${ids[0]}/`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m) => m.content)).toEqual([
      "A question about shipping?",
      "The answer about shipping.",
      "And to Belgium?",
    ]);
    const rated = await server.request<{ messages: Array<{ feedback: string | null }> }>(
      "GET",
      `/agents/${agent.id}/conversations/${ids[2]}/`,
      { token },
    );
    expect(rated.body.messages.map((m) => m.feedback)).toEqual([null, "up"]);
    const damaged = await server.request("GET", `/agents/${agent.id}/conversations/${ids[1]}/`, { token });
    expect(damaged.status).toBe(500);
  }, 60_000);

  it("deletes the damaged conversation and another one", async () => {
    for (const id of [ids[2], ids[1]]) {
      const res = await server.request("DELETE", `/agents/${agent.id}/conversations/${id}/`, { token });
      expect(res.status).toBe(204);
    }
    const list = await server.request<{ results: Array<{ id: string }> }>(
      "GET",
      `/agents/${agent.id}/conversations/`,
      { token },
    );
    expect(list.body.results.map((c) => c.id)).toEqual([ids[0]]);
    const gone = await server.request("GET", `/agents/${agent.id}/conversations/${ids[2]}/`, { token });
    expect(gone.status).toBe(404);
  }, 60_000);
});
