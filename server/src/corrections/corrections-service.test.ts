import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentRecord } from "../store/records.ts";
import { Store } from "../store/store.ts";
import { type CorrectionRecord, CorrectionsService } from "./corrections-service.ts";

describe("corrections stored before wordings and staleness", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("read as having no other wordings and not stale, and still answer their question", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-corrections-"));
    dirs.push(dir);
    const store = await Store.open(dir, { indexMb: 1, metadataMb: 1 });
    try {
      const agent = { id: randomUUID(), workspaceId: randomUUID() } as AgentRecord;
      const now = new Date().toISOString();
      // A record as session 25 wrote it: no alsoAnswers, stale, staleSince, staleSource or cited.
      const old = {
        id: randomUUID(),
        agentId: agent.id,
        workspaceId: agent.workspaceId,
        question: "What are your opening hours?",
        answer: "Nine to six.",
        messageId: null,
        createdAt: now,
        updatedAt: now,
      } as CorrectionRecord;
      const table = await store.openRecords<CorrectionRecord>("corrections");
      await table.put(old);
      await table.idle();

      const service = await CorrectionsService.open(store);
      const { workspaceId: _w, ...stored } = old;
      expect(service.list(agent.id)).toEqual([
        { ...stored, alsoAnswers: [], stale: false, staleSince: null, staleSource: null },
      ]);
      const found = await service.find(agent, "When are you open?", new AbortController().signal);
      expect(found?.correction.id).toBe(old.id);
      // A sync completing finds nothing to mark: it cited nothing.
      expect(await service.markStale(agent.workspaceId, randomUUID())).toBe(0);
      await service.idle();
    } finally {
      await store.close();
    }
  });
});
