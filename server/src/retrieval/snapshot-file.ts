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

/**
 * A section of bytes read only when the writer gets to it (chunk texts, read from their file piece
 * by piece instead of all held in memory at once); stored as "uint8".
 */
export interface LazySection {
  byteLength: number;
  read(): Uint8Array;
}

/**
 * A section the writer asks for a piece at a time (bytes `from` to `to`, multiples of 4 but for
 * the end): derived data that need never exist whole beside what it is derived from.
 */
export interface ComputedSection {
  type: "int32" | "uint16";
  byteLength: number;
  piece(from: number, to: number): Uint8Array;
}

export type SectionSource = SectionBytes | LazySection | ComputedSection;

const isLazy = (bytes: SectionSource): bytes is LazySection => !ArrayBuffer.isView(bytes) && "read" in bytes;
const isComputed = (bytes: SectionSource): bytes is ComputedSection =>
  !ArrayBuffer.isView(bytes) && "piece" in bytes;

interface SectionEntry {
  name: string;
  type: SectionType;
  /** Several arrays under one name (arena blocks) are numbered name#0, name#1, … */
  byteLength: number;
  /** Deflated lengths in the file of its pieces (`pieceBytes` each, the last one shorter). */
  storedLengths: number[];
}

interface Header {
  format: number;
  key: unknown;
  meta: unknown;
  /** The raw size of a section's pieces. */
  pieceBytes: number;
  sections: SectionEntry[];
}

const MAGIC = Buffer.from("LORESNAP", "latin1");
// 4: sections deflated (1 stored them raw, ~1.3 KB a chunk; deflated they take ~0.5 KB); 2 and 3
// were steps towards it.
const FORMAT = 4;
// Sections are copied out in pieces of this size, so a write never holds one buffer the size of the file.
const WRITE_PIECE = 16 * 1024 * 1024;
// Level 1: at a million chunks level 6 took twice the time to write for 10 % less on disk, and
// a shutdown has to finish the write.
const DEFLATE_LEVEL = 1;
// A section up to this size is deflated whole and inflates straight into a buffer of its own; a
// larger one goes in pieces that are joined on load. (Pieces of 4 MiB joined everything: at a
// million chunks the copies and their garbage cost more than the parallel inflation saved.)
const SECTION_PIECE = 256 * 1024 * 1024;
const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

function typeOf(bytes: SectionSource): SectionType {
  if (isComputed(bytes)) return bytes.type;
  if (isLazy(bytes)) return "uint8";
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
 *
 * Pieces are deflated two at a time on libuv's thread pool (this thread keeps serving; at a million
 * chunks one at a time took ~55 s at level 6, longer than a shutdown waits for the save) and
 * written as they come, in order, so only a few are in memory at once. The header, which lists
 * their deflated lengths, goes in last, into room reserved for it before the first piece.
 */
