import { Inflate } from "fflate";
import { ParseError } from "../documents.ts";

/** One entry of a zip's central directory. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  localHeaderOffset: number;
}

/** Thrown when an entry inflates past the cap: a decompression bomb, or simply too big to index. */
export class ZipTooLargeError extends ParseError {}

function u16(b: Uint8Array, o: number): number {
  return (b[o] ?? 0) | ((b[o + 1] ?? 0) << 8);
}
function u32(b: Uint8Array, o: number): number {
  return (u16(b, o) | (u16(b, o + 2) << 16)) >>> 0;
}

/** Reads the central directory (the authoritative list; local headers may lie about sizes). */
export function listZipEntries(bytes: Uint8Array): ZipEntry[] {
  // The end-of-central-directory record sits in the last 22 + 65,535 (comment) bytes.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (u32(bytes, i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ParseError("malformed zip: no end of central directory");
  const count = u16(bytes, eocd + 10);
  let offset = u32(bytes, eocd + 16);
  if (offset === 0xffffffff) throw new ParseError("zip64 archives are not supported");
  const entries: ZipEntry[] = [];
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (offset + 46 > bytes.length || u32(bytes, offset) !== 0x02014b50)
      throw new ParseError("malformed zip: bad central directory");
    const nameLength = u16(bytes, offset + 28);
    const extraLength = u16(bytes, offset + 30);
    const commentLength = u16(bytes, offset + 32);
    entries.push({
      name: decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength)),
      method: u16(bytes, offset + 10),
      compressedSize: u32(bytes, offset + 20),
      localHeaderOffset: u32(bytes, offset + 42),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Inflates one entry, counting output bytes as they are produced and aborting past `maxBytes`,
 * so a decompression bomb never gets to allocate its full size (declared sizes are not trusted).
 */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): Uint8Array {
  const at = entry.localHeaderOffset;
  if (u32(bytes, at) !== 0x04034b50)
    throw new ParseError(`malformed zip: bad local header for ${entry.name}`);
  const start = at + 30 + u16(bytes, at + 26) + u16(bytes, at + 28);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) {
    if (data.length > maxBytes) throw new ZipTooLargeError(`${entry.name} is larger than ${maxBytes} bytes`);
    return data;
  }
  if (entry.method !== 8) throw new ParseError(`unsupported zip compression method ${entry.method}`);
  const parts: Uint8Array[] = [];
  let total = 0;
  const inflate = new Inflate((chunk) => {
    total += chunk.length;
    if (total > maxBytes)
      throw new ZipTooLargeError(`${entry.name} inflates past ${maxBytes} bytes (decompression bomb?)`);
    parts.push(chunk);
  });
  const step = 16 * 1024;
  try {
    for (let o = 0; o < data.length; o += step)
      inflate.push(data.subarray(o, Math.min(o + step, data.length)), o + step >= data.length);
    if (data.length === 0) inflate.push(new Uint8Array(0), true);
  } catch (err) {
    if (err instanceof ParseError) throw err;
    throw new ParseError(
      `malformed zip entry ${entry.name}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** True when the bytes are a zip archive containing an entry of that name (cheap: central directory only). */
export function zipHasEntry(bytes: Uint8Array, name: string): boolean {
  try {
    return listZipEntries(bytes).some((e) => e.name === name);
  } catch {
    return false;
  }
}
