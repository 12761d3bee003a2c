import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  openSnapshot,
  readSnapshot,
  type SectionBytes,
  type SectionSource,
  SnapshotError,
  writeSnapshot,
} from "./snapshot-file.ts";

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lore-snapshot-file-"));
  path = join(dir, "test.snapshot");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const key = { layout: 1, table: "chunks", tableVersion: 7 };

function sections(): Map<string, SectionBytes> {
  const text = new Uint8Array(Buffer.from("refund policy: thirty days. ".repeat(5_000)));
  const slots = Int32Array.from({ length: 50_000 }, (_, i) => i * 3);
  return new Map<string, SectionBytes>([
    ["text", text],
    ["slots", slots],
    ["tfs", Uint16Array.from({ length: 1_001 }, (_, i) => i % 7)],
    ["odd", Uint8Array.from([1, 2, 3])],
    ["empty", new Int32Array(0)],
    // Over 5 MiB: in pieces when the test asks for 1 MiB ones.
    ["big", Int32Array.from({ length: 1_300_000 }, (_, i) => (i * 7) % 1_000)],
  ]);
}

/** The file's parts: where the header ends and where each section's stored bytes lie. */
function layoutOf(bytes: Buffer) {
  const headerLength = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.subarray(12, 12 + headerLength).toString("utf8")) as {
    sections: { name: string; byteLength: number; storedLengths: number[] }[];
  };
  let at = 12 + headerLength;
  const where = new Map<string, { start: number; length: number }>();
  for (const s of header.sections) {
    const length = s.storedLengths.reduce((sum, n) => sum + n, 0);
    where.set(s.name, { start: at, length });
    at += length;
  }
  return { headerLength, header, where };
}

