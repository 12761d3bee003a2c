import { connectRedis } from "@lore/server/http/redis.ts";
import { createLocalLease, createRedisLease } from "@lore/server/jobs/lease.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../helpers/redis.ts";

type Redis = Awaited<ReturnType<typeof connectRedis>>;

let server: TestRedis;
let a: Redis;
let b: Redis;
beforeAll(async () => {
  server = await startRedis();
  a = await connectRedis(server.url);
  b = await connectRedis(server.url);
});
afterAll(async () => {
  a?.disconnect();
  b?.disconnect();
  await server?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("job leases in Redis", { timeout: 30_000 }, () => {
  it("runs a job on one replica at a time, and on another once the first is done", async () => {
    const first = createRedisLease(a, { ttlMs: 2000 });
    const second = createRedisLease(b, { ttlMs: 2000 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = first.runExclusive("sync:source-1", async () => {
      await held;
      return "first";
    });
    await sleep(50);
    expect(await second.runExclusive("sync:source-1", async () => "second")).toEqual({ ran: false });
    // Another job's lease is independent.
    expect(await second.runExclusive("sync:source-2", async () => "other")).toEqual({
      ran: true,
      value: "other",
    });
    release();
    expect(await running).toEqual({ ran: true, value: "first" });
    expect(await second.runExclusive("sync:source-1", async () => "second")).toEqual({
      ran: true,
      value: "second",
    });
  });

  it("keeps a lease past its TTL while the holder works, and lets it lapse when the holder dies", async () => {
    const holder = createRedisLease(a, { ttlMs: 300 });
    const other = createRedisLease(b, { ttlMs: 300 });
    const long = holder.runExclusive("compaction", async (signal) => {
      await sleep(1000); // three TTLs: renewed meanwhile
      return signal.aborted;
    });
    await sleep(700);
    expect(await other.runExclusive("compaction", async () => "stolen")).toEqual({ ran: false });
    expect(await long).toEqual({ ran: true, value: false });

    // A holder killed mid-job never renews or releases: its lease lapses after the TTL.
    await a.set("lore:lease:webhooks", "a-dead-replica", "PX", 300);
    expect(await other.runExclusive("webhooks", async () => "taken")).toEqual({ ran: false });
    await sleep(400);
    expect(await other.runExclusive("webhooks", async () => "taken")).toEqual({ ran: true, value: "taken" });
  });

  it("tells a holder that lost its lease, and never lets it delete the new holder's", async () => {
    const holder = createRedisLease(a, { ttlMs: 300 });
    const job = holder.runExclusive("replay", async (signal) => {
      // Someone else's lease replaces this one (as after a pause longer than the TTL).
      await a.set("lore:lease:replay", "another-replica", "PX", 5000);
      await sleep(400);
      return signal.aborted;
    });
    expect(await job).toEqual({ ran: true, value: true });
    expect(await a.get("lore:lease:replay")).toBe("another-replica");
  });

  it("always runs without Redis (one process)", async () => {
    expect(await createLocalLease().runExclusive("sync", async () => 1)).toEqual({ ran: true, value: 1 });
  });
});
