import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createTextSource, sleep, waitForSettled } from "./source-helpers.ts";

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ LORE_SYNC_CONCURRENCY: "2" });
  token = (await server.login()).access;
});
afterAll(() => server?.close());

describe("sources deleted in a steady stream", () => {
  it("are purged as they come, without holding back the syncs of other sources", async () => {
    const kb = await createTextSource(server, token, "Resynced", [
      { title: "Market", content: "The market opens at nine." },
    ]);
    await waitForSettled(server, token, kb.id);
    const unpurged = () => server.services.store.dataSources.filter((s) => s.deletedAt !== null).length;
    let churning = true;
    let created = 0;
    let backlog = 0;
    const churn = Array.from({ length: 6 }, async (_, loop) => {
      while (churning) {
        if (loop % 3 === 2) {
          await call(server, "POST", `/data-sources/${kb.id}/sync/`, token);
          continue;
        }
        created += 1;
        const s = await createTextSource(server, token, `Churn ${created}`, [
          { title: "Churn", content: `The churned kiosk ${created} sells umbrellas.` },
        ]);
        await call(server, "DELETE", `/data-sources/${s.id}/`, token);
        backlog = Math.max(backlog, unpurged());
      }
    });
    try {
      await sleep(4_000);
      const target = await createTextSource(server, token, "Target", [
        { title: "Ferry", content: "The harbour ferry leaves every twenty minutes." },
      ]);
      expect((await waitForSettled(server, token, target.id, 15_000)).status).toBe("ready");
    } finally {
      churning = false;
      await Promise.all(churn);
    }
    expect(created).toBeGreaterThan(20);
    // Deleted sources are purged together beside the syncs: the backlog stays a small share of the
    // stream (seen: 5 of 49; purged one by one inside the sync loop it was 21 of ~35).
    expect(backlog).toBeLessThan(created / 4);
    for (let i = 0; i < 100 && unpurged() > 0; i++) await sleep(50);
    expect(unpurged()).toBe(0);
  });
});
