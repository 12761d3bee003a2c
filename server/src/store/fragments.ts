import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Table } from "@lancedb/lancedb";

/** Row ids a `takeRowIds` call reads at most. */
const TAKE_BATCH = 1_000;

/** A data file of a table that cannot be read, and what could still be learnt of its rows. */
export interface DamagedFragment {
  fragment: number;
  /** The data file under `<table>.lance/data/`, when the table's manifest could be read. */
  file: string | null;
  rows: number;
  /** LanceDB's first line, without its source paths. */
  error: string;
  /** The `keys` columns of its rows, when those columns could be read; else null. */
  keys: Array<Record<string, unknown>> | null;
}

/** What a read fragment by fragment found: every readable row, and the fragments that are not. */
export interface FragmentRead {
  rows: Array<Record<string, unknown>>;
  damaged: DamagedFragment[];
}

/**
 * Reads `columns` of every row, one fragment (one data file) at a time, so a damaged data file costs
 * its own rows only: a query scans every fragment and fails whole on one bad file. Row ids are read
 * first (from the manifest, never the data files); for a damaged fragment the `keys` columns are
 * tried alone, to say whose rows it held. `tableDir` (the `<name>.lance` directory) names the files;
 * `keepRows: false` only checks.
 */
export async function readByFragment(
  table: Table,
  columns: string[],
  options: { keys?: string[]; tableDir?: string | null; keepRows?: boolean } = {},
): Promise<FragmentRead> {
  const byFragment = new Map<number, bigint[]>();
  for (const row of await table.query().select(["_rowid"]).toArray()) {
    const id = BigInt(row._rowid);
    const fragment = Number(id >> 32n);
    const ids = byFragment.get(fragment) ?? [];
    ids.push(id);
    byFragment.set(fragment, ids);
  }
  const rows: Array<Record<string, unknown>> = [];
  const damaged: DamagedFragment[] = [];
  let files: Map<number, string> | null = null;
  for (const [fragment, ids] of byFragment) {
    try {
      const read = await take(table, ids, columns);
      // A check of a large table (the chunks, with their vectors) need not hold it in memory.
      if (options.keepRows !== false) rows.push(...read);
    } catch (error) {
      files ??= options.tableDir ? await fragmentFiles(table, options.tableDir) : new Map();
      const keys = options.keys ? await take(table, ids, options.keys).catch(() => null) : null;
      damaged.push({
        fragment,
        file: files.get(fragment) ?? null,
        rows: ids.length,
        error: firstLine(error),
        keys,
      });
    }
  }
  return { rows, damaged };
}

async function take(table: Table, ids: bigint[], columns: string[]): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < ids.length; i += TAKE_BATCH) {
    out.push(
      ...(await table
        .takeRowIds(ids.slice(i, i + TAKE_BATCH))
        .select(columns)
        .toArray()),
    );
  }
  return out;
}

/** LanceDB's message up to its source location (`…, /usr/local/cargo/…`). */
function firstLine(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
  return text.replace(/,?\s*\/(?:usr|rustc)\/\S*/g, "").trim();
}

/**
 * The data file of each fragment in the table's current manifest (Lance's format: the last 16 bytes
 * hold the offset of a length-prefixed protobuf `Manifest`, whose field 2 lists `DataFragment { id = 1;
 * files = 2 (DataFile { path = 1 }) }`). Empty when the manifest cannot be found or read.
 */
export async function fragmentFiles(table: Table, tableDir: string): Promise<Map<number, string>> {
  const version = BigInt(await table.version());
  // Lance names manifests `<version>.manifest`, or (V2 naming) `<u64::MAX - version>.manifest`.
  const names = [`${version}.manifest`, `${2n ** 64n - 1n - version}.manifest`];
  const path = names.map((n) => join(tableDir, "_versions", n)).find((p) => existsSync(p));
  if (!path) return new Map();
  try {
    return fragmentsOfManifest(readFileSync(path));
  } catch {
    return new Map();
  }
}

export function fragmentsOfManifest(bytes: Buffer): Map<number, string> {
  const at = Number(bytes.readBigUInt64LE(bytes.length - 16));
  const manifest = bytes.subarray(at + 4, at + 4 + bytes.readUInt32LE(at));
  const out = new Map<number, string>();
  for (const field of protoFields(manifest)) {
    if (field.number !== 2 || !field.bytes) continue;
    // proto3 leaves out a field at its default: fragment 0 has no id field.
    let id = 0;
    let file: string | null = null;
    for (const f of protoFields(field.bytes)) {
      if (f.number === 1 && f.varint !== undefined) id = Number(f.varint);
      if (f.number === 2 && f.bytes && file === null) {
        const path = protoFields(f.bytes).find((p) => p.number === 1)?.bytes;
        if (path) file = path.toString("utf8");
      }
    }
    if (file !== null) out.set(id, file);
  }
  return out;
}

interface ProtoField {
  number: number;
  varint?: bigint;
  bytes?: Buffer;
}

/** The top-level fields of a protobuf message (varint, 64-bit, length-delimited and 32-bit ones). */
function protoFields(buf: Buffer): ProtoField[] {
  const fields: ProtoField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buf[pos++];
      if (byte === undefined) throw new Error("truncated varint");
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (pos < buf.length) {
    const tag = varint();
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) fields.push({ number, varint: varint() });
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const length = Number(varint());
      fields.push({ number, bytes: buf.subarray(pos, pos + length) });
      pos += length;
    } else throw new Error(`unknown wire type ${wire}`);
  }
  return fields;
}
