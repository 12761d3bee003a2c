/**
 * `lore backup` while the server serves and writes, then `lore restore` into a new data dir: the
 * restored server opens every table and answers the same questions with the same citations.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { backupDataDir, restoreDataDir } from "@lore/server/store/backup.ts";
import type { Agent, DataSource, Page, QueryResponse } from "@lore/shared";
import { describe, expect, it } from "vitest";
import { disposeAfterAll } from "../helpers/dispose.ts";
import {
  loginAsAdmin,
  makeTempDir,
  runCli,
  type ServerProcess,
  startServerProcess,
  startTestServer,
} from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import {
  call,
  createAgent,
  createTextSource,
  documents,
  readyTextSource,
  waitForSettled,
} from "../ingestion/source-helpers.ts";

const cleanup = disposeAfterAll();

const FACTS = [
  {
    title: "Lighthouse",
    content:
      "The Norrby lighthouse was lit in 1887. Its lamp burns whale oil no longer; it has used electricity since 1931.",
  },
  {
    title: "Ferry",
    content: "The ferry to Skarholm leaves at 07:40 and 16:10. Bicycles travel free on the morning crossing.",
  },
  {
    title: "Museum",
    content:
      "The maritime museum is closed on Mondays. Entry costs 90 kronor and children under twelve enter free.",
  },
  {
    title: "Bakery",
    content:
      "Sjöberg's bakery sells cardamom buns from six in the morning. The rye loaf is baked only on Thursdays.",
  },
];
const QUESTIONS = [
  "When was the lighthouse lit?",
  "When does the ferry leave?",
  "Is the museum open on Mondays?",
  "When is the rye loaf baked?",
  "Do bicycles cost extra on the ferry?",
];

type Answer = Pick<QueryResponse, "response"> & { citations: string[] };

async function ask(target: ServerProcess, token: string, agentId: string): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const message of QUESTIONS) {
    const res = await call<QueryResponse>(target, "POST", `/agents/${agentId}/query/`, token, { message });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push({
      response: res.body.response,
      citations: res.body.sources.map(
        (s) => `${s.rank}|${s.documentId}|${s.chunkId}|${s.title}|${s.content}`,
      ),
    });
  }
  return out;
}

describe("backup and restore", () => {
  it("snapshots consistently while writes go on and restores a server that answers exactly as before", async () => {
    const original = await startServerProcess();
    cleanup.push(() => original.close());
    const token = await loginAsAdmin(original);
    const kb = await readyTextSource(original, token, "Island guide", FACTS);
    const agent: Agent = await createAgent(original, token, { name: "Island", dataSourceIds: [kb.id] });
    const before = await ask(original, token, agent.id);
    expect(before.every((a) => a.citations.length > 0)).toBe(true);

    // Continuous writes: queries (conversations, messages), new sources and re-syncs, until told to stop.
    let writing = true;
    let writes = 0;
    const failures: string[] = [];
    const writer = (async () => {
      let n = 0;
      while (writing) {
        n += 1;
        const results = await Promise.all([
          call(original, "POST", `/agents/${agent.id}/query/`, token, {
            message: QUESTIONS[n % QUESTIONS.length],
          }),
          createTextSource(
            original,
            token,
            `Churn ${n}`,
            Array.from({ length: 20 }, (_, i) => ({
              title: `Note ${n}.${i}`,
              content: `Churn note ${n}.${i} about tides and gulls number ${i}.`,
            })),
          ).then(
            () => ({ status: 201 }),
            (e: unknown) => ({ status: 0, body: String(e) }),
          ),
          call(original, "POST", `/data-sources/${kb.id}/sync/`, token),
        ]);
        for (const r of results) if (r.status >= 300) failures.push(`${r.status}`);
        writes += results.length;
      }
    })();

    // The snapshot starts with writes under way: a round has landed and the next is in flight.
    await until(() => writes > 0, { what: "the first round of writes" });
    const backupDir = join(makeTempDir("lore-backup-"), "snapshot");
    cleanup.push(() => rmSync(join(backupDir, ".."), { recursive: true, force: true }));
    const backup = await runCli(["backup", "--to", backupDir], { LORE_DATA_DIR: original.dataDir }, 60_000);
    expect(backup.code, backup.stderr + backup.stdout).toBe(0);
    expect(backup.stdout).toMatch(/backed up \d+ tables/);
    const writesAtBackup = writes;
    await until(() => writes > writesAtBackup, { what: "a round of writes after the snapshot" });
    writing = false;
    await writer;
    expect(failures).toEqual([]);
    expect(writes).toBeGreaterThan(0);

    // Restore into a fresh directory and serve it.
    const restoredDir = join(makeTempDir("lore-restored-"), "data");
    cleanup.push(() => rmSync(join(restoredDir, ".."), { recursive: true, force: true }));
    const restore = await runCli(["restore", "--from", backupDir], { LORE_DATA_DIR: restoredDir }, 60_000);
    expect(restore.code, restore.stderr + restore.stdout).toBe(0);
    const restored = await startServerProcess({ LORE_DATA_DIR: restoredDir });
    cleanup.push(() => restored.close());

    // Tokens survive (the signing secret is part of the data dir); every answer and citation is the same.
    const after = await ask(restored, token, agent.id);
    expect(after).toEqual(before);

    // Every table opens and agrees with the others: each source settles, its counts match its documents.
    const list = await call<Page<DataSource>>(restored, "GET", "/data-sources/?page_size=100", token);
    expect(list.status).toBe(200);
    for (const source of list.body.results) {
      const settled = await waitForSettled(restored, token, source.id, 60_000);
      expect(settled.status).toBe("ready");
      const docs = await documents(restored, token, source.id);
      expect(settled.documentCount).toBe(docs.filter((d) => d.status === "indexed").length);
      expect(settled.chunkCount).toBe(docs.reduce((n, d) => n + d.chunkCount, 0));
    }
    const conversations = await call<Page<{ id: string }>>(
      restored,
      "GET",
      `/agents/${agent.id}/conversations/?page_size=100`,
      token,
    );
    expect(conversations.body.count).toBeGreaterThanOrEqual(QUESTIONS.length);
    for (const c of conversations.body.results.slice(0, 20)) {
      expect((await call(restored, "GET", `/agents/${agent.id}/conversations/${c.id}/`, token)).status).toBe(
        200,
      );
    }
  }, 170_000);

  it("refuses to restore over a running server and to back up into a non-empty directory or inside the data", async () => {
    const server = await startTestServer();
    cleanup.push(() => server.close());
    const busy = makeTempDir("lore-busy-");
    cleanup.push(() => rmSync(busy, { recursive: true, force: true }));
    writeFileSync(join(busy, "keep.txt"), "x");
    await expect(backupDataDir(server.dataDir, busy)).rejects.toThrow(/not empty/);
    await expect(backupDataDir(server.dataDir, join(server.dataDir, "inner"))).rejects.toThrow(
      /outside the data directory/,
    );
    await expect(restoreDataDir(busy, server.dataDir)).rejects.toThrow(/not a Lore backup/);
    writeFileSync(join(busy, "backup.json"), "{}");
    await expect(restoreDataDir(busy, server.dataDir)).rejects.toThrow(/Stop the server/);
  }, 60_000);
});
