import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, copyFile, cp, link, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { createConnection, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Connection, connect } from "@lancedb/lancedb";
import { LOCK_FILE, liveLocalHolder } from "./data-dir-lock.ts";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./permissions.ts";
import { writeGate } from "./write-queue.ts";

export interface BackupManifest {
  format: 2;
  createdAt: string;
  /** Each LanceDB table's committed version at the snapshot instant. */
  tables: Record<string, number>;
  files: number;
  /** How long writes were paused (ms). */
  pausedMs: number;
}

const SKIP = new Set([LOCK_FILE, "control.sock"]);

/**
 * Where a running server listens for `lore backup`: a Unix socket in the data dir (only who may
 * read the data may ask), or in the temp dir when the path would pass the 107-byte socket limit.
 */
export function controlSocketPath(dataDir: string): string {
  const inDir = join(resolve(dataDir), "control.sock");
  if (Buffer.byteLength(inDir) < 100) return inDir;
  return join(
    tmpdir(),
    `lore-${createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 16)}.sock`,
  );
}

/** Files LanceDB and Lore never rewrite in place may be hard-linked; everything else is copied. */
function linkable(relative: string): boolean {
  return !relative.includes("_versions") && !relative.endsWith(".json") && relative !== "jwt-secret";
}

async function cloneTree(from: string, to: string, relative = ""): Promise<number> {
  await mkdir(to, { recursive: true, mode: PRIVATE_DIR_MODE });
  let count = 0;
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.endsWith(".tmp") || entry.name === ".backup-staging") continue;
    const src = join(from, entry.name);
    const dst = join(to, entry.name);
    const rel = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) count += await cloneTree(src, dst, rel);
    else if (entry.isFile()) {
      count += 1;
      if (linkable(rel)) {
        try {
          await link(src, dst); // instant, and a later compaction deleting `src` leaves the backup intact
          continue;
        } catch {
          // another filesystem (EXDEV) or no hard links: copy instead
        }
      }
      await copyFile(src, dst);
    }
  }
  return count;
}

async function tableVersions(db: Connection): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of (await db.tableNames()).sort()) {
    const table = await db.openTable(name);
    out[name] = await table.version();
    table.close();
  }
  return out;
}

async function assertEmptyTarget(target: string): Promise<void> {
  if (existsSync(target) && (await readdir(target)).length > 0) throw new Error(`${target} is not empty`);
}

/**
 * A consistent snapshot of a data directory whose server runs in this process: writes pause (every
 * table's write queue waits at the gate), each table's version is recorded, the files are
 * hard-linked or copied, then writes resume. Reads are never paused.
 */
export async function snapshotDataDir(
  dataDir: string,
  target: string,
  db: Connection,
): Promise<BackupManifest> {
  await assertEmptyTarget(target);
  const started = performance.now();
  const resume = await writeGate.pause();
  let tables: Record<string, number>;
  let files: number;
  try {
    tables = await tableVersions(db);
    files = await cloneTree(dataDir, target);
  } finally {
    resume();
  }
  const manifest: BackupManifest = {
    format: 2,
    createdAt: new Date().toISOString(),
    tables,
    files,
    pausedMs: Math.round(performance.now() - started),
  };
  await writeFile(join(target, "backup.json"), JSON.stringify(manifest, null, 2), {
    mode: PRIVATE_FILE_MODE,
  });
  return manifest;
}

/** Serves `lore backup` requests for the server that owns `dataDir`. */
export async function startBackupControl(
  dataDir: string,
  db: Connection,
): Promise<{ close(): Promise<void> }> {
  const path = controlSocketPath(dataDir);
  await rm(path, { force: true });
  const server: Server = createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf("\n");
      if (end < 0) {
        if (buffer.length > 10_000) socket.destroy();
        return;
      }
      const line = buffer.slice(0, end);
      buffer = "";
      void (async () => {
        try {
          const request = JSON.parse(line) as { op?: unknown; to?: unknown };
          if (request.op !== "backup" || typeof request.to !== "string")
            throw new Error("expected {op: 'backup', to}");
          const manifest = await snapshotDataDir(dataDir, resolve(request.to), db);
          socket.end(`${JSON.stringify({ ok: true, manifest })}\n`);
        } catch (error) {
          socket.end(
            `${JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) })}\n`,
          );
        }
      })();
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((res, rej) => {
    server.once("error", rej);
    server.listen(path, () => res());
  });
  await chmod(path, 0o600);
  return {
    close: () =>
      new Promise<void>((res) => {
        server.close(() => res());
        void rm(path, { force: true });
      }),
  };
}

function askServer(dataDir: string, target: string): Promise<BackupManifest> {
  return new Promise((res, rej) => {
    const socket = createConnection(controlSocketPath(dataDir));
    let reply = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ op: "backup", to: target })}\n`));
    socket.on("data", (c: string) => {
      reply += c;
    });
    socket.on("error", (error) =>
      rej(new Error(`cannot reach the running server's backup socket: ${error.message}`)),
    );
    socket.on("end", () => {
      try {
        const parsed = JSON.parse(reply) as { ok: boolean; manifest?: BackupManifest; error?: string };
        if (parsed.ok && parsed.manifest) res(parsed.manifest);
        else rej(new Error(parsed.error ?? "backup failed"));
      } catch {
        rej(new Error("the server closed the backup socket without an answer"));
      }
    });
  });
}

/**
 * `lore backup`: asks the running server for a consistent snapshot (writes paused for the instant
 * of the copy); with no server running, snapshots the directory directly.
 */
export async function backupDataDir(dataDir: string, target: string): Promise<BackupManifest> {
  const absolute = resolve(target);
  if (absolute.startsWith(`${resolve(dataDir)}/`))
    throw new Error("The backup target must be outside the data directory");
  await assertEmptyTarget(absolute);
  if (liveLocalHolder(dataDir) !== null) return askServer(dataDir, absolute);
  const db = await connect(join(dataDir, "lance"));
  try {
    return await snapshotDataDir(dataDir, absolute, db);
  } finally {
    db.close();
  }
}

/**
 * `lore restore`: copies a backup into the (stopped) data directory, puts every table back at the
 * version recorded in the manifest, and checks that each one opens.
 */
export async function restoreDataDir(source: string, dataDir: string): Promise<BackupManifest> {
  const manifestFile = join(source, "backup.json");
  if (!existsSync(manifestFile)) throw new Error(`${source} is not a Lore backup (no backup.json)`);
  if (liveLocalHolder(dataDir) !== null) throw new Error("Stop the server before restoring");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as BackupManifest | { tables: string[] };
  await rm(dataDir, { recursive: true, force: true });
  await cp(source, dataDir, { recursive: true, filter: (src) => !src.endsWith("backup.json") });
  if (Array.isArray(manifest.tables)) return { format: 2, createdAt: "", tables: {}, files: 0, pausedMs: 0 }; // a format-1 copy
  const db = await connect(join(dataDir, "lance"));
  try {
    const present = new Set(await db.tableNames());
    for (const [name, version] of Object.entries(manifest.tables)) {
      if (!present.has(name)) throw new Error(`table ${name} is missing from the backup`);
      const table = await db.openTable(name);
      if ((await table.version()) !== version) {
        // Files of a later version were caught by the copy: go back to the snapshot's version.
        await table.checkout(version);
        await table.restore();
      }
      await table.countRows();
      table.close();
    }
  } finally {
    db.close();
  }
  await stat(join(dataDir, "lance"));
  return manifest as BackupManifest;
}
