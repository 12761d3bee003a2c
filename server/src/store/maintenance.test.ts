import { afterEach, describe, expect, it, vi } from "vitest";
import { EventBus } from "../events/event-bus.ts";
import { createLogger } from "../log/logger.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import { CLEANUP_AGE_MS, CompactionPolicy, startMaintenance } from "./maintenance.ts";
import type { Store } from "./store.ts";

const stats = (fragmentsRemoved: number) => ({
  compaction: { fragmentsRemoved, fragmentsAdded: 0, filesRemoved: 0, filesAdded: 0 },
  prune: { bytesRemoved: 0, oldVersionsRemoved: 0 },
});

describe("CompactionPolicy", () => {
  it("is due after enough commits, or enough bytes, whichever comes first", () => {
    const byCount = new CompactionPolicy(3, 1_000);
    byCount.wrote(10, 0);
    byCount.wrote(10, 0);
    expect(byCount.due(false, 0)).toBe(false);
    byCount.wrote(10, 0);
    expect(byCount.due(false, 0)).toBe(true);

    const byBytes = new CompactionPolicy(20, 1_000);
    byBytes.wrote(999, 0);
    expect(byBytes.due(false, 0)).toBe(false);
    byBytes.wrote(1, 0);
    expect(byBytes.due(false, 0)).toBe(true);
  });

  it("cleans a single write once it is older than the cleanup age, and stops when nothing is left", () => {
    const policy = new CompactionPolicy();
    policy.wrote(10, 1_000);
    expect(policy.due(false, 1_000 + CLEANUP_AGE_MS - 1)).toBe(false);
    expect(policy.due(false, 1_000 + CLEANUP_AGE_MS)).toBe(true);
    // That compaction rewrote fragments: their old copies wait one more cleanup age.
    const at = 1_000 + CLEANUP_AGE_MS;
    policy.compacted(stats(2), at);
    expect(policy.due(false, at + CLEANUP_AGE_MS - 1)).toBe(false);
    expect(policy.due(false, at + CLEANUP_AGE_MS)).toBe(true);
    policy.compacted(stats(0), at + CLEANUP_AGE_MS);
    expect(policy.due(false, at + 10 * CLEANUP_AGE_MS)).toBe(false);
  });

  it("keeps writes younger than the cleanup age pending after a forced compaction", () => {
    const policy = new CompactionPolicy();
    expect(policy.due(true, 0)).toBe(false); // nothing written: nothing to do
    policy.wrote(10, 5_000);
    expect(policy.due(true, 5_000)).toBe(true);
    policy.compacted(stats(0), 5_000);
    expect(policy.due(false, 5_000 + CLEANUP_AGE_MS - 1)).toBe(false);
    expect(policy.due(false, 5_000 + CLEANUP_AGE_MS)).toBe(true);
  });
});

describe("stopping the upkeep", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits for the compaction under way, which goes on to no further table", async () => {
    vi.useFakeTimers();
    let finish = () => {};
    const compacted: string[] = [];
    // The store's tables, compacted one after the other until the upkeep stops.
    const store = {
      async compact(stopping: () => boolean) {
        for (const name of ["agents", "api_keys", "messages"]) {
          if (stopping()) return;
          compacted.push(name);
          if (name === "agents") await new Promise<void>((done) => (finish = done));
        }
      },
    } as unknown as Store;
    const index = { optimizeTables: async () => {}, optimizeMemory: async () => {} } as unknown as ChunkIndex;
    const other = { compact: vi.fn(async () => {}) };
    const stop = startMaintenance({
      store,
      index,
      events: new EventBus(),
      logger: createLogger("silent"),
      tables: [other],
    });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(compacted).toEqual(["agents"]);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    // The store must not close under a table being compacted.
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(compacted).toEqual(["agents"]);
    expect(other.compact).not.toHaveBeenCalled();
    // Nothing starts after the stop.
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(compacted).toEqual(["agents"]);
  });
});
