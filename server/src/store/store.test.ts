import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Store } from "./store.ts";

describe("Store", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps LanceDB's caches in the configured session and within its bound", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-store-"));
    dirs.push(dir);
    const store = await Store.open(dir, { indexMb: 1, metadataMb: 1 });
    try {
      for (let i = 0; i < 200; i++) {
        await store.messages.append({
          id: `m${i}`,
          conversation_id: "c",
          agent_id: "a",
          seq: i,
          data: "x".repeat(200),
        });
      }
      await store.messages.table.countRows();
      const cache = store.cacheStats();
      // No items would mean the connection ignored the session (and used the 6 GB + 1 GB defaults).
      expect(cache.items).toBeGreaterThan(0);
      expect(cache.bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    } finally {
      await store.close();
    }
  }, 60_000);
});
