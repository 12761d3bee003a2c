import { rmSync } from "node:fs";
import { Store } from "@lore/server/store/store.ts";
import type {
  BulkTextEntriesResponse,
  DataSource,
  Page,
  PutTextEntryResponse,
  StoredTextEntry,
} from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_PASSWORD,
  makeTempDir,
  personalWorkspaceId,
  startTestServer,
  type TestServer,
} from "../helpers/server.ts";
import {
  call,
  createAgent,
  createTextSource,
  getSource,
  readyTextSource,
  search,
  syncRuns,
  waitForSettled,
} from "./source-helpers.ts";

let server: TestServer;
let token: string;
let viewerToken: string;

const JSON_CAP = 64 * 1024;
const BULK_CAP = 1024 * 1024;

beforeAll(async () => {
  // A small JSON cap, so the bulk route is seen to take bodies well beyond it.
  server = await startTestServer({
    LORE_MAX_JSON_BYTES: String(JSON_CAP),
    LORE_MAX_BULK_BYTES: String(BULK_CAP),
  });
  const login = await server.login();
  token = login.access;
  const workspaceId = personalWorkspaceId(server.services, login.user.id);
  const viewer = await server.createUser("viewer@example.com");
  await server.addMember(workspaceId, viewer.id, "viewer");
  viewerToken = (await server.login("viewer@example.com", DEFAULT_PASSWORD)).access;
});
afterAll(() => server?.close());

const fact = (i: number, version = "one") => ({
  key: `faq-${i}`,
  title: `Question ${i}`,
  content: `Answer ${i} mentions keyword${i} and edition ${version}.`,
});

const entryPath = (sourceId: string, key: string) =>
  `/data-sources/${sourceId}/entries/${encodeURIComponent(key)}/`;

async function emptyTextSource(name: string): Promise<DataSource> {
  const res = await server.request<DataSource>("POST", "/data-sources/", {
    token,
    body: { name, type: "text", config: {} },
  });
  expect(res.status).toBe(201);
  return waitForSettled(server, token, res.body.id);
}

function bulk(sourceId: string, body: string, type = "application/x-ndjson") {
  return server.request<BulkTextEntriesResponse>("POST", `/data-sources/${sourceId}/entries/`, {
    token,
    body,
    headers: { "Content-Type": type },
  });
}

async function allEntries(sourceId: string): Promise<StoredTextEntry[]> {
  const out: StoredTextEntry[] = [];
  for (let page = 1; ; page++) {
    const res = await server.request<Page<StoredTextEntry>>(
      "GET",
      `/data-sources/${sourceId}/entries/?page=${page}&page_size=100`,
      { token },
    );
    expect(res.status).toBe(200);
    out.push(...res.body.results);
    if (!res.body.next) return out;
  }
}

const ndjson = (items: unknown[]) => `${items.map((i) => JSON.stringify(i)).join("\n")}\n`;