export async function writeSnapshot(
  path: string,
  key: unknown,
  meta: unknown,
  sections: ReadonlyMap<string, SectionSource>,
  { pieceBytes = SECTION_PIECE }: { pieceBytes?: number } = {},
): Promise<number> {
  if (pieceBytes % 4 !== 0) throw new RangeError("pieces must hold whole 32-bit numbers");
  // Each section's stored lengths are known once its pieces are deflated (`headerOf`).
  const entries: Omit<SectionEntry, "storedLengths">[] = [...sections].map(([name, bytes]) => ({
    name,
    type: typeOf(bytes),
    byteLength: bytes.byteLength,
  }));
  // Pieces are asked for in order: a lazy section is read when its first piece's turn comes, and
  // let go after its last.
  const pieces = [...sections.values()].flatMap((bytes, section) => {
    const out: { section: number; piece: () => Uint8Array }[] = [];
    let slice: (from: number, to: number) => Uint8Array;
    if (isLazy(bytes)) {
      let read: Uint8Array | null = null;
      slice = (from, to) => {
        read ??= bytes.read();
        if (read.byteLength !== bytes.byteLength) throw new RangeError("a lazy section read another length");
        const piece = read.subarray(from, to);
        if (to === bytes.byteLength) read = null;
        return piece;
      };
    } else if (isComputed(bytes)) slice = (from, to) => bytes.piece(from, to);
    else slice = (from, to) => new Uint8Array(bytes.buffer, bytes.byteOffset + from, to - from);
    for (let at = 0; at < bytes.byteLength; at += pieceBytes) {
      const end = Math.min(bytes.byteLength, at + pieceBytes);
      out.push({ section, piece: () => slice(at, end) });
    }
    return out;
  });
  const headerOf = (storedLength: (piece: number) => number) => {
    const listed: SectionEntry[] = entries.map((entry) => ({ ...entry, storedLengths: [] }));
    pieces.forEach(({ section }, i) => {
      listed[section]?.storedLengths.push(storedLength(i));
    });
    return Buffer.from(
      JSON.stringify({ format: FORMAT, key, meta, pieceBytes, sections: listed } satisfies Header),
    );
  };
  // No piece deflates to ten digits' worth of bytes, so this is room for the real header; JSON
  // allows the spaces that pad it out.
  const room = headerOf(() => 9_999_999_999).length;
  const temporary = `${path}.tmp-${process.pid}`;
  const file = await open(temporary, "w", PRIVATE_FILE_MODE);
  const deflating: (Promise<Buffer> | undefined)[] = [];
  let written = 0;
  try {
    const write = async (bytes: Uint8Array, position: number) => {
      for (let at = 0; at < bytes.byteLength; at += WRITE_PIECE) {
        const piece = bytes.subarray(at, Math.min(bytes.byteLength, at + WRITE_PIECE));
        await file.write(piece, 0, piece.byteLength, position + at);
      }
      written += bytes.byteLength;
    };
    const startDeflate = (i: number) => {
      const piece = pieces[i];
      if (!piece) return;
      const deflated = deflateAsync(piece.piece(), { level: DEFLATE_LEVEL });
      deflated.catch(() => undefined); // surfaced when its turn to be written comes
      deflating[i] = deflated;
    };
    startDeflate(0);
    startDeflate(1);
    const stored: number[] = [];
    let position = MAGIC.length + 4 + room;
    for (let i = 0; i < pieces.length; i++) {
      const bytes = await (deflating[i] as Promise<Buffer>);
      deflating[i] = undefined;
      startDeflate(i + 2);
      await write(bytes, position);
      position += bytes.byteLength;
      stored.push(bytes.byteLength);
    }
    await write(MAGIC, position); // a trailer: a file cut short is refused
    const header = Buffer.alloc(room, " ");
    headerOf((i) => stored[i] ?? 0).copy(header);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(room);
    await write(MAGIC, 0);
    await write(length, MAGIC.length);
    await write(header, MAGIC.length + 4);
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
  const opened = openSnapshot(path, key);
  if (!opened) return null;
  const sections = new Map<string, SectionBytes>();
  for (const [name, bytes] of opened.sections) sections.set(name, await bytes);
  return { meta: opened.meta, sections };
}

export interface OpenedSnapshot {
  meta: unknown;
  /** Each section as it inflates: all start at once, on libuv's thread pool, in the file's order. */
  sections: Map<string, Promise<SectionBytes>>;
  /**
   * The sections `deferred` named: each is read from the file and inflates when called (so neither
   * their stored nor their inflated bytes need all be in memory at once). The file stays open until
   * every one was called or `close()` is.
   */
  later: Map<string, () => Promise<SectionBytes>>;
  /** Closes the file if deferred sections are left uncalled (a caller that gives up on them). */
  close(): void;
}

/**
 * readSnapshot without waiting for the sections: the file is read and checked (null or a
 * SnapshotError as there), then every section starts inflating, so a caller can build from the
 * first sections while later ones still inflate on other cores. A damaged section rejects its
 * promise with a SnapshotError (rejections no one awaits are not reported as unhandled).
 */
export function openSnapshot(
  path: string,
  key: unknown,
  accepts: (stored: unknown) => boolean = (stored) => JSON.stringify(stored) === JSON.stringify(key),
  deferred: (name: string) => boolean = () => false,
): OpenedSnapshot | null {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return null;
  }
  const fd = openSync(path, "r");
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  const readExactly = (bytes: Uint8Array, position: number) => {
    let done = 0;
    while (done < bytes.byteLength) {
      const n = readSync(fd, bytes, done, bytes.byteLength - done, position + done);
      if (n === 0) throw new SnapshotError("snapshot ends early");
      done += n;
    }
  };
  /** A section's stored pieces, read from where they start. */
  const readPieces = (lengths: readonly number[], start: number): Buffer[] => {
    let position = start;
    return lengths.map((length) => {
      const bytes = Buffer.allocUnsafeSlow(length);
      readExactly(bytes, position);
      position += length;
      return bytes;
    });
  };
  let header: Header;
  // Per section: its pieces as read now, or where they start in the file (a deferred section).
  const stored: (Buffer[] | number)[] = [];
  try {
    const start = Buffer.alloc(12);
    readExactly(start, 0);
    if (!start.subarray(0, 8).equals(MAGIC)) throw new SnapshotError("not a snapshot");
    const headerLength = start.readUInt32LE(8);
    const headerBytes = Buffer.alloc(headerLength);
    readExactly(headerBytes, 12);
    header = JSON.parse(headerBytes.toString("utf8")) as Header;
    if (header.format !== FORMAT || !accepts(header.key)) {
      close();
      return null;
    }
    let position = 12 + headerLength;
    const total = header.sections.flatMap((s) => s.storedLengths).reduce((sum, n) => sum + n, 0);
    if (position + total + MAGIC.length !== size)
      throw new SnapshotError("snapshot size does not match its header");
    for (const entry of header.sections) {
      stored.push(deferred(entry.name) ? position : readPieces(entry.storedLengths, position));
      position += entry.storedLengths.reduce((sum, n) => sum + n, 0);
    }
    const trailer = Buffer.alloc(MAGIC.length);
    readExactly(trailer, position);
    if (!trailer.equals(MAGIC)) throw new SnapshotError("snapshot trailer missing");
  } catch (error) {
    close();
    throw error;
  }
  let deferredLeft = stored.filter((s) => typeof s === "number").length;
  if (deferredLeft === 0) close();
  const sections = new Map<string, Promise<SectionBytes>>();
  const later = new Map<string, () => Promise<SectionBytes>>();
  header.sections.forEach((entry, i) => {
    const found = stored[i];
    // Each section's pieces are let go once it has inflated: none is held for the others.
    stored[i] = [];
    if (typeof found === "number") {
      let called = false;
      later.set(entry.name, () => {
        if (called || !open)
          return Promise.reject(
            new SnapshotError(`snapshot section ${entry.name} was read already, or the file closed`),
          );
        called = true;
        let pieces: Buffer[];
        try {
          pieces = readPieces(entry.storedLengths, found);
        } catch (error) {
          close();
          return Promise.reject(error);
        }
        if (--deferredLeft === 0) close();
        return inflateSection(entry, pieces, header.pieceBytes);
      });
      return;
    }
    const inflating = inflateSection(entry, found ?? [], header.pieceBytes);
    inflating.catch(() => undefined); // surfaced to whoever awaits it
    sections.set(entry.name, inflating);
  });
  return { meta: header.meta, sections, later, close };
}