describe("the snapshot file", () => {
  it("reads back every section with its type and bytes, smaller on disk than in memory", async () => {
    const written = await writeSnapshot(path, key, { note: "meta" }, sections());
    const loaded = await readSnapshot(path, key);
    expect(loaded?.meta).toEqual({ note: "meta" });
    for (const [name, bytes] of sections()) {
      const back = loaded?.sections.get(name);
      expect(back?.constructor).toBe(bytes.constructor);
      const same = Buffer.from(back?.buffer ?? new ArrayBuffer(0), back?.byteOffset, back?.byteLength).equals(
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      );
      expect(same, name).toBe(true);
    }
    const inMemory = [...sections().values()].reduce((n, b) => n + b.byteLength, 0);
    expect(written).toBeLessThan(inMemory / 2);
  });

  it("joins a section written in several pieces", async () => {
    await writeSnapshot(path, key, {}, sections(), { pieceBytes: 1024 * 1024 });
    const big = sections().get("big");
    const back = (await readSnapshot(path, key))?.sections.get("big");
    if (!big || !(back instanceof Int32Array)) throw new Error("no big section");
    expect(back.length).toBe(big.length);
    expect(Buffer.from(back.buffer, back.byteOffset, back.byteLength).equals(Buffer.from(big.buffer))).toBe(
      true,
    );
    const header = layoutOf(readFileSync(path)).header.sections.find((s) => s.name === "big");
    expect(header?.storedLengths).toHaveLength(5);
  });

  it("is not read for another key, nor when written in the raw format before compression", async () => {
    await writeSnapshot(path, key, {}, sections());
    expect(await readSnapshot(path, { ...key, tableVersion: 8 })).toBeNull();
    // Format 1: the same header without stored lengths, and the sections raw.
    const raw = Buffer.from(Int32Array.from([1, 2, 3]).buffer);
    const header = Buffer.from(
      JSON.stringify({ format: 1, key, meta: {}, sections: [{ name: "s", type: "int32", byteLength: 12 }] }),
    );
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    const magic = Buffer.from("LORESNAP", "latin1");
    writeFileSync(path, Buffer.concat([magic, length, header, raw, magic]));
    expect(await readSnapshot(path, key)).toBeNull();
  });

  it("refuses a section whose deflated bytes were damaged, though the file's size is right", async () => {
    await writeSnapshot(path, key, {}, sections());
    const bytes = readFileSync(path);
    const slots = layoutOf(bytes).where.get("slots");
    if (!slots) throw new Error("no slots section");
    for (let i = 0; i < 16; i++) {
      const at = slots.start + Math.floor(slots.length / 2) + i;
      bytes[at] = (bytes[at] ?? 0) ^ 0x5a;
    }
    writeFileSync(path, bytes);
    await expect(readSnapshot(path, key)).rejects.toThrow(SnapshotError);
    await expect(readSnapshot(path, key)).rejects.toThrow(/section slots does not inflate/);
  });

  it("refuses a section cut short inside a file of the right size", async () => {
    await writeSnapshot(path, key, {}, sections());
    const bytes = readFileSync(path);
    const { where } = layoutOf(bytes);
    const text = where.get("text");
    if (!text) throw new Error("no text section");
    // The text section's stream cut in half, the rest of the file (and its size) kept.
    const cut = Buffer.concat([
      bytes.subarray(0, text.start + Math.floor(text.length / 2)),
      Buffer.alloc(text.length - Math.floor(text.length / 2)),
      bytes.subarray(text.start + text.length),
    ]);
    expect(cut.length).toBe(bytes.length);
    writeFileSync(path, cut);
    await expect(readSnapshot(path, key)).rejects.toThrow(/section text does not inflate/);
  });

  it("refuses a section that inflates to another length than its header says", async () => {
    await writeSnapshot(path, key, {}, sections());
    const bytes = readFileSync(path);
    const { headerLength, header } = layoutOf(bytes);
    // A well-formed deflate stream of the wrong length in place of the "odd" section.
    const odd = header.sections.find((s) => s.name === "odd");
    if (!odd) throw new Error("no odd section");
    const wrong = deflateSync(Uint8Array.from([1, 2, 3, 4]));
    const rest: Buffer[] = [];
    let at = 12 + headerLength;
    for (const s of header.sections) {
      const length = s.storedLengths.reduce((sum, n) => sum + n, 0);
      rest.push(s.name === "odd" ? wrong : bytes.subarray(at, at + length));
      at += length;
    }
    odd.storedLengths = [wrong.length];
    const newHeader = Buffer.from(
      JSON.stringify({
        ...JSON.parse(bytes.subarray(12, 12 + headerLength).toString()),
        sections: header.sections,
      }),
    );
    const length = Buffer.alloc(4);
    length.writeUInt32LE(newHeader.length);
    writeFileSync(
      path,
      Buffer.concat([bytes.subarray(0, 8), length, newHeader, ...rest, bytes.subarray(at)]),
    );
    await expect(readSnapshot(path, key)).rejects.toThrow(/section odd inflates to the wrong length/);
  });

  it("refuses a file cut short", async () => {
    await writeSnapshot(path, key, {}, sections());
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 100));
    await expect(readSnapshot(path, key)).rejects.toThrow(/size does not match/);
  });

  it("reads deferred sections from the file when asked, and closes it after the last", async () => {
    await writeSnapshot(path, key, {}, sections(), { pieceBytes: 1024 * 1024 });
    const openFiles = () => readdirSync("/proc/self/fd").length;
    const before = openFiles();
    const opened = openSnapshot(path, key, undefined, (name) => name === "text" || name === "big");
    if (!opened) throw new Error("no snapshot");
    expect([...opened.sections.keys()].sort()).toEqual(["empty", "odd", "slots", "tfs"]);
    expect(openFiles()).toBe(before + 1);
    const expected = sections();
    for (const name of ["big", "text"]) {
      const back = await opened.later.get(name)?.();
      const bytes = expected.get(name);
      if (!back || !bytes) throw new Error(`no section ${name}`);
      expect(back.constructor).toBe(bytes.constructor);
      const same = Buffer.from(back.buffer, back.byteOffset, back.byteLength).equals(
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      );
      expect(same).toBe(true);
    }
    expect(openFiles()).toBe(before);
    await expect(opened.later.get("text")?.()).rejects.toThrow(/read already/);
    // Given up on before its deferred sections: closed by `close()`, and they are refused after it.
    const abandoned = openSnapshot(path, key, undefined, (name) => name === "text");
    expect(openFiles()).toBe(before + 1);
    abandoned?.close();
    expect(openFiles()).toBe(before);
    await expect(abandoned?.later.get("text")?.()).rejects.toThrow(SnapshotError);
  });

  it("asks for lazy and computed sections a piece at a time, in order, each once, while it writes", async () => {
    const squares = Int32Array.from({ length: 700_000 }, (_, i) => (i * i) % 100_003);
    const text = new Uint8Array(Buffer.from("opening hours: nine to five. ".repeat(90_000)));
    const asked: string[] = [];
    let reads = 0;
    const source = new Map<string, SectionSource>([
      ["small", Uint8Array.from([7, 8, 9])],
      [
        "squares",
        {
          type: "int32",
          byteLength: squares.byteLength,
          piece(from, to) {
            asked.push(`squares ${from}-${to}`);
            return new Uint8Array(squares.buffer.slice(from, to));
          },
        },
      ],
      [
        "text",
        {
          byteLength: text.byteLength,
          read() {
            reads++;
            asked.push("text");
            return text;
          },
        },
      ],
    ]);
    const MiB = 1024 * 1024;
    await writeSnapshot(path, key, { note: "pieces" }, source, { pieceBytes: MiB });
    // 2,800,000 bytes of squares: three pieces; the text's 2,610,000 bytes read once for its three.
    expect(asked).toEqual([
      `squares 0-${MiB}`,
      `squares ${MiB}-${2 * MiB}`,
      `squares ${2 * MiB}-2800000`,
      "text",
    ]);
    expect(reads).toBe(1);
    const loaded = await readSnapshot(path, key);
    expect(loaded?.meta).toEqual({ note: "pieces" });
    const back = loaded?.sections.get("squares");
    expect(back).toBeInstanceOf(Int32Array);
    expect(
      Buffer.from(back?.buffer ?? new ArrayBuffer(0), back?.byteOffset, back?.byteLength).equals(
        Buffer.from(squares.buffer),
      ),
    ).toBe(true);
    const backText = loaded?.sections.get("text");
    expect(
      Buffer.from(backText?.buffer ?? new ArrayBuffer(0), backText?.byteOffset, backText?.byteLength).equals(
        text,
      ),
    ).toBe(true);
    expect([...(loaded?.sections.get("small") ?? [])]).toEqual([7, 8, 9]);
    expect(layoutOf(readFileSync(path)).header.sections.map((s) => s.storedLengths.length)).toEqual([
      1, 3, 3,
    ]);
  });
});