describe("text entries one at a time", () => {
  it("creates, replaces and keeps an entry under the caller's key, re-indexing only what changed", async () => {
    const source = await emptyTextSource("FAQ");
    const agent = await createAgent(server, token, { dataSourceIds: [source.id] });
    const loaded = await bulk(source.id, ndjson(Array.from({ length: 20 }, (_, i) => fact(i))));
    expect(loaded.status).toBe(202);
    await waitForSettled(server, token, source.id);

    const key = "shipping / returns? 100%";
    const created = await server.request<PutTextEntryResponse>("PUT", entryPath(source.id, key), {
      token,
      body: { title: "Returns", content: "Parcels can be returned within 30 days, postage paid." },
    });
    expect(created.status).toBe(201);
    expect(created.body.entry).toMatchObject({ key, title: "Returns", status: "pending" });
    expect(created.body.syncRun?.trigger).toBe("entries");
    await waitForSettled(server, token, source.id);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({ added: 1, unchanged: 20 });

    const replaced = await server.request<PutTextEntryResponse>("PUT", entryPath(source.id, "faq-7"), {
      token,
      body: { title: "Question 7", content: "Answer 7 now says the warehouse ships on Saturdays." },
    });
    expect(replaced.status).toBe(200);
    const ready = await waitForSettled(server, token, source.id);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({
      status: "completed",
      added: 0,
      updated: 1,
      removed: 0,
      unchanged: 20,
      failed: 0,
    });
    expect(ready.documentCount).toBe(21);
    expect((await search(server, token, agent.id, "warehouse ships on Saturdays")).results[0]?.title).toBe(
      "Question 7",
    );
    const old = (await search(server, token, agent.id, "keyword7")).results;
    expect(old.filter((r) => r.content.includes("keyword7"))).toEqual([]);

    const same = await server.request<PutTextEntryResponse>("PUT", entryPath(source.id, "faq-7"), {
      token,
      body: { title: "Question 7", content: "Answer 7 now says the warehouse ships on Saturdays." },
    });
    expect(same.status).toBe(200);
    expect(same.body.syncRun).toBeNull();
    expect(same.body.entry.status).toBe("indexed");

    // A new title alone is a change: citations show the entry's title.
    await server.request("PUT", entryPath(source.id, "faq-8"), {
      token,
      body: { title: "Renamed question", content: fact(8).content },
    });
    await waitForSettled(server, token, source.id);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({ updated: 1, unchanged: 20 });
    expect((await search(server, token, agent.id, "keyword8")).results[0]?.title).toBe("Renamed question");

    const entries = await allEntries(source.id);
    expect(entries).toHaveLength(21);
    expect(entries.every((e) => e.status === "indexed" && e.documentId !== null)).toBe(true);
    expect(entries.find((e) => e.key === key)).toMatchObject({
      content: "Parcels can be returned within 30 days, postage paid.",
      bytes: 53,
    });
  });

  it("deletes an entry: never searched or cited again, and a second delete is 404", async () => {
    const source = await emptyTextSource("Deletable");
    const agent = await createAgent(server, token, { dataSourceIds: [source.id] });
    await bulk(
      source.id,
      ndjson([
        { key: "a", title: "Lighthouse", content: "The lighthouse keeper logs every passing zeppelin." },
        { key: "b", title: "Harbour", content: "The harbour opens at dawn for fishing boats." },
      ]),
    );
    await waitForSettled(server, token, source.id);
    expect((await search(server, token, agent.id, "zeppelin")).results).toHaveLength(1);

    const removed = await server.request("DELETE", entryPath(source.id, "a"), { token });
    expect(removed.status).toBe(204);
    expect((await search(server, token, agent.id, "zeppelin")).results).toHaveLength(0);
    const answer = await call<{ sources: Array<{ title: string }> }>(
      server,
      "POST",
      `/agents/${agent.id}/query/`,
      token,
      { message: "Who logs every passing zeppelin?" },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.sources.map((s) => s.title)).not.toContain("Lighthouse");
    expect((await getSource(server, token, source.id)).documentCount).toBe(1);
    expect((await allEntries(source.id)).map((e) => e.key)).toEqual(["b"]);

    const again = await server.request<{ details: { resource: string } }>(
      "DELETE",
      entryPath(source.id, "a"),
      {
        token,
      },
    );
    expect(again.status).toBe(404);
    expect(again.body.details.resource).toBe("entry");
  });
});

