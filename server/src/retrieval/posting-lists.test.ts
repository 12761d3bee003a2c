import { describe, expect, it } from "vitest";
import { PostingLists } from "./posting-lists.ts";

/** Entries (doc, tf) of a term that `forAllowed` visits, in order. */
function visited(lists: PostingLists, term: number, allowed: number[]): number[][] {
  const out: number[][] = [];
  lists.forAllowed(term, new Set(allowed), (docs, tfs, from, to) => {
    for (let i = from; i < to; i++) out.push([docs[i] ?? -1, tfs[i] ?? -1]);
  });
  return out;
}

/** A deterministic corpus: `slots` slots of `sources` sources in runs, each holding some of `terms` terms. */
function build(terms: number, slots: number, sources: number) {
  const lists = new PostingLists();
  for (let t = 0; t < terms; t++) lists.addTerm();
  const sourceOf = new Int32Array(slots);
  const expected: number[][][] = Array.from({ length: terms }, () => []);
  for (let slot = 0; slot < slots; slot++) {
    const source = Math.floor((slot * sources) / slots);
    sourceOf[slot] = source;
    for (let t = 0; t < terms; t++) {
      // Term t appears in every (t + 1)th slot: lists from one entry to every slot.
      if (slot % (t + 1) !== 0) continue;
      const tf = 1 + ((slot + t) % 3);
      lists.push(t, slot, tf, source);
      expected[t]?.push([slot, tf, source]);
    }
  }
  return { lists, sourceOf, expected };
}

