import type { DataSource } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeNotion, type FakePage, startFakeNotion } from "../fakes/notion-server.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, documents, search, syncRuns, waitForSettled } from "./source-helpers.ts";

const ROOT = "11111111-1111-4111-8111-111111111111";
const CHILD = "22222222-2222-4222-8222-222222222222";
const DB = "33333333-3333-4333-8333-333333333333";
const ROW = "44444444-4444-4444-8444-444444444444";

const pages = (): FakePage[] => [
  {
    id: ROOT,
    title: "Team handbook",
    blocks: [
      { type: "heading_1", text: "Holidays" },
      { type: "paragraph", text: "Every employee gets twenty eight days of holiday per year." },
      {
        type: "toggle",
        text: "Details",
        children: [{ type: "paragraph", text: "Unused holiday expires at the end of March." }],
      },
      { type: "child_page", ref: CHILD },
    ],
  },
  {
    id: CHILD,
    title: "Equipment",
    blocks: [{ type: "paragraph", text: "Each engineer may expense one ergonomic chair." }],
  },
  {
    id: ROW,
    title: "Release 4.2",
    databaseId: DB,
    properties: { Status: "Shipped" },
    blocks: [{ type: "paragraph", text: "Release 4.2 introduced the dark mode toggle." }],
  },
];

let notion: FakeNotion;
let server: TestServer;
let token: string;

beforeAll(async () => {
  notion = await startFakeNotion(pages(), { databases: [{ id: DB, title: "Releases" }] });
  server = await startTestServer({ LORE_NOTION_BASE_URL: notion.url, LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" });
  token = (await server.login()).access;
});
afterAll(async () => {
  await server?.close();
  await notion?.close();
});

describe("notion source", () => {
  it("reads pages, nested blocks and database rows, never returns the token whole, and re-syncs incrementally", async () => {
    const created = await call<DataSource>(server, "POST", "/data-sources/", token, {
      name: "Handbook",
      type: "notion",
      config: { token: notion.token, rootPageIds: [ROOT], databaseIds: [DB] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(notion.token);
    const source = await waitForSettled(server, token, created.body.id);
    expect(source.status, source.lastError ?? "").toBe("ready");
    expect(JSON.stringify(source.config)).not.toContain(notion.token);
    const docs = await documents(server, token, source.id);
    expect(docs.map((d) => d.title).sort()).toEqual(["Equipment", "Release 4.2", "Team handbook"]);
    expect(docs.every((d) => d.kind === "notion")).toBe(true);

    const agent = await createAgent(server, token, { dataSourceIds: [source.id] });
    expect(
      (await search(server, token, agent.id, "when does unused holiday expire")).results[0]?.content,
    ).toMatch(/end of March/);
    expect((await search(server, token, agent.id, "ergonomic chair")).results[0]?.title).toBe("Equipment");
    expect((await search(server, token, agent.id, "dark mode toggle release")).results[0]?.title).toBe(
      "Release 4.2",
    );

    // A PATCH with the masked token keeps the real one.
    const patched = await call<DataSource>(server, "PATCH", `/data-sources/${source.id}/`, token, {
      config: { ...source.config },
    });
    expect(patched.status).toBe(200);
    await waitForSettled(server, token, source.id);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({
      status: "completed",
      unchanged: 3,
      added: 0,
      updated: 0,
      removed: 0,
    });

    notion.setPage({
      id: CHILD,
      title: "Equipment",
      blocks: [{ type: "paragraph", text: "Each engineer may expense one standing desk." }],
    });
    await call(server, "POST", `/data-sources/${source.id}/sync/`, token);
    await waitForSettled(server, token, source.id);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({
      status: "completed",
      updated: 1,
      unchanged: 2,
    });
    expect((await search(server, token, agent.id, "standing desk")).results[0]?.title).toBe("Equipment");
  });
});
