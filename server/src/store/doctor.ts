import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { connect, type Table } from "@lancedb/lancedb";
import { readByFragment } from "./fragments.ts";
import { StorageHealth } from "./storage-health.ts";

/** One line of `lore doctor`: what was checked, whether it is sound, and what was found. */
export interface DoctorCheck {
  what: string;
  ok: boolean;
  detail: string;
}

const REPAIR =
  'restore a backup (`lore restore --from DIR` with the server stopped, docs/operations.md "Backups")';

/** `; damaged: data/X.lance (N rows), …` for a table that opens but cannot be read; "" when none is found. */
async function damagedFiles(table: Table, tableDir: string): Promise<string> {
  try {
    const columns = (await table.schema()).fields.map((f) => f.name);
    const { damaged } = await readByFragment(table, columns, { tableDir, keepRows: false });
    if (damaged.length === 0) return "";
    const named = damaged.map(
      (d) => `${d.file ? `data/${d.file}` : `fragment ${d.fragment}`} (${d.rows} rows)`,
    );
    return `; damaged: ${named.join(", ")}`;
  } catch {
    return "";
  }
}

/**
 * Reads everything a server would at start, with the server stopped: the disk, every table (opened
 * and read to its last row, so a truncated or garbled data file shows), the search-index snapshot
 * and the conversation journal. Says which part is damaged and how to repair it.
 */
export async function examineDataDir(dataDir: string, storageUri: string): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  if (!existsSync(dataDir)) {
    return [{ what: "data directory", ok: false, detail: `${dataDir} does not exist` }];
  }
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const health = new StorageHealth(dataDir, silent, 0);
  const state = health.probe();
  checks.push({
    what: "data directory",
    ok: state === "ok",
    detail: state === "ok" ? `${dataDir} is writable` : `${dataDir}: ${state}`,
  });

  const db = await connect(storageUri);
  for (const name of (await db.tableNames()).sort()) {
    let table: Table | null = null;
    try {
      table = await db.openTable(name);
      const version = await table.version();
      let rows = 0;
      // Every column of every row: a damaged data file fails here, not on some later request.
      for await (const batch of table.query()) rows += batch.numRows;
      table.close();
      checks.push({ what: `table ${name}`, ok: true, detail: `version ${version}, ${rows} rows read` });
    } catch (error) {
      const files = table ? await damagedFiles(table, join(storageUri, `${name}.lance`)) : "";
      table?.close();
      checks.push({
        what: `table ${name}`,
        ok: false,
        detail: `cannot be read: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}${files}; ${REPAIR}`,
      });
    }
  }

  const snapshot = join(dataDir, "index", "chunks.snapshot");
  if (existsSync(snapshot)) {
    const bytes = statSync(snapshot).size;
    checks.push({
      what: "search-index snapshot",
      ok: true,
      detail: `${bytes} bytes; a damaged or stale one is ignored at start (the index is rebuilt from retrieval_chunks)`,
    });
  } else {
    checks.push({
      what: "search-index snapshot",
      ok: true,
      detail: "none (the next start builds the index)",
    });
  }

  const journal = join(dataDir, "journal", "conversations");
  if (existsSync(journal)) {
    let entries = 0;
    let torn = 0;
    for (const file of readdirSync(journal).filter((f) => f.endsWith(".jsonl"))) {
      for (const line of readFileSync(join(journal, file), "utf8").split("\n")) {
        if (!line.trim()) continue;
        try {
          JSON.parse(line);
          entries += 1;
        } catch {
          torn += 1;
        }
      }
    }
    checks.push({
      what: "conversation journal",
      ok: true,
      detail: `${entries} entries waiting to be applied at start${torn > 0 ? `, ${torn} torn line(s) (a write a crash cut off; skipped)` : ""}`,
    });
  }
  return checks;
}
