import { closeSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { promisify } from "node:util";
import { deflate, inflate } from "node:zlib";
import { PRIVATE_FILE_MODE } from "../store/permissions.ts";

/**
 * A section's bytes: a typed array or Buffer, stored deflated (zlib, with its Adler-32 check) from
 * its little-endian bytes as they lie in memory.
 */
export type SectionBytes = Int32Array | Uint16Array | Uint8Array;

type SectionType = "int32" | "uint16" | "uint8";

interface SectionEntry {
  name: string;
  type: SectionType;
  /** Several arrays under one name (arena blocks) are numbered name#0, name#1, … */
  byteLength: number;
  /** Deflated lengths in the file of its pieces (SECTION_PIECE bytes each, the last one shorter). */
  storedLengths: number[];
}

interface Header {
  format: number;
  key: unknown;
  meta: unknown;
  sections: SectionEntry[];
}

const MAGIC = Buffer.from("LORESNAP", "latin1");
// 3: sections deflated in pieces (1 stored them raw, ~1.3 KB a chunk; deflated they take ~0.5 KB;
// 2 deflated each section whole).
const FORMAT = 3;
// Sections are copied out in pieces of this size, so a write never holds one buffer the size of the file.
const WRITE_PIECE = 16 * 1024 * 1024;
// Level 6 inflates faster than 1 (load time is what a restart waits for) and writes run in the background.
const DEFLATE_LEVEL = 6;
// Sections are deflated in pieces of this size: inflated in parallel, a 32 MB text block does not
// hold up the load on one core while the other idles.
const SECTION_PIECE = 4 * 1024 * 1024;
const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

function typeOf(bytes: SectionBytes): SectionType {
  if (bytes instanceof Int32Array) return "int32";
  if (bytes instanceof Uint16Array) return "uint16";
  return "uint8";
}

export class SnapshotError extends Error {
  override readonly name = "SnapshotError";
}

/**
 * Writes a snapshot atomically: to a temporary file, fsynced, then renamed over `path`, so a reader
 * sees the old file or the new one, never a torn one. `key` says what the snapshot is valid for
 * (a reader refuses a file whose key differs); `meta` is small JSON; sections are the bulk.
 */
export async function writeSnapshot(
  path: string,
  key: unknown,
  meta: unknown,
  sections: ReadonlyMap<string, SectionBytes>,
): Promise<number> {
  // One section at a time on libuv's thread pool: this thread keeps serving, and the file is
  // finished with only one section's deflated copy held besides what was captured.
  const stored: Uint8Array[] = [];
  const entries: SectionEntry[] = [];
  for (const [name, bytes] of sections) {
    const raw = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const storedLengths: number[] = [];
    for (let at = 0; at < raw.byteLength; at += SECTION_PIECE) {
      const piece = raw.subarray(at, Math.min(raw.byteLength, at + SECTION_PIECE));
      const deflated = await deflateAsync(piece, { level: DEFLATE_LEVEL });
      stored.push(deflated);
      storedLengths.push(deflated.byteLength);
    }
    entries.push({ name, type: typeOf(bytes), byteLength: bytes.byteLength, storedLengths });
  }
  const header = Buffer.from(
    JSON.stringify({ format: FORMAT, key, meta, sections: entries } satisfies Header),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const temporary = `${path}.tmp-${process.pid}`;
  const file = await open(temporary, "w", PRIVATE_FILE_MODE);
  let written = 0;
  try {
    const write = async (bytes: Uint8Array) => {
      for (let at = 0; at < bytes.byteLength; at += WRITE_PIECE) {
        const piece = bytes.subarray(at, Math.min(bytes.byteLength, at + WRITE_PIECE));
        await file.write(piece);
        written += piece.byteLength;
      }
    };
    await write(MAGIC);
    await write(length);
    await write(header);
    for (const bytes of stored) await write(bytes);
    await write(MAGIC); // a trailer: a file cut short is refused
    await file.sync();
  } catch (error) {
    await file.close();
    rmSync(temporary, { force: true });
    throw error;
  }
  await file.close();
  renameSync(temporary, path);
  syncDirectoryOf(path);
  return written;
}

function syncDirectoryOf(path: string): void {
  const dir = path.slice(0, Math.max(0, path.lastIndexOf("/"))) || ".";
  try {
    const fd = openSync(dir, "r");
    fsyncSync(fd);
    closeSync(fd);
  } catch {
    // Not every file system lets a directory be fsynced; the rename is still atomic.
  }
}

export interface LoadedSnapshot {
  meta: unknown;
  sections: Map<string, SectionBytes>;
}

/**
 * Reads a snapshot written for `key`; null when there is none or it was written for another key or
 * format. A damaged file (bad magic, sizes that do not add up, a missing trailer, a section that
 * does not inflate to its length or fails its check) throws a SnapshotError. Sections are inflated
 * in parallel on libuv's thread pool, each into its own aligned buffer.
 */
export async function readSnapshot(path: string, key: unknown): Promise<LoadedSnapshot | null> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return null;
  }
  const fd = openSync(path, "r");
  let header: Header;
  const stored: Buffer[][] = [];
  try {
    const readExactly = (bytes: Uint8Array, position: number) => {
      let done = 0;
      while (done < bytes.byteLength) {
        const n = readSync(fd, bytes, done, bytes.byteLength - done, position + done);
        if (n === 0) throw new SnapshotError("snapshot ends early");
        done += n;
      }
    };
    const start = Buffer.alloc(12);
    readExactly(start, 0);
    if (!start.subarray(0, 8).equals(MAGIC)) throw new SnapshotError("not a snapshot");
    const headerLength = start.readUInt32LE(8);
    const headerBytes = Buffer.alloc(headerLength);
    readExactly(headerBytes, 12);
    header = JSON.parse(headerBytes.toString("utf8")) as Header;
    if (header.format !== FORMAT || JSON.stringify(header.key) !== JSON.stringify(key)) return null;
    let position = 12 + headerLength;
    const storedLengths = header.sections.map((s) => s.storedLengths);
    const total = storedLengths.flat().reduce((sum, n) => sum + n, 0);
    if (position + total + MAGIC.length !== size)
      throw new SnapshotError("snapshot size does not match its header");
    for (const lengths of storedLengths) {
      const pieces: Buffer[] = [];
      for (const length of lengths) {
        const bytes = Buffer.allocUnsafeSlow(length);
        readExactly(bytes, position);
        position += length;
        pieces.push(bytes);
      }
      stored.push(pieces);
    }
    const trailer = Buffer.alloc(MAGIC.length);
    readExactly(trailer, position);
    if (!trailer.equals(MAGIC)) throw new SnapshotError("snapshot trailer missing");
  } finally {
    closeSync(fd);
  }
  const inflated = await Promise.all(
    header.sections.map((entry, i) => inflateSection(entry, stored[i] ?? [])),
  );
  const sections = new Map<string, SectionBytes>();
  header.sections.forEach((entry, i) => {
    sections.set(entry.name, inflated[i] ?? new Uint8Array(0));
  });
  return { meta: header.meta, sections };
}

