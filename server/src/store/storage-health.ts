import { existsSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../log/logger.ts";

/** What the data directory's disk allows: `ok`, or why nothing can be written to it. */
export type StorageState = "ok" | "full" | "read-only" | "missing";

export interface StorageHealthReport {
  state: StorageState;
  /** When the current fault began (ISO 8601); null while `ok`. */
  since: string | null;
  /** Bytes free for this process on the data directory's filesystem; null when it cannot be read. */
  freeBytes: number | null;
  /** Below this, new syncs wait (the floor, capped at a tenth of a small disk). */
  floorBytes: number;
  /** Free space is below the floor: new syncs wait, everything else goes on. */
  lowOnSpace: boolean;
}

const STORAGE_MESSAGE =
  /No space left on device|Read-only file system|Disk quota exceeded|os error (28|30|122)\b/i;
const CODE_STATE: Record<string, Exclude<StorageState, "ok" | "missing">> = {
  ENOSPC: "full",
  EDQUOT: "full",
  EROFS: "read-only",
};

/** The state a storage error stands for (ENOSPC → full, EROFS → read-only), from its code or message; null otherwise. */
export function storageStateOf(error: unknown): Exclude<StorageState, "ok" | "missing"> | null {
  if (!(error instanceof Error)) return null;
  const code = String((error as { code?: unknown }).code ?? "");
  const byCode = CODE_STATE[code];
  if (byCode) return byCode;
  const match = STORAGE_MESSAGE.exec(error.message);
  if (!match) return null;
  return /Read-only|os error 30/i.test(match[0]) ? "read-only" : "full";
}

/** How often the disk is checked: while healthy (a failed write also checks at once), and while not. */
const PROBE_OK_MS = 10_000;
const PROBE_FAULT_MS = 2_000;
/** How often a bulk load waiting for room below the floor looks again. */
const ROOM_POLL_MS = 1_000;
/** A fault still present is logged again this often. */
const REPEAT_LOG_MS = 60_000;
// `.tmp`: a backup skips it.
const PROBE_FILE = ".storage-probe.tmp";
/** A probe writes a page: a full disk refuses it even when an empty file would still fit. */
const PROBE_BYTES = Buffer.alloc(4096);
/** Less free than this (or a twentieth of a small disk) is full: writes would fail half-way. */
const RESERVE_BYTES = 8 * 1024 * 1024;

/**
 * The data directory's disk as a state. A write that fails for want of space, of a writable mount or
 * of the directory itself reports it here (`noteFailure`); a probe (a small file written and removed)
 * confirms it, and keeps checking every couple of seconds until the fault clears, then tells the
 * background writers to resume. Requests that write are refused while the state is not `ok`.
 */
export class StorageHealth {
  private current: StorageState = "ok";
  private sinceMs: number | null = null;
  private lastLogAt = 0;
  private freeBytes: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly recovered: Array<() => void> = [];
  /** Run before writes resume after the directory was `missing` (the tables re-read from disk). */
  private reopen: (() => Promise<void>) | null = null;
  private reopening = false;

  /** The data directory's device and inode at start. */
  private readonly identity: string | null;

  constructor(
    private readonly dataDir: string,
    private readonly logger: Logger,
    private readonly floorMb: number,
  ) {
    this.identity = identityOf(dataDir);
  }

  /** Checks now and then on a timer: every 10 s while healthy, every 2 s during a fault. */
  start(): this {
    this.probe();
    this.schedule();
    return this;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  get state(): StorageState {
    return this.current;
  }

  get writable(): boolean {
    return this.current === "ok";
  }

  /** Free space is below the floor: new syncs wait for room. */
  get lowOnSpace(): boolean {
    return this.freeBytes !== null && this.freeBytes < this.floorBytes();
  }

  /**
   * Resolves once free space is at or above the floor, looked at now and then every second: a bulk
   * load waits here between batches (its client's upload stalls) rather than filling the disk.
   * `signal` ends the wait (the client went away).
   */
  async waitForRoom(signal?: AbortSignal): Promise<void> {
    let waitedSince: number | null = null;
    for (;;) {
      this.readFreeBytes();
      if (!this.lowOnSpace) break;
      if (waitedSince === null) {
        waitedSince = Date.now();
        this.logger.warn("free space is below the floor: a bulk load waits for room", {
          freeBytes: this.freeBytes,
          floorBytes: this.floorBytes(),
        });
      }
      await sleep(ROOM_POLL_MS, undefined, { signal });
    }
    if (waitedSince !== null)
      this.logger.info("room again above the floor: the bulk load goes on", {
        waitedMs: Date.now() - waitedSince,
      });
  }

  private readFreeBytes(): void {
    try {
      const fs = statfsSync(this.dataDir);
      this.freeBytes = Number(fs.bavail) * Number(fs.bsize);
    } catch {
      this.freeBytes = null;
    }
  }

  /** `task` runs before anything is written again once a vanished directory is back. */
  beforeResumingFromMissing(task: () => Promise<void>): void {
    this.reopen = task;
  }

  /** Runs `listener` each time a fault clears. */
  onRecovered(listener: () => void): void {
    this.recovered.push(listener);
  }

  report(): StorageHealthReport {
    return {
      state: this.current,
      since: this.sinceMs === null ? null : new Date(this.sinceMs).toISOString(),
      freeBytes: this.freeBytes,
      floorBytes: this.floorBytes(),
      lowOnSpace: this.lowOnSpace,
    };
  }

  /**
   * A write failed: if the disk is the reason (or the directory is gone), the state changes now and
   * this returns it; for any other failure, null.
   */
  noteFailure(error: unknown): StorageState | null {
    const known = storageStateOf(error);
    const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
    if (!known && code !== "ENOENT") return null;
    // An ENOENT is a storage fault only when the directory itself went.
    const state = this.probe();
    if (state !== "ok") return state;
    // The probe fits in what a large write could not: trust the failed write's word until a probe clears it.
    if (known) this.enter(known);
    return known;
  }

  /** Checks the directory now (exists, takes a page, how much room is left) and moves to what it finds. */
  probe(): StorageState {
    const state = this.check();
    if (state !== "ok") this.enter(state);
    else if (this.current === "missing" && this.reopen) this.reopenThenLeave(this.reopen);
    else this.leave();
    return this.current;
  }

  /** The directory is back: still `missing` to writers until the tables read it again. */
  private reopenThenLeave(reopen: () => Promise<void>): void {
    if (this.reopening) return;
    this.reopening = true;
    void reopen()
      .then(
        () => {
          if (this.check() === "ok") this.leave();
        },
        (error: unknown) =>
          this.logger.error("re-reading the tables after the data directory came back failed", {
            error: String(error),
          }),
      )
      .finally(() => {
        this.reopening = false;
      });
  }

  private check(): StorageState {
    if (!existsSync(this.dataDir)) return "missing";
    // Another directory in its place (one a writer recreated, or the empty mount point of a lost
    // volume) is not the data: still missing until the directory itself is back.
    if (this.identity !== null && identityOf(this.dataDir) !== this.identity) return "missing";
    let reserve = 0;
    try {
      const fs = statfsSync(this.dataDir);
      this.freeBytes = Number(fs.bavail) * Number(fs.bsize);
      reserve = Math.min(RESERVE_BYTES, (Number(fs.blocks) * Number(fs.bsize)) / 20);
    } catch {
      this.freeBytes = null;
    }
    // Nearly full counts as full: a table commit needs more than the probe's page.
    if (this.freeBytes !== null && this.freeBytes < reserve) return "full";
    const file = join(this.dataDir, PROBE_FILE);
    try {
      writeFileSync(file, PROBE_BYTES);
      rmSync(file, { force: true });
      return "ok";
    } catch (error) {
      rmSync(file, { force: true });
      const code = (error as { code?: unknown }).code;
      if (code === "ENOENT") return "missing";
      return storageStateOf(error) ?? "ok";
    }
  }

  private floorBytes(): number {
    const floor = this.floorMb * 1024 * 1024;
    try {
      const fs = statfsSync(this.dataDir);
      // A small disk (a test's tmpfs, a 1 GB volume) keeps a tenth free, not a floor bigger than itself.
      return Math.min(floor, Math.floor((Number(fs.blocks) * Number(fs.bsize)) / 10));
    } catch {
      return floor;
    }
  }

  private enter(state: Exclude<StorageState, "ok">): void {
    const now = Date.now();
    const changed = state !== this.current;
    if (this.current === "ok") this.sinceMs = now;
    this.current = state;
    if (changed || now - this.lastLogAt >= REPEAT_LOG_MS) {
      this.lastLogAt = now;
      this.logger.error("storage unavailable: writes are refused until it clears", {
        state,
        since: new Date(this.sinceMs ?? now).toISOString(),
      });
    }
    if (changed) this.schedule();
  }

  private leave(): void {
    if (this.current === "ok") return;
    const downMs = Date.now() - (this.sinceMs ?? Date.now());
    this.logger.warn("storage available again: writes and background work resume", {
      was: this.current,
      downMs,
    });
    this.current = "ok";
    this.sinceMs = null;
    this.lastLogAt = 0;
    this.schedule();
    for (const listener of this.recovered) {
      try {
        listener();
      } catch (error) {
        this.logger.error("resuming after a storage fault failed", { error: String(error) });
      }
    }
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.probe();
        this.schedule();
      },
      this.current === "ok" ? PROBE_OK_MS : PROBE_FAULT_MS,
    );
    this.timer.unref();
  }
}

function identityOf(dir: string): string | null {
  try {
    const stat = statSync(dir);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
}
