import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectRedis } from "@lore/server/http/redis.ts";
import { createLocalLease, createRedisLease, LeaseUnavailableError } from "@lore/server/jobs/lease.ts";
import { ReplicaPresence } from "@lore/server/jobs/replica-presence.ts";
import { createLogger } from "@lore/server/log/logger.ts";
import { RedisChangeFeed } from "@lore/server/store/change-feed.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../helpers/redis.ts";
import { makeTempDir } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";

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

describe("Redis down: no wait, local coordination", { timeout: 30_000 }, () => {
  it("refuses a lease at once and serializes a request's check on this replica alone", async () => {
    const own = await startRedis();
    const client = await connectRedis(own.url);
    const feed = await RedisChangeFeed.open(client, createLogger("silent"));
    feed.start();
    try {
      expect(await feed.serialize("table:agents", async () => "fleet-wide")).toBe("fleet-wide");
      await own.stop();
      const started = performance.now();
      await expect(createRedisLease(client).runExclusive("sync:x", async () => 1)).rejects.toBeInstanceOf(
        LeaseUnavailableError,
      );
      // Two checks under one name still run one at a time, in order, without Redis.
      const order: string[] = [];
      const slow = feed.serialize("table:agents", async () => {
        await sleep(50);
        order.push("first");
      });
      const quick = feed.serialize("table:agents", async () => {
        order.push("second");
      });
      await Promise.all([slow, quick]);
      expect(order).toEqual(["first", "second"]);
      await feed.settled();
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await feed.close();
      client.disconnect();
      await own.close();
    }
  });
});

describe("replaying a stopped replica's journal", { timeout: 30_000 }, () => {
  it("waits while the replica still beats in the storage, whatever its Redis key says", async () => {
    const journals = makeTempDir("lore-journals-");
    const live = randomUUID();
    const timing = { aliveMs: 400, beatMs: 50 };
    const replayed: string[] = [];
    const presence = (replicaId: string) =>
      new ReplicaPresence({
        redis: a,
        lease: createRedisLease(a, { ttlMs: 2000 }),
        logger: createLogger("silent"),
        journals,
        replicaId,
        replay: async (dir) => {
          replayed.push(dir);
        },
        timing,
      });
    const liveOne = presence(live);
    const sweeper = presence(randomUUID());
    try {
      await liveOne.announce();
      // The live replica has acknowledged turns not yet in LanceDB.
      mkdirSync(join(journals, live, "conversations"), { recursive: true });
      writeFileSync(join(journals, live, "conversations", "current.jsonl"), "{}\n");
      // Redis restarted without persistence: every heartbeat key is gone.
      await a.flushall();
      for (let i = 0; i < 4; i++) {
        expect(await sweeper.sweep()).toEqual([]);
        await sleep(200);
      }
      expect(replayed).toEqual([]);
      // Now it really stops: its heartbeat no longer changes, and its journal is replayed.
      await liveOne.stop();
      await until(async () => (await sweeper.sweep()).length > 0, {
        timeout: 5_000,
        interval: 100,
        what: "the stopped replica's journal replayed",
      });
      expect(replayed).toEqual([join(journals, live)]);
    } finally {
      await liveOne.stop();
      await sweeper.stop();
      rmSync(journals, { recursive: true, force: true });
    }
  });
});
