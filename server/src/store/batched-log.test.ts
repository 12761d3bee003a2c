import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";
import { Field, Schema, Utf8 } from "apache-arrow";
import { afterEach, describe, expect, it } from "vitest";
import { BatchedLog } from "./batched-log.ts";

const schema = new Schema([new Field("id", new Utf8(), false)]);

describe("a batched log", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("compacts what an earlier process appended, at its first compaction, however few rows it adds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-batched-log-"));
    dirs.push(dir);
    // An earlier process: twelve commits, stopped before its compaction was due.
    const earlier = await BatchedLog.open<{ id: string }>(await connect(dir), "events", schema);
    for (let i = 0; i < 12; i++) await earlier.append({ id: `row-${i}` });
    expect((await earlier.table.stats()).fragmentStats.numFragments).toBe(12);

    const next = await BatchedLog.open<{ id: string }>(await connect(dir), "events", schema);
    await next.compact();
    expect((await next.table.stats()).fragmentStats.numFragments).toBe(1);
    expect(await next.table.countRows()).toBe(12);
    // Then, as before, only once enough was written since.
    await next.append({ id: "row-12" });
    await next.compact();
    expect((await next.table.stats()).fragmentStats.numFragments).toBe(2);
  });
});
