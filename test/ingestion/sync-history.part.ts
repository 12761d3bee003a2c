import { rmSync } from "node:fs";
import type { SyncRun } from "@lore/shared";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createTextSource, syncRuns, waitForSettled } from "./source-helpers.ts";

const dataDir = makeTempDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("sync history retention", () => {
  it("keeps the newest LORE_SYNC_HISTORY finished runs per source, across a restart", async () => {
    const env = { LORE_DATA_DIR: dataDir, LORE_SYNC_HISTORY: "3" };
    server = await startTestServer(env);
    const { access: token } = await server.login();
    const source = await createTextSource(server, token, "Resynced", [
      { title: "Only", content: "A document that is synced again and again." },
    ]);
    await waitForSettled(server, token, source.id);
    const queued: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call<SyncRun>(server, "POST", `/data-sources/${source.id}/sync/`, token);
      expect(res.status).toBe(202);
      queued.push(res.body.id);
      await waitForSettled(server, token, source.id);
    }
    const newestThree = queued.slice(-3).reverse();
    const kept = await syncRuns(server, token, source.id);
    expect(kept.map((r) => r.id)).toEqual(newestThree);
    expect(kept.every((r) => r.status === "completed" && r.trigger === "manual")).toBe(true);

    await server.close();
    server = await startTestServer(env);
    const afterRestart = await syncRuns(server, (await server.login()).access, source.id);
    expect(afterRestart.map((r) => r.id)).toEqual(newestThree);
  });
});