describe("PostingLists", () => {
  it("gives back every term's entries in slot order, only those of the allowed sources", () => {
    const { lists, expected } = build(40, 3_000, 6);
    for (let t = 0; t < 40; t++) {
      const all = expected[t] ?? [];
      expect(lists.size(t)).toBe(all.length);
      expect(visited(lists, t, [0, 1, 2, 3, 4, 5])).toEqual(all.map(([d, f]) => [d, f]));
      expect(visited(lists, t, [1, 4])).toEqual(
        all.filter(([, , s]) => s === 1 || s === 4).map(([d, f]) => [d, f]),
      );
      expect(visited(lists, t, [9])).toEqual([]);
    }
  });

  it("tells whether a term has an entry in a range of slots", () => {
    const { lists, expected } = build(40, 3_000, 6);
    for (let t = 0; t < 40; t += 3) {
      const slots = (expected[t] ?? []).map(([slot]) => slot ?? -1);
      for (const [from, to] of [
        [0, 0],
        [1, 1],
        [5, 17],
        [2_990, 3_500],
        [-5, -1],
        [3_000, 4_000],
        [1_234, 1_300],
      ] as const) {
        const inRange = slots.some((slot) => slot >= from && slot <= to);
        expect(lists.hasEntryIn(t, from, to)).toBe(inRange);
      }
    }
  });

  it("keeps lists apart while they grow and move (regions reused, long lists on their own page)", () => {
    // Interleaved growth: every term's region fills and moves many times, into regions other
    // terms gave back; term 0 grows past a shared page's largest region.
    const lists = new PostingLists();
    const terms = 200;
    for (let t = 0; t < terms; t++) lists.addTerm();
    const expected: number[][] = Array.from({ length: terms }, () => []);
    for (let slot = 0; slot < 200_000; slot++) {
      const t = slot % 2 === 0 ? 0 : (slot * 31) % terms;
      lists.push(t, slot, (slot % 5) + 1, 0);
      expected[t]?.push(slot);
    }
    for (let t = 0; t < terms; t++) expect(visited(lists, t, [0]).map(([d]) => d)).toEqual(expected[t]);
    expect(lists.size(0)).toBeGreaterThan(1 << 16);
  });

  it("packs into one array per field and reads back the same, appends included", () => {
    const { lists, sourceOf, expected } = build(25, 2_000, 4);
    const packed = lists.pack();
    expect(packed.offsets.length).toBe(26);
    expect(packed.docs.length).toBe(expected.reduce((n, list) => n + list.length, 0));
    const loaded = PostingLists.unpack(packed, 25, sourceOf);
    // The runs of one source come back with the lists.
    for (let t = 0; t < 25; t++)
      expect(visited(loaded, t, [2, 3])).toEqual(
        (expected[t] ?? []).filter(([, , s]) => (s ?? 0) >= 2).map(([d, f]) => [d, f]),
      );
    // Appending moves a loaded list out of the packed page; the packed arrays stay as they were.
    const grown = new Int32Array(2_100);
    grown.set(sourceOf);
    grown.fill(7, 2_000);
    const before = Int32Array.from(packed.docs);
    for (let slot = 2_000; slot < 2_100; slot++) loaded.push(slot % 25, slot, 2, 7);
    expect(packed.docs).toEqual(before);
    for (let t = 0; t < 25; t++) {
      const added = Array.from({ length: 100 }, (_, i) => 2_000 + i).filter((slot) => slot % 25 === t);
      expect(visited(loaded, t, [7]).map(([d]) => d)).toEqual(added);
      expect(loaded.size(t)).toBe((expected[t]?.length ?? 0) + added.length);
    }
    expect(PostingLists.unpack(loaded.pack(), 25, grown).size(0)).toBe(loaded.size(0));
  });

  it("reads a capture as the lists were when it was taken, while they go on growing and moving", () => {
    const lists = new PostingLists();
    const terms = 120;
    for (let t = 0; t < terms; t++) lists.addTerm();
    let slot = 0;
    const expected: number[][] = Array.from({ length: terms }, () => []);
    const grow = (n: number) => {
      for (const end = slot + n; slot < end; slot++) {
        lists.push((slot * 7) % terms, slot, (slot % 9) + 1, slot % 3);
        expected[(slot * 7) % terms]?.push(slot);
      }
    };
    grow(30_000);
    const packed = lists.pack();
    const captured = lists.capture();
    // Every list fills and moves again, and new lists grow through the sizes of the regions the old
    // ones leave: they would be written over but for the capture.
    grow(60_000);
    for (let t = 0; t < terms; t++) lists.addTerm();
    for (let n = 0; n < 300; n++) for (let t = terms; t < 2 * terms; t++) lists.push(t, slot + n, 1, 0);
    slot += 300;
    const later = captured.pack();
    expect(Buffer.from(later.docs.buffer).equals(Buffer.from(packed.docs.buffer))).toBe(true);
    expect(Buffer.from(later.tfs.buffer).equals(Buffer.from(packed.tfs.buffer))).toBe(true);
    expect([...later.offsets]).toEqual([...packed.offsets]);
    expect([...later.runs.pairs]).toEqual([...packed.runs.pairs]);
    // Any stretch of entries reads as the same stretch of the packed arrays.
    const docs = new Int32Array(1_000);
    const tfs = new Uint16Array(1_000);
    for (const from of [0, 1, 4_321, 28_999]) {
      captured.read(from, from + 1_000, docs, tfs);
      expect([...docs]).toEqual([...packed.docs.subarray(from, from + 1_000)]);
      expect([...tfs]).toEqual([...packed.tfs.subarray(from, from + 1_000)]);
    }
    expect(() => captured.read(29_500, 30_001, docs, null)).toThrow(RangeError);
    captured.release();
    expect(() => captured.read(0, 10, docs, null)).toThrow(/released/);
    // Released, the lists reuse regions again and still read right.
    grow(30_000);
    const all = lists.pack();
    expect(all.docs.length).toBe(120_000 + 300 * terms);
    for (let t = 0; t < terms; t++)
      expect([...all.docs.subarray(all.offsets[t], all.offsets[t + 1])]).toEqual(expected[t]);
  });

  it("refuses packed arrays that do not match the terms or their offsets", () => {
    const { lists, sourceOf } = build(3, 10, 2);
    const packed = lists.pack();
    expect(packed.runs.terms.length).toBeGreaterThan(0);
    expect(() => PostingLists.unpack(packed, 4, sourceOf)).toThrow(RangeError);
    expect(() => PostingLists.unpack({ ...packed, docs: packed.docs.subarray(1) }, 3, sourceOf)).toThrow(
      RangeError,
    );
    const runs = { ...packed.runs, pairs: packed.runs.pairs.subarray(2) };
    expect(() => PostingLists.unpack({ ...packed, runs }, 3, sourceOf)).toThrow(RangeError);
  });
});
