import { closeSync, openSync, readdirSync, readSync, rmSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { PRIVATE_FILE_MODE } from "../store/permissions.ts";

/** Where a TextFile lives and how many texts it keeps decoded in memory. */
export interface TextFileOptions {
  /** Directory of the file (the data dir's index directory in the server); default: the OS temp dir. */
  dir?: string;
  /** Texts kept decoded (least recently read evicted first); at least 1. */
  cacheEntries?: number;
}

export const DEFAULT_TEXT_CACHE_ENTRIES = 4096;

// A block of texts never exceeds this (unless one text does), so a snapshot section is one block.
export const TEXT_BLOCK_BYTES = 32 * 1024 * 1024;
// Appended bytes gather in memory up to this much before one write.
const WRITE_BUFFER_BYTES = 1024 * 1024;

let fileCounter = 0;

/**
 * The bytes of chunk texts (and their heading paths) off the JS heap: an append-only file private to
 * this process, cut into blocks of at most 32 MiB (a record never straddles two), read back with
 * positional reads for the few chunks a search returns, behind a bounded LRU cache of decoded texts.
 *
 * The file stays open only for reading; appends open it for a moment. An unlinked or write-open file
 * would keep its file system from being remounted read-only (the kernel says "busy"), and a data
 * dir must stay as easy to freeze as without it. It is removed on release; one a crashed process
 * left behind is removed by the next TextFile opened in that directory. Nothing but this process
 * reads it (the snapshot, written atomically elsewhere, is what survives a restart). Page cache, not
 * the process's RSS, holds its hot pages.
 */
export class TextFile {
  private fd: number;
  private readonly path: string;
  /** File offset of each block's first byte. */
  private readonly blockBase: number[] = [];
  /** Bytes used in each block. */
  private readonly blockUsed: number[] = [];
  /** Bytes written to the file so far (the write buffer starts here). */
  private flushed = 0;
  private pending = Buffer.allocUnsafeSlow(WRITE_BUFFER_BYTES);
  private pendingUsed = 0;
  private readonly cache = new Map<number, string>();
  private readonly cacheEntries: number;
  private references = 1;
  private scratch = Buffer.allocUnsafeSlow(64 * 1024);
  /** Reads that missed the cache (for tests and the bench). */
  misses = 0;

  constructor(options: TextFileOptions = {}) {
    const dir = options.dir ?? tmpdir();
    removeOrphans(dir);
    this.path = join(dir, `.chunk-texts-${process.pid}-${++fileCounter}.tmp`);
    closeSync(openSync(this.path, "w", PRIVATE_FILE_MODE));
    this.fd = openSync(this.path, "r");
    this.cacheEntries = Math.max(1, Math.floor(options.cacheEntries ?? DEFAULT_TEXT_CACHE_ENTRIES));
  }

  get blockCount(): number {
    return this.blockBase.length;
  }

  blockLength(block: number): number {
    return this.blockUsed[block] ?? 0;
  }

  /** Bytes in the file (written or buffered). */
  get size(): number {
    return this.flushed + this.pendingUsed;
  }

  /** Appends a record; returns its block and offset in the block. */
  append(bytes: Uint8Array): { block: number; start: number } {
    let block = this.blockBase.length - 1;
    if (block < 0 || (this.blockUsed[block] ?? 0) + bytes.byteLength > TEXT_BLOCK_BYTES) {
      this.blockBase.push(this.size);
      this.blockUsed.push(0);
      block++;
    }
    const start = this.blockUsed[block] ?? 0;
    this.write(bytes);
    this.blockUsed[block] = start + bytes.byteLength;
    return { block, start };
  }

  /**
   * Appends whole blocks as they come (a snapshot's sections on load). The writes run on libuv's
   * threads, so the caller's thread goes on (building the lexical index) while they do; nothing may
   * read these blocks before the promise resolves.
   */
  async appendBlocks(blocks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    this.flush();
    const file = await open(this.path, "r+");
    try {
      for await (const bytes of blocks) {
        const at = this.flushed;
        this.blockBase.push(at);
        this.blockUsed.push(bytes.byteLength);
        this.flushed += bytes.byteLength;
        for (let done = 0; done < bytes.byteLength; ) {
          const { bytesWritten } = await file.write(bytes, done, bytes.byteLength - done, at + done);
          done += bytesWritten;
        }
      }
    } finally {
      await file.close();
    }
  }

  /**
   * The bytes of one record, decoded as UTF-8, from the cache or the file. Read from the file, they
   * must match `checksum` (their CRC-32 when written): a damaged file throws DamagedTextError
   * rather than hand back garbage.
   */
  readText(block: number, start: number, bytes: number, checksum?: number): string {
    // An empty record shares its offset with the next one: it is never cached.
    if (bytes <= 0) return "";
    const at = (this.blockBase[block] ?? 0) + start;
    const cached = this.cache.get(at);
    if (cached !== undefined) {
      // Most recently used goes last.
      this.cache.delete(at);
      this.cache.set(at, cached);
      return cached;
    }
    this.misses++;
    const raw = this.read(at, bytes);
    if (checksum !== undefined && crc32(raw) !== checksum >>> 0) throw new DamagedTextError();
    const text = raw.toString("utf8");
    this.cache.set(at, text);
    if (this.cache.size > this.cacheEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    return text;
  }

  /** One record's bytes, copied (compaction moves them to a new file). */
  readBytes(block: number, start: number, bytes: number): Uint8Array {
    const out = Buffer.allocUnsafe(bytes);
    this.readInto(out, (this.blockBase[block] ?? 0) + start);
    return out;
  }

  /** A whole block's bytes (a snapshot's section), read now into a buffer of its own. */
  readBlock(block: number): Uint8Array {
    const out = Buffer.allocUnsafeSlow(this.blockLength(block));
    this.readInto(out, this.blockBase[block] ?? 0);
    return out;
  }

  /** One more holder (a snapshot being written): the file closes when the last one releases it. */
  retain(): () => void {
    this.references++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /** Releases the owner's hold (see retain). */
  release(): void {
    if (--this.references > 0 || this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
    rmSync(this.path, { force: true });
    this.cache.clear();
    this.pending = Buffer.alloc(0);
  }

  private write(bytes: Uint8Array): void {
    if (this.pendingUsed + bytes.byteLength > this.pending.byteLength) this.flush();
    if (bytes.byteLength > this.pending.byteLength) {
      this.writeAll(bytes, this.flushed);
      this.flushed += bytes.byteLength;
      return;
    }
    this.pending.set(bytes, this.pendingUsed);
    this.pendingUsed += bytes.byteLength;
  }

  private flush(): void {
    if (this.pendingUsed === 0) return;
    this.writeAll(this.pending.subarray(0, this.pendingUsed), this.flushed);
    this.flushed += this.pendingUsed;
    this.pendingUsed = 0;
  }

  private writeAll(bytes: Uint8Array, position: number): void {
    const fd = openSync(this.path, "r+");
    try {
      let done = 0;
      while (done < bytes.byteLength) {
        done += writeSync(fd, bytes, done, bytes.byteLength - done, position + done);
      }
    } finally {
      closeSync(fd);
    }
  }

  private read(at: number, bytes: number): Buffer {
    if (bytes > this.scratch.byteLength) this.scratch = Buffer.allocUnsafeSlow(bytes);
    const out = this.scratch.subarray(0, bytes);
    this.readInto(out, at);
    return out;
  }

  private readInto(out: Buffer, at: number): void {
    // Bytes still in the write buffer come from there.
    let done = 0;
    while (done < out.byteLength && at + done < this.flushed) {
      const n = readSync(
        this.fd,
        out,
        done,
        Math.min(out.byteLength - done, this.flushed - at - done),
        at + done,
      );
      if (n === 0) throw new Error("chunk text file ends early");
      done += n;
    }
    if (done < out.byteLength) {
      const from = at + done - this.flushed;
      this.pending.copy(out, done, from, from + out.byteLength - done);
    }
  }
}

/** A record read from the chunk-text file does not match its checksum: the file was damaged. */
export class DamagedTextError extends Error {
  constructor() {
    super("a chunk text read back from the text file does not match its checksum");
  }
}

/** A record's checksum, kept beside its place in the file. */
export function recordChecksum(bytes: Uint8Array): number {
  return crc32(bytes) | 0;
}

/** Removes text files whose process is gone (killed before it could release them). */
function removeOrphans(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^\.chunk-texts-(\d+)-\d+\.tmp$/.exec(name)?.[1]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
