import { existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { PRIVATE_FILE_MODE } from "./permissions.ts";

/**
 * One server per data directory: a second one would interleave commits. The lock file names its
 * holder by host and pid. On the same host a lock whose process is gone is taken over. A holder on
 * another host (a second container on a shared volume, where every server is pid 1) cannot be asked
 * whether it lives, so the holder touches the file every HEARTBEAT_MS and a lock untouched for
 * STALE_MS is taken over.
 */
export const LOCK_FILE = "lore.lock";
const HEARTBEAT_MS = 10_000;
const STALE_MS = 30_000;

export interface LockOwner {
  pid: number;
  host: string;
}

/** The lock's holder as written, or null; a lock from before hosts were recorded holds a bare pid. */
export function readLockOwner(dataDir: string): LockOwner | null {
  const file = join(dataDir, LOCK_FILE);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, "utf8").trim();
  if (/^\d+$/.test(text)) return { pid: Number(text), host: hostname() };
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    return typeof owner.pid === "number" && typeof owner.host === "string"
      ? { pid: owner.pid, host: owner.host }
      : null;
  } catch {
    return null;
  }
}

/** The pid of a live server on this host holding the directory, or null. */
export function liveLocalHolder(dataDir: string): number | null {
  const owner = readLockOwner(dataDir);
  return owner && owner.host === hostname() && isAlive(owner.pid) ? owner.pid : null;
}

export class DataDirLock {
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(private readonly file: string) {
    this.heartbeat = setInterval(() => this.touch(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  static acquire(dataDir: string, now = Date.now()): DataDirLock {
    const file = join(dataDir, LOCK_FILE);
    const owner = readLockOwner(dataDir);
    if (owner) {
      const local = owner.host === hostname();
      const held = local
        ? owner.pid !== process.pid && isAlive(owner.pid)
        : now - statSync(file).mtimeMs < STALE_MS;
      if (held) {
        const where = local ? `process ${owner.pid}` : `process ${owner.pid} on ${owner.host}`;
        throw new Error(`The data directory ${dataDir} is in use by ${where}`);
      }
    }
    const mine: LockOwner = { pid: process.pid, host: hostname() };
    writeFileSync(file, JSON.stringify(mine), { mode: PRIVATE_FILE_MODE });
    return new DataDirLock(file);
  }

  release(): void {
    clearInterval(this.heartbeat);
    rmSync(this.file, { force: true });
  }

  private touch(): void {
    const now = new Date();
    try {
      utimesSync(this.file, now, now);
    } catch {
      // Removed under us (a data directory deleted while running): nothing left to guard.
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
