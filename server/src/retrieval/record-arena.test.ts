import { describe, expect, it } from "vitest";
import { RecordArena, type RecordPlace } from "./record-arena.ts";

/** A record of three parts like a slot's: term ids of every size, title ids, sentence starts. */
function recordOf(n: number): number[][] {
  const ids = Array.from(
    { length: 1 + (n % 150) },
    (_, i) => (n * 7919 + i * 104_729) % 2 ** Math.min(31, 7 * (1 + (i % 5))),
  );
  return [ids, [n % 128, 2 ** 31 - 1 - n], [0, n % 50]];
}

describe("the forward index's record arena", () => {
  it("gives back every record's parts, across blocks, after a capture and in a copy", () => {
    const arena = new RecordArena();
    const places: RecordPlace[] = [];
    // About 1.2 MB of records: three blocks, of 256 KB, 512 KB and 1 MB.
    for (let n = 0; n < 6_000; n++) places.push(arena.append(...recordOf(n)));
    expect(new Set(places.map((p) => p.block)).size).toBe(3);
    const restored = new RecordArena(arena.capture());
    const copied = new RecordArena();
    const copies = places.map((place, n) => {
      const [ids = [], titles = [], starts = []] = recordOf(n);
      return copied.copy(restored, place, ids.length + titles.length + starts.length);
    });
    // Each record read back part by part, the parts marked off, in one list per arena.
    const readBack = (from: RecordArena, at: readonly RecordPlace[]) => {
      const out: number[] = [];
      at.forEach((place, n) => {
        let skip = 0;
        recordOf(n).forEach((part, i) => {
          for (const value of from.read(place, skip, part.length)) out.push(value);
          out.push(i < 2 ? -1 : -2);
          skip += part.length;
        });
      });
      return out;
    };
    const expected: number[] = [];
    for (let n = 0; n < places.length; n++)
      recordOf(n).forEach((part, i) => {
        expected.push(...part, i < 2 ? -1 : -2);
      });
    // Where a list first differs from the expected one (−1 for nowhere: half a million numbers each).
    const firstDifference = (got: number[]) =>
      got.length === expected.length
        ? got.findIndex((v, i) => v !== expected[i])
        : Math.min(got.length, expected.length);
    expect(firstDifference(readBack(arena, places))).toBe(-1);
    expect(firstDifference(readBack(restored, places))).toBe(-1);
    expect(firstDifference(readBack(copied, copies))).toBe(-1);
    // Records appended after a restore go to a new block: the captured ones are never written.
    const captured = arena.capture().map((b) => b.slice());
    restored.append([1, 2, 3]);
    const now = arena.capture();
    expect(now.length).toBe(captured.length);
    expect(now.every((block, i) => Buffer.from(block).equals(captured[i] ?? new Uint8Array(0)))).toBe(true);
  });

  it("takes fewer bytes than 32-bit integers for small ids, and refuses what it cannot hold", () => {
    const arena = new RecordArena();
    arena.append(Array.from({ length: 1000 }, (_, i) => i % 128));
    arena.append(Array.from({ length: 1000 }, (_, i) => 128 + i));
    expect(arena.byteLength).toBe(1000 + 2000);
    expect(() => arena.append([-1])).toThrow(RangeError);
    expect(() => arena.append([2 ** 31])).toThrow(RangeError);
    expect(() => arena.append([1.5])).toThrow(RangeError);
    expect(() => arena.read({ block: 5, offset: 0 }, 0, 1)).toThrow(RangeError);
  });
});
