import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Agent, DataSource } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import {
  call,
  createAgent,
  createFileSource,
  createTextSource,
  documents,
  type Entry,
  getSource,
  readyTextSource,
  search,
  syncRuns,
  waitForSettled,
} from "./source-helpers.ts";

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
});
afterAll(() => server?.close());

const animals = ["otter", "heron", "lynx", "badger", "marten"];
const entry = (name: string, extra = ""): Entry => ({
  title: `About the ${name}`,
  content: `The ${name} lives near the river and eats fish. ${extra}`.trim(),
});

/**
 * What the store holds for a source, read directly on purpose: a deleted source is 404 in the API
 * at once, and stale chunk rows never show in answers, so only the store tells whether a re-sync or
 * a purge left anything behind.
 */
async function stored(sourceId: string) {
  const { store } = server.services;
  const table = await store.db.openTable("retrieval_chunks");
  return {
    chunkRows: await table.countRows(`dataSourceId = '${sourceId}'`),
    documents: store.documents.filter((d) => d.dataSourceId === sourceId).length,
    runs: store.syncRuns.filter((r) => r.dataSourceId === sourceId),
    record: store.dataSources.get(sourceId),
  };
}

/** The record goes last in a purge: once it is gone, so is everything else the source owned. */
async function waitForPurge(sourceId: string): Promise<void> {
  await until(async () => (await stored(sourceId)).record === undefined, { what: "the purge to finish" });
}

describe("incremental re-sync", () => {
  it("counts exactly one updated, one removed and one added document, the rest unchanged", async () => {
    const source = await readyTextSource(
      server,
      token,
      "Animals",
      animals.map((a) => entry(a)),
    );
    const agent = await createAgent(server, token, { dataSourceIds: [source.id] });
    const docsBefore = await documents(server, token, source.id);
    const heronDoc = docsBefore.find((d) => d.title === "About the heron");

    const next = [
      entry("otter"),
      entry("heron", "It also hunts frogs at dawn."),
      entry("badger"),
      entry("marten"),
      entry("beaver"),
    ];
    const patched = await call(server, "PATCH", `/data-sources/${source.id}/`, token, {
      config: { entries: next },
    });
    expect(patched.status).toBe(200);
    const after = await waitForSettled(server, token, source.id);
    const run = (await syncRuns(server, token, source.id))[0];
    expect(run).toMatchObject({
      status: "completed",
      added: 1,
      updated: 1,
      removed: 1,
      unchanged: 3,
      failed: 0,
    });
    expect(after.documentCount).toBe(5);

    const docsAfter = await documents(server, token, source.id);
    expect(docsAfter.map((d) => d.title).sort()).toEqual(next.map((e) => e.title).sort());
    // The edited document keeps its identity; its new text is what search finds.
    const heronAfter = docsAfter.find((d) => d.title === "About the heron");
    expect(heronAfter?.id).toBe(heronDoc?.id);
    expect(heronAfter?.contentHash).not.toBe(heronDoc?.contentHash);
    const frogs = (await search(server, token, agent.id, "hunts frogs at dawn")).results;
    expect(frogs[0]?.documentId).toBe(heronDoc?.id);
    const lynx = (await search(server, token, agent.id, "lynx")).results;
    expect(lynx.some((r) => r.title === "About the lynx")).toBe(false);
    expect((await search(server, token, agent.id, "beaver")).results[0]?.title).toBe("About the beaver");

    const again = await call(server, "POST", `/data-sources/${source.id}/sync/`, token);
    expect(again.status).toBe(202);
    await waitForSettled(server, token, source.id);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({
      status: "completed",
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 5,
      failed: 0,
    });
    expect((await stored(source.id)).chunkRows).toBe(after.chunkCount);
  });

  it("keeps serving each document's previous version while a re-sync runs", async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      title: `Note ${i}`,
      content: `Note ${i} is about subject${i} and version one of the archive.`,
    }));
    const source = await readyTextSource(server, token, "Archive", many);
    const agent = await createAgent(server, token, { dataSourceIds: [source.id] });
    const watched = [0, 20, 39];
    const changed = many.map((e, i) => ({
      ...e,
      content: `Note ${i} is about subject${i} and version two of the archive.`,
    }));
    await call(server, "PATCH", `/data-sources/${source.id}/`, token, { config: { entries: changed } });

    let pollsWhileSyncing = 0;
    let sawOld = false;
    let sawNew = false;
    for (;;) {
      const status = (await getSource(server, token, source.id)).status;
      for (const i of watched) {
        const hits = (await search(server, token, agent.id, `subject${i}`)).results.filter(
          (r) => r.title === `Note ${i}`,
        );
        expect(hits, `Note ${i} must stay searchable`).toHaveLength(1);
        if (/version one/.test(hits[0]?.content ?? "")) sawOld = true;
        else sawNew = true;
      }
      if (status === "ready" || status === "failed") break;
      pollsWhileSyncing += 1;
    }
    const run = (await syncRuns(server, token, source.id))[0];
    expect(run).toMatchObject({ status: "completed", updated: 40 });
    expect(pollsWhileSyncing).toBeGreaterThan(0);
    expect(sawOld || sawNew).toBe(true);
    for (const i of watched) {
      const hit = (await search(server, token, agent.id, `subject${i}`)).results.find(
        (r) => r.title === `Note ${i}`,
      );
      expect(hit?.content).toMatch(/version two/);
    }
  });
});

