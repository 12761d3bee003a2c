import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Table } from "@lancedb/lancedb";
import { afterEach, describe, expect, it } from "vitest";
import { fragmentFiles, readByFragment } from "./fragments.ts";

describe("readByFragment", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A table of three commits (three data files, oldest first) of four rows each, `c0`…`c2`. */
  async function threeCommits(): Promise<{ table: Table; tableDir: string; files: string[] }> {
    const dir = mkdtempSync(join(tmpdir(), "lore-fragments-"));
    dirs.push(dir);
    const db = await connect(dir);
    const rows = (c: number) =>
      Array.from({ length: 4 }, (_, k) => ({
        id: `c${c}-m${k}`,
        key: `c${c}`,
        data: `text ${k} `.repeat(30),
      }));
    const table = await db.createTable("t", rows(0));
    await table.add(rows(1));
    await table.add(rows(2));
    const tableDir = join(dir, "t.lance");
    const data = join(tableDir, "data");
    const files = readdirSync(data).sort(
      (a, b) => statSync(join(data, a)).mtimeMs - statSync(join(data, b)).mtimeMs,
    );
    return { table, tableDir, files };
  }

  it("names each fragment's data file from the manifest", async () => {
    const { table, tableDir, files } = await threeCommits();
    expect([...(await fragmentFiles(table, tableDir)).values()].sort()).toEqual([...files].sort());
  });

  it("reads every row of a sound table, deleted rows left out", async () => {
    const { table, tableDir } = await threeCommits();
    await table.delete("id = 'c1-m0'");
    const read = await readByFragment(table, ["id"], { tableDir });
    expect(read.damaged).toEqual([]);
    expect(read.rows).toHaveLength(11);
    expect(read.rows.map((r) => r.id)).not.toContain("c1-m0");
  });

  it("keeps the other files' rows and names the garbled file, where a query fails whole", async () => {
    const { table, tableDir, files } = await threeCommits();
    const garbled = join(tableDir, "data", files[1] ?? "");
    writeFileSync(garbled, Buffer.alloc(readFileSync(garbled).length, "G"));
    await expect(table.query().where("key = 'c0'").toArray()).rejects.toThrow();
    const read = await readByFragment(table, ["id", "key"], { keys: ["key"], tableDir });
    expect(new Set(read.rows.map((r) => r.key))).toEqual(new Set(["c0", "c2"]));
    expect(read.rows).toHaveLength(8);
    expect(read.damaged).toHaveLength(1);
    expect(read.damaged[0]).toMatchObject({ file: files[1], rows: 4, keys: null });
    expect(read.damaged[0]?.error).toContain("does not appear to be a Lance file");
    expect(read.damaged[0]?.error).not.toContain("/usr/");
  });
});
