/**
 * The shared-mode change feed against a real Redis: changes reach the other replicas in order,
 * `settled` waits for them, and missed changes (a gap, Redis losing its data, a commit whose notice
 * died with its replica) reload from storage.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../../test/helpers/redis.ts";
import { createLogger } from "../log/logger.ts";
import { RedisChangeFeed } from "./change-feed.ts";
import { RecordTable } from "./record-table.ts";

let redis: TestRedis;
const clients: Redis[] = [];
const feeds: RedisChangeFeed[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const feed of feeds) await feed.close();
  for (const client of clients) client.disconnect();
  await redis.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
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

  it("shows a row whose commit lost its notice once a replica starts, or replays a dead one's journal", async () => {
    const storage = mkdtempSync(join(tmpdir(), "lore-feed-"));
    dirs.push(storage);
    type Row = { id: string; name: string };
    // A replica: its feed, then its copy of the table loaded from the shared storage.
    const open = async () => {
      const client = new Redis(redis.url);
      clients.push(client);
      const feed = await RedisChangeFeed.open(client, createLogger("silent"));
      feeds.push(feed);
      const db = await connect(storage, { readConsistencyInterval: 0 });
      const rows = await RecordTable.open<Row>(db, "agents", feed);
      feed.start();
      return { feed, rows };
    };
    // What a replica killed between its commit and the notice leaves: the row, and no notice.
    const commitUnannounced = async (row: Row) =>
      (await RecordTable.open<Row>(await connect(storage), "agents")).put(row);

    const serving = await open();
    await commitUnannounced({ id: "before-restart", name: "Harbour" });
    await serving.feed.settled();
    expect(serving.rows.get("before-restart")).toBeUndefined();
    // The killed replica starts again and, its tables loaded, has every other replica reload.
    const restarted = await open();
    expect(restarted.rows.get("before-restart")?.name).toBe("Harbour");
    await restarted.feed.reloadEverywhere({ elsewhereOnly: true });
    await serving.feed.settled();
    expect(serving.rows.get("before-restart")?.name).toBe("Harbour");

    // A replica that died for good: the one replaying its journal reloads, and so does every other.
    await commitUnannounced({ id: "never-back", name: "Ferry" });
    await serving.feed.reloadEverywhere();
    await serving.feed.settled();
    await restarted.feed.settled();
    expect(serving.rows.get("never-back")?.name).toBe("Ferry");
    expect(restarted.rows.get("never-back")?.name).toBe("Ferry");
  });

  it("keeps count of notices it could not send, through close (a stop that is not clean)", async () => {
    const sent = await replica();
    await sent.feed.publish({ table: "agents", ids: ["announced"] });
    await sent.feed.close();
    expect(sent.feed.unsentCount).toBe(0);

    const cut = await replica();
    const client = clients.at(-1);
    // Redis gone for this replica: the commit is made, its notice cannot be.
    client?.disconnect();
    await cut.feed.publish({ table: "agents", ids: ["unannounced"] });
    expect(cut.feed.unsentCount).toBe(1);
    await cut.feed.close();
    expect(cut.feed.unsentCount).toBe(1);
  });
});