describe("deletion", () => {
  it("answers 204, never retrieves the source again, detaches agents and purges everything it owned", async () => {
    const text = await readyTextSource(server, token, "Doomed text", [
      entry("pelican", "Pelicans carry fish in a throat pouch."),
    ]);
    const fileRes = await createFileSource(server, token, "Doomed files", [
      { name: "pouch.md", bytes: "# Pouch\n\nThe pelican pouch holds three gallons." },
    ]);
    const files = await waitForSettled(server, token, fileRes.body.id);
    const keeper = await readyTextSource(server, token, "Keeper", [entry("stork", "Storks carry no pouch.")]);
    const agent = await createAgent(server, token, { dataSourceIds: [text.id, files.id, keeper.id] });
    expect((await search(server, token, agent.id, "pelican pouch")).results.length).toBeGreaterThan(1);
    expect(existsSync(join(server.dataDir, "files", files.id))).toBe(true);

    for (const s of [text, files]) {
      const res = await call(server, "DELETE", `/data-sources/${s.id}/`, token);
      expect(res.status).toBe(204);
      expect(res.body).toBe("");
    }
    // From this moment: gone from search, query, the API and the agent.
    const hits = (await search(server, token, agent.id, "pelican pouch")).results;
    expect(hits.every((h) => h.dataSourceId === keeper.id)).toBe(true);
    const answer = await call<{ response: string; sources: Array<{ dataSourceId?: string }> }>(
      server,
      "POST",
      `/agents/${agent.id}/query/`,
      token,
      { message: "What does the pelican pouch hold?" },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.sources.every((s) => s.dataSourceId === keeper.id)).toBe(true);
    expect(answer.body.response).not.toMatch(/three gallons/);
    expect((await call(server, "GET", `/data-sources/${text.id}/`, token)).status).toBe(404);
    expect((await call(server, "GET", `/data-sources/${files.id}/documents/`, token)).status).toBe(404);
    expect((await call(server, "DELETE", `/data-sources/${text.id}/`, token)).status).toBe(404);
    const list = await call<{ results: DataSource[] }>(server, "GET", "/data-sources/?page_size=100", token);
    expect(list.body.results.map((s) => s.id)).not.toContain(text.id);
    const agentAfter = await call<Agent>(server, "GET", `/agents/${agent.id}/`, token);
    expect(agentAfter.body.dataSourceIds).toEqual([keeper.id]);
    const restricted = await call(server, "POST", `/agents/${agent.id}/search/`, token, {
      query: "pelican",
      dataSourceIds: [text.id],
    });
    expect(restricted.status).toBe(400);

    for (const s of [text, files]) {
      await waitForPurge(s.id);
      expect(await stored(s.id)).toEqual({ chunkRows: 0, documents: 0, runs: [], record: undefined });
    }
    expect(existsSync(join(server.dataDir, "files", files.id))).toBe(false);
    expect((await stored(keeper.id)).chunkRows).toBe(keeper.chunkCount);
  });

  it("stops a running sync when its source is deleted, and leaves nothing behind", async () => {
    const many = Array.from({ length: 100 }, (_, i) => ({
      title: `Log ${i}`,
      content: `Log line ${i} records event${i} in the ship journal.`,
    }));
    const source = await createTextSource(server, token, "Big journal", many);
    await until(
      async () => {
        const { status } = await getSource(server, token, source.id);
        if (status === "ready") throw new Error("the sync finished before the delete");
        return status === "syncing";
      },
      { timeout: 20_000, interval: 10, what: "the sync to start" },
    );
    const res = await call(server, "DELETE", `/data-sources/${source.id}/`, token);
    expect(res.status).toBe(204);
    const { runs } = await stored(source.id);
    expect(runs.every((r) => r.status === "cancelled")).toBe(true);
    await waitForPurge(source.id);
    // A write in flight when the sync stopped must not resurrect chunks after the purge. Index
    // writes go through one queue in order: once another source's sync has landed, it is past them.
    await readyTextSource(server, token, "After the purge", [entry("heron")]);
    expect(await stored(source.id)).toEqual({ chunkRows: 0, documents: 0, runs: [], record: undefined });
  });
});