async function inflateSection(entry: SectionEntry, pieces: readonly Buffer[]): Promise<SectionBytes> {
  if (pieces.length !== Math.ceil(entry.byteLength / SECTION_PIECE))
    throw new SnapshotError(`snapshot section ${entry.name} has the wrong number of pieces`);
  const inflated = await Promise.all(
    pieces.map((piece, i) =>
      inflatePiece(entry.name, piece, Math.min(SECTION_PIECE, entry.byteLength - i * SECTION_PIECE)),
    ),
  );
  // One piece is used as inflated (offset 0 of its own buffer, or copied when it sits at an odd
  // offset in Node's shared pool); several are joined into one aligned buffer.
  let bytes: Uint8Array;
  const [only] = inflated;
  if (inflated.length === 1 && only && only.byteOffset % 4 === 0) bytes = only;
  else {
    bytes = new Uint8Array(entry.byteLength);
    let at = 0;
    for (const piece of inflated) {
      bytes.set(piece, at);
      at += piece.byteLength;
    }
  }
  const { buffer, byteOffset, byteLength } = bytes;
  switch (entry.type) {
    case "int32":
      return new Int32Array(buffer, byteOffset, byteLength / 4);
    case "uint16":
      return new Uint16Array(buffer, byteOffset, byteLength / 2);
    case "uint8":
      return new Uint8Array(buffer, byteOffset, byteLength);
  }
}

/** One deflated piece of `name`, which must inflate to exactly `length` bytes. */
async function inflatePiece(name: string, stored: Buffer, length: number): Promise<Buffer> {
  let bytes: Buffer;
  try {
    // Room for one byte more than expected: a piece that inflates longer is damaged, and the output
    // is one buffer (no joining of zlib's output chunks).
    bytes = await inflateAsync(stored, { chunkSize: Math.max(64, length + 1), maxOutputLength: length + 1 });
  } catch (error) {
    throw new SnapshotError(
      `snapshot section ${name} does not inflate: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (bytes.byteLength !== length)
    throw new SnapshotError(`snapshot section ${name} inflates to the wrong length`);
  return bytes;
}

/** A section by name with its expected type; a missing or mistyped one is a damaged snapshot. */
export function sectionOf<T extends SectionBytes>(
  sections: ReadonlyMap<string, SectionBytes>,
  name: string,
  type: new (length: number) => T,
): T {
  const bytes = sections.get(name);
  if (!(bytes instanceof type)) throw new SnapshotError(`snapshot section ${name} is missing`);
  return bytes;
}

/** Strings (none containing NUL) as one UTF-8 section. */
export function encodeStrings(values: readonly string[]): Uint8Array {
  return Buffer.from(values.join("\u0000"), "utf8");
}

export function decodeStrings(bytes: Uint8Array, count: number): string[] {
  if (count === 0) return [];
  const values = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("utf8")
    .split("\u0000");
  if (values.length !== count) throw new SnapshotError(`expected ${count} strings, found ${values.length}`);
  return values;
}
