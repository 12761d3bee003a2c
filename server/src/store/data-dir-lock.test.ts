import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DataDirLock, LOCK_FILE, liveLocalHolder } from "./data-dir-lock.ts";

const dirs: string[] = [];
function dataDir(lock?: string, ageMs = 0): string {
  const dir = mkdtempSync(join(tmpdir(), "lore-lock-"));
  dirs.push(dir);
  if (lock !== undefined) {
    const file = join(dir, LOCK_FILE);
    writeFileSync(file, lock);
    const when = new Date(Date.now() - ageMs);
    utimesSync(file, when, when);
  }
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("DataDirLock", () => {
  it("names its holder by host and pid, and is gone once released", () => {
    const dir = dataDir();
    const lock = DataDirLock.acquire(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"))).toEqual({
      pid: process.pid,
      host: hostname(),
    });
    expect(liveLocalHolder(dir)).toBe(process.pid);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it("refuses a directory held by a live process of this host, also in the old bare-pid format", () => {
    const dir = dataDir(String(process.ppid));
    expect(() => DataDirLock.acquire(dir)).toThrow(`in use by process ${process.ppid}`);
    const json = dataDir(JSON.stringify({ pid: process.ppid, host: hostname() }));
    expect(() => DataDirLock.acquire(json)).toThrow("in use");
  });

  it("takes over the lock of a process that is gone", () => {
    const dir = dataDir(JSON.stringify({ pid: 2 ** 22 + 7, host: hostname() }));
    DataDirLock.acquire(dir).release();
  });

  it("refuses a lock another host (another container, also pid 1) keeps touching, and takes over a stale one", () => {
    const fresh = dataDir(JSON.stringify({ pid: 1, host: "replica-b" }), 5_000);
    expect(() => DataDirLock.acquire(fresh)).toThrow("in use by process 1 on replica-b");
    expect(liveLocalHolder(fresh)).toBeNull();
    const stale = dataDir(JSON.stringify({ pid: 1, host: "replica-b" }), 60_000);
    DataDirLock.acquire(stale).release();
  });
});