describe("bulk loads", () => {
  it("loads NDJSON and a JSON array well beyond the JSON cap, streamed", async () => {
    const source = await emptyTextSource("Bulk");
    const lines = Array.from({ length: 600 }, (_, i) => ({
      key: `k${i}`,
      title: `Paragraph ${i}`,
      content: `Paragraph ${i} is about marker${i}. ${"Filler words keep this paragraph long. ".repeat(8)}`,
    }));
    const body = ndjson(lines);
    expect(body.length).toBeGreaterThan(3 * JSON_CAP);
    const res = await bulk(source.id, body);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ received: 600, created: 600, updated: 0, unchanged: 0 });
    expect(res.body.syncRun?.status).toMatch(/queued|running/);
    const ready = await waitForSettled(server, token, source.id, 60_000);
    expect(ready.documentCount).toBe(600);

    // The same load as a JSON array, two entries changed: stored once, only those two re-indexed.
    const edited = lines.map((l, i) =>
      i === 3 || i === 400 ? { ...l, content: `${l.content} Edited.` } : l,
    );
    const again = await bulk(source.id, JSON.stringify(edited), "application/json");
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ received: 600, created: 0, updated: 2, unchanged: 598 });
    await waitForSettled(server, token, source.id, 60_000);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({ updated: 2, unchanged: 598 });

    const unchanged = await bulk(source.id, JSON.stringify(edited.slice(0, 10)), "application/json");
    expect(unchanged.body).toMatchObject({ received: 10, unchanged: 10, syncRun: null });
  });

  it("names the bad line or element, and keeps nothing from a first batch that failed", async () => {
    const source = await emptyTextSource("Bad input");
    const good = JSON.stringify(fact(1));
    const malformed = await bulk(source.id, `${good}\n${JSON.stringify(fact(2))}\n{"title": "x", \n`);
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({
      error: "validation_error",
      message: "Line 3 is not valid JSON",
      details: { line: 3, stored: 0 },
    });

    const invalid = await bulk(source.id, `${good}\n\n{"title": "No content"}\n`);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      message: "Line 3 is not a valid entry",
      details: { line: 3, stored: 0, fields: { content: expect.any(Array) } },
    });

    const unknown = await bulk(
      source.id,
      JSON.stringify([fact(1), { ...fact(2), colour: "red" }]),
      "application/json",
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ details: { element: 2, fields: { colour: ["unknown field"] } } });

    const notArray = await bulk(source.id, JSON.stringify(fact(1)), "application/json");
    expect(notArray.status).toBe(400);
    expect(notArray.body).toMatchObject({ message: "The body is not a JSON array" });

    const unclosed = await bulk(source.id, `[${good}`, "application/json");
    expect(unclosed.status).toBe(400);
    expect(unclosed.body).toMatchObject({ message: "The JSON array is not closed" });

    const wrongType = await bulk(source.id, good, "text/plain");
    expect(wrongType.status).toBe(415);

    const nul = await bulk(source.id, ndjson([{ title: "t", content: "a\u0000b" }]));
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ details: { line: 1 } });

    const tooBig = await bulk(source.id, "x".repeat(BULK_CAP + 1));
    expect(tooBig.status).toBe(413);

    expect(await allEntries(source.id)).toEqual([]);
    expect((await syncRuns(server, token, source.id)).filter((r) => r.trigger === "entries")).toEqual([]);
  });

  it("refuses entry routes on other source types, to viewers, and for bad keys", async () => {
    const source = await emptyTextSource("Guarded");
    const notion = await call<DataSource>(server, "POST", "/data-sources/", token, {
      name: "Notion",
      type: "notion",
      config: { token: "secret_abcdefghijklmnop" },
    });
    expect(notion.status).toBe(201);
    const onNotion = await server.request("PUT", entryPath(notion.body.id, "k"), {
      token,
      body: { title: "t", content: "c" },
    });
    expect(onNotion.status).toBe(400);
    await call(server, "DELETE", `/data-sources/${notion.body.id}/`, token);

    const asViewer = await server.request("PUT", entryPath(source.id, "k"), {
      token: viewerToken,
      body: { title: "t", content: "c" },
    });
    expect(asViewer.status).toBe(403);
    expect(
      (await server.request("GET", `/data-sources/${source.id}/entries/`, { token: viewerToken })).status,
    ).toBe(200);

    const controlKey = await server.request("PUT", entryPath(source.id, "tab\there"), {
      token,
      body: { title: "t", content: "c" },
    });
    expect(controlKey.status).toBe(400);
    const noContent = await server.request("PUT", entryPath(source.id, "k"), { token, body: { title: "t" } });
    expect(noContent.status).toBe(400);
    const missing = await server.request("DELETE", entryPath(source.id, "never-stored"), { token });
    expect(missing.status).toBe(404);
  });
});

