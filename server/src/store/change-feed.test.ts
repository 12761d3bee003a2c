/**
 * The shared-mode change feed against a real Redis: changes reach the other replicas in order,
 * `settled` waits for them, and missed changes (a gap, Redis losing its data) reload from storage.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../../test/helpers/redis.ts";
import { createLogger } from "../log/logger.ts";
import { RedisChangeFeed } from "./change-feed.ts";

let redis: TestRedis;
const clients: Redis[] = [];
const feeds: RedisChangeFeed[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const feed of feeds) await feed.close();
  for (const client of clients) client.disconnect();
  await redis.close();
});

async function replica(): Promise<{ feed: RedisChangeFeed; seen: Array<readonly string[] | null> }> {
  const client = new Redis(redis.url);
  clients.push(client);
  const feed = await RedisChangeFeed.open(client, createLogger("silent"));
  feeds.push(feed);
  const seen: Array<readonly string[] | null> = [];
  feed.on("agents", async (ids) => {
    // Applying takes a while, as re-reading rows from LanceDB does.
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen.push(ids);
  });
  feed.start();
  return { feed, seen };
}

describe("the change feed", () => {
  it("applies another replica's changes in order, and `settled` waits until they are applied", async () => {
    const a = await replica();
    const b = await replica();
    await a.feed.publish({ table: "agents", ids: ["one"] });
    await a.feed.publish({ table: "agents", ids: ["two", "three"] });
    await b.feed.settled();
    expect(b.seen).toEqual([["one"], ["two", "three"]]);
    // A replica does not re-read its own writes.
    await a.feed.settled();
    expect(a.seen).toEqual([]);
  });

  it("reloads everything when it missed a change, and when Redis lost its data", async () => {
    const a = await replica();
    const b = await replica();
    const control = new Redis(redis.url);
    clients.push(control);
    // A change numbered but never delivered to b (as when b's connection dropped meanwhile).
    await control.incr("lore:changes:seq");
    await a.feed.publish({ table: "agents", ids: ["after-gap"] });
    await b.feed.settled();
    expect(b.seen).toEqual([null]);

    // Redis restarted empty: the sequence is back below what b applied.
    await control.flushall();
    await b.feed.settled();
    await a.feed.publish({ table: "agents", ids: ["after-reset"] });
    await b.feed.settled();
    expect(b.seen[1]).toBeNull();
    expect(b.seen.at(-1)).toEqual(["after-reset"]);
  });
});
