import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DataSourceRecord } from "../store/records.ts";
import { Store } from "../store/store.ts";
import { AgentsService } from "./agents-service.ts";

describe("AgentsService.toAgentJson", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("is JSON.stringify(toAgent()) as the agent and its sources change", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-agents-"));
    dirs.push(dir);
    const store = await Store.open(dir, { indexMb: 1, metadataMb: 1 });
    try {
      const workspaceId = randomUUID();
      const now = new Date().toISOString();
      const source: DataSourceRecord = {
        id: randomUUID(),
        workspaceId,
        name: "Docs",
        type: "text",
        config: {},
        status: "queued",
        progress: { total: 0, processed: 0 },
        lastSyncedAt: null,
        lastError: null,
        documentCount: 0,
        chunkCount: 0,
        schedule: null,
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
        everReady: false,
      };
      await store.dataSources.put(source);
      const agents = new AgentsService(store, { model: "extractive", semanticSearch: false });
      const created = await agents.create(workspaceId, { name: "Help", dataSourceIds: [source.id] });
      const expectJson = (record: typeof created, status: string) => {
        const json = agents.toAgentJson(record);
        expect(json).toBe(JSON.stringify(agents.toAgent(record)));
        expect(JSON.parse(json).status).toBe(status);
      };

      expectJson(created, "processing");
      expectJson(created, "processing"); // from the cache
      await store.dataSources.put({ ...source, status: "ready", everReady: true });
      expectJson(created, "ready");
      const renamed = await agents.update(created, { name: "Support" });
      expectJson(renamed, "ready");
      expect(JSON.parse(agents.toAgentJson(renamed)).name).toBe("Support");
      expect(JSON.parse(agents.toAgentJson(created)).name).toBe("Help");
    } finally {
      await store.close();
    }
  }, 60_000);
});