async function inflateSection(
  entry: SectionEntry,
  pieces: readonly Buffer[],
  pieceBytes: number,
): Promise<SectionBytes> {
  if (pieces.length !== Math.ceil(entry.byteLength / pieceBytes))
    throw new SnapshotError(`snapshot section ${entry.name} has the wrong number of pieces`);
  const inflated = await Promise.all(
    pieces.map((piece, i) =>
      inflatePiece(entry.name, piece, Math.min(pieceBytes, entry.byteLength - i * pieceBytes)),
    ),
  );
  // One piece is used as inflated (offset 0 of its own buffer, or copied when it sits at an odd
  // offset in Node's shared pool); several are joined into one aligned buffer, a shared one: the
  // largest sections are postings, which a search's second thread reads (shared-arrays.ts), and
  // joining into it spares them a second copy.
  let bytes: Uint8Array;
  const [only] = inflated;
  if (inflated.length === 1 && only && only.byteOffset % 4 === 0) bytes = only;
  else {
    bytes = new Uint8Array(new SharedArrayBuffer(entry.byteLength));
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

/** sectionOf for an opened snapshot's sections, once inflated. */
export async function inflatedSection<T extends SectionBytes>(
  sections: ReadonlyMap<string, Promise<SectionBytes>>,
  name: string,
  type: new (length: number) => T,
): Promise<T> {
  const bytes = await sections.get(name);
  if (!(bytes instanceof type)) throw new SnapshotError(`snapshot section ${name} is missing`);
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
