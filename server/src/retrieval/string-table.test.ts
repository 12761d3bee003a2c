import { describe, expect, it } from "vitest";
import { encodeStrings } from "./snapshot-file.ts";
import { StringTable } from "./string-table.ts";

/** A deterministic pseudo-random sequence (xorshift32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

describe("StringTable", () => {
  it("finds a number by its string and a string by its number, in any script", () => {
    const table = new StringTable();
    const strings = ["refund", "réembolso", "返金", "возврат", "refunds"];
    strings.forEach((s, n) => {
      table.set(n, s);
    });
    strings.forEach((s, n) => {
      expect(table.get(s)).toBe(n);
      expect(table.at(n)).toBe(s);
    });
    expect(table.get("refun")).toBe(-1);
    expect(table.at(9)).toBeNull();
    expect(table.size).toBe(5);
    // A number given another string no longer answers to its old one.
    table.set(0, "remboursement");
    expect(table.get("refund")).toBe(-1);
    expect(table.get("remboursement")).toBe(0);
    expect(table.size).toBe(5);
  });

  it("agrees with a Map through a long run of sets and deletes that crowds its probe runs", () => {
    const next = random(7);
    // Numbers are slots, as chunk ids have them: a key moves to a new slot, an old slot is emptied.
    const model = new Map<string, number>();
    const table = new StringTable();
    let slots = 0;
    for (let step = 0; step < 60_000; step++) {
      const key = `chunk-${Math.floor(next() * 5_000)}`;
      const previous = model.get(key);
      if (previous !== undefined) table.delete(previous);
      if (next() < 0.55) {
        table.set(slots, key);
        model.set(key, slots++);
      } else model.delete(key);
      if (step % 2_999 === 0) {
        for (let k = 0; k < 5_000; k++) expect(table.get(`chunk-${k}`)).toBe(model.get(`chunk-${k}`) ?? -1);
      }
    }
    expect(table.size).toBe(model.size);
    for (const [key, n] of model) {
      expect(table.get(key)).toBe(n);
      expect(table.at(n)).toBe(key);
    }
  });

  it("reads a snapshot's NUL-separated section in place and writes the same bytes back", () => {
    const strings = ["alpha", "", "βeta", "gamma", ""];
    const bytes = encodeStrings(strings);
    const table = StringTable.decoded(bytes, strings.length);
    expect(table.size).toBe(3);
    expect(table.get("βeta")).toBe(2);
    expect(table.at(1)).toBeNull();
    expect(Buffer.from(table.encoded(strings.length)).equals(Buffer.from(bytes))).toBe(true);
    // It grows past the section it was read from.
    table.set(5, "delta");
    expect(table.get("delta")).toBe(5);
    expect(table.get("alpha")).toBe(0);
    expect(Buffer.from(table.encoded(6)).toString()).toBe(
      "alpha\u0000\u0000βeta\u0000gamma\u0000\u0000delta",
    );
  });

  it("refuses a section with the wrong count or a string held twice", () => {
    expect(() => StringTable.decoded(encodeStrings(["a", "b"]), 3)).toThrow(RangeError);
    expect(() => StringTable.decoded(encodeStrings(["a", "b", "c"]), 2)).toThrow(RangeError);
    expect(() => StringTable.decoded(encodeStrings(["a", "b", "a"]), 3)).toThrow(RangeError);
  });
});
