import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loginAsAdmin, type ServerProcess, startServerProcess, startTestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import {
  call,
  createAgent,
  createFileSource,
  createTextSource,
  documents,
  getSource,
  search,
  syncRuns,
  waitForSettled,
} from "./source-helpers.ts";

let proc: ServerProcess | null = null;
afterEach(async () => {
  await proc?.close();
  proc = null;
});

/**
 * Opens the data dir in this process (after the child stopped) and reads the stored rows directly.
 * On purpose, not through the API: what a crash left on disk (orphaned chunks, leftover rows of a
 * purged source) is the point, and the API shows neither.
 */
async function inspect(dataDir: string, sourceId: string) {
  const server = await startTestServer({ LORE_DATA_DIR: dataDir });
  try {
    const { store, index } = server.services;
    const table = await store.db.openTable("retrieval_chunks");
    const rows = (await table
      .query()
      .where(`dataSourceId = '${sourceId}'`)
      .select(["id", "documentId"])
      .toArray()) as Array<{ id: string; documentId: string }>;
    const docs = store.documents.filter((d) => d.dataSourceId === sourceId);
    return {
      rows,
      docs,
      live: await index.countByDataSource(sourceId),
      source: store.dataSources.get(sourceId),
      runs: store.syncRuns.filter((r) => r.dataSourceId === sourceId),
    };
  } finally {
    await server.close();
  }
}

const entries = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    title: `Record ${i}`,
    content: `Record ${i} documents the marker keyword${i} for the crash test.`,
  }));

describe("crash safety", () => {
  it("completes a sync interrupted by SIGKILL after a restart, with a consistent index", async () => {
    proc = await startServerProcess();
    let token = await loginAsAdmin(proc);
    // Enough documents for several batches (sync-source.ts indexes up to 64 per commit).
    const total = 1_200;
    const source = await createTextSource(proc, token, "Crashy", entries(total));
    const running = proc;
    await until(
      async () => {
        const s = await getSource(running, token, source.id);
        if (s.status === "ready") throw new Error(`sync finished before the kill: ${s.status}`);
        return s.status === "syncing" && s.progress.processed >= 10;
      },
      { timeout: 30_000, what: "the sync to be under way" },
    );
    proc.kill("SIGKILL");
    expect((await proc.waitForExit()).signal).toBe("SIGKILL");

    await proc.restart();
    token = await loginAsAdmin(proc);
    const ready = await waitForSettled(proc, token, source.id, 60_000);
    expect(ready.status).toBe("ready");
    expect(ready.documentCount).toBe(total);
    const runs = await syncRuns(proc, token, source.id);
    expect(runs).toHaveLength(1);
    const run = runs[0];
    expect(run).toMatchObject({ status: "completed", trigger: "create", failed: 0, removed: 0 });
    expect(run?.attempts).toBe(2);
    expect((run?.added ?? 0) + (run?.unchanged ?? 0) + (run?.updated ?? 0)).toBe(total);

    const agent = await createAgent(proc, token, { dataSourceIds: [source.id] });
    for (const i of [0, 5, 17, 33, total - 1]) {
      const hits = (await search(proc, token, agent.id, `keyword${i}`)).results.filter(
        (r) => r.title === `Record ${i}`,
      );
      expect(hits, `Record ${i}`).toHaveLength(1);
    }
    const docs = await documents(proc, token, source.id);
    expect(docs).toHaveLength(total);
    expect(new Set(docs.map((d) => d.title)).size).toBe(total);

    await proc.stop();
    const state = await inspect(proc.dataDir, source.id);
    // Every document's chunks exactly once: no orphans, no leftover old versions, counts agree.
    const perDoc = new Map<string, number>();
    for (const row of state.rows) perDoc.set(row.documentId, (perDoc.get(row.documentId) ?? 0) + 1);
    expect(new Set(state.rows.map((r) => r.id)).size).toBe(state.rows.length);
    expect([...perDoc.keys()].sort()).toEqual(state.docs.map((d) => d.id).sort());
    for (const doc of state.docs) expect(perDoc.get(doc.id), doc.title).toBe(doc.chunkCount);
    expect(state.live).toBe(state.rows.length);
    expect(state.rows.length).toBe(ready.chunkCount);
  }, 150_000); // a 1,200-document sync twice over: well under a minute alone, longer beside other files

  it("finishes purging a deleted source after a SIGKILL right after the delete", async () => {
    proc = await startServerProcess();
    let token = await loginAsAdmin(proc);
    const files = Array.from({ length: 12 }, (_, i) => ({
      name: `note-${i}.md`,
      bytes: `# Note ${i}\n\nThe purge test note ${i} mentions purgeword${i}.`,
    }));
    const created = await createFileSource(proc, token, "To purge", files);
    expect(created.status).toBe(201);
    const sourceId = created.body.id;
    const other = await createTextSource(proc, token, "Survivor", entries(3));
    await waitForSettled(proc, token, sourceId, 60_000);
    await waitForSettled(proc, token, other.id, 60_000);
    const agent = await createAgent(proc, token, { dataSourceIds: [sourceId, other.id] });
    expect((await search(proc, token, agent.id, "purgeword3")).results.length).toBeGreaterThan(0);
    expect(existsSync(join(proc.dataDir, "files", sourceId))).toBe(true);

    const res = await call(proc, "DELETE", `/data-sources/${sourceId}/`, token);
    expect(res.status).toBe(204);
    proc.kill("SIGKILL");
    await proc.waitForExit();

    await proc.restart();
    token = await loginAsAdmin(proc);
    expect((await call(proc, "GET", `/data-sources/${sourceId}/`, token)).status).toBe(404);
    expect((await search(proc, token, agent.id, "purgeword3")).results).toHaveLength(0);
    const filesDir = join(proc.dataDir, "files", sourceId);
    await until(() => !existsSync(filesDir), { timeout: 20_000, what: "the stored files to be purged" });
    // The purge under way (files go third of its five steps) finishes first: stop is graceful and
    // the sync runner waits for it.
    await proc.stop();
    const state = await inspect(proc.dataDir, sourceId);
    expect(state.rows).toHaveLength(0);
    expect(state.docs).toHaveLength(0);
    expect(state.runs).toHaveLength(0);
    expect(state.source).toBeUndefined();
    const survivor = await inspect(proc.dataDir, other.id);
    expect(survivor.rows.length).toBeGreaterThan(0);
  });
});