describe("config.entries", () => {
  it("is diffed against the stored entries and never returned inside the source", async () => {
    const list = Array.from({ length: 6 }, (_, i) => ({
      title: `Topic ${i}`,
      content: `Topic ${i} covers item${i}.`,
    }));
    const source = await readyTextSource(server, token, "Inline", list);
    expect(source.config).toEqual({});
    expect((await allEntries(source.id)).map((e) => e.key)).toEqual(list.map((e) => e.title));

    const next = [...list.slice(0, 4), { title: "Topic 3", content: "A second entry titled Topic 3." }];
    next[1] = { title: "Topic 1", content: "Topic 1 now covers something else entirely." };
    const patched = await call<DataSource>(server, "PATCH", `/data-sources/${source.id}/`, token, {
      config: { entries: next },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.config).toEqual({});
    await waitForSettled(server, token, source.id);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({
      added: 1,
      updated: 1,
      removed: 2,
      unchanged: 3,
    });
    expect((await allEntries(source.id)).map((e) => e.key).sort()).toEqual(
      ["Topic 0", "Topic 1", "Topic 2", "Topic 3", "Topic 3#2"].sort(),
    );
  });

  it("still creates a text source from inline entries", async () => {
    const created = await createTextSource(server, token, "Inline max", [
      { title: "One", content: "Just one." },
    ]);
    const ready = await waitForSettled(server, token, created.id);
    expect(ready).toMatchObject({ status: "ready", documentCount: 1 });
  });
});

describe("a data directory from before entries had their own table", () => {
  it("moves inline entries out of the source record on open, re-indexing nothing", async () => {
    const dataDir = makeTempDir();
    try {
      const list = [
        { title: "Opening hours", content: "The museum opens at nine and closes at five." },
        { title: "Opening hours", content: "On holidays the museum closes at noon." },
        { title: "Tickets", content: "Tickets cost twelve euros; children enter free." },
      ];
      let first = await startTestServer({ LORE_DATA_DIR: dataDir });
      const firstToken = (await first.login()).access;
      const source = await readyTextSource(first, firstToken, "Museum", list);
      await first.close();

      // Rewind to the old layout: entries inside the record, no entry table, schema 1.
      const store = await Store.open(dataDir);
      const record = store.dataSources.get(source.id);
      if (!record) throw new Error("source record missing");
      await store.dataSources.put({ ...record, config: { entries: list } });
      await store.db.dropTable("text_entries");
      await store.meta.put({ id: "schema", schemaVersion: 1 });
      await store.close();

      first = await startTestServer({ LORE_DATA_DIR: dataDir });
      const token = (await first.login()).access;
      const migrated = await getSource(first, token, source.id);
      expect(migrated.config).toEqual({});
      const res = await first.request<Page<StoredTextEntry>>("GET", `/data-sources/${source.id}/entries/`, {
        token,
      });
      expect(res.body.results.map((e) => [e.key, e.status])).toEqual([
        ["Opening hours", "indexed"],
        ["Opening hours#2", "indexed"],
        ["Tickets", "indexed"],
      ]);
      await call(first, "POST", `/data-sources/${source.id}/sync/`, token);
      await waitForSettled(first, token, source.id);
      expect((await syncRuns(first, token, source.id))[0]).toMatchObject({
        added: 0,
        updated: 0,
        unchanged: 3,
      });
      const agent = await createAgent(first, token, { dataSourceIds: [source.id] });
      expect((await search(first, token, agent.id, "children enter free")).results[0]?.title).toBe("Tickets");
      await first.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
