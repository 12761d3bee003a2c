import { describe, expect, it } from "vitest";
import { type LexicalCandidate, LexicalIndex } from "./lexical-index.ts";

// A question reads only the postings of its own sources (runs of one source inside each posting
// list). What a user sees must not change: for a question scoped to some sources, exactly the
// candidates those sources contribute to the same question over every source, with the same scores.

const WORDS = (
  "river bridge castle harbour tower market valley forest museum garden station library " +
  "engine battery signal planet crystal orbit meadow glacier canyon desert island volcano " +
  "treaty empire senate council charter village parish abbey railway canal furnace mill"
).split(" ");

/** A small deterministic generator (mulberry32), so the corpus and its interleaving are fixed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Corpus {
  index: LexicalIndex;
  sourceOf: number[];
}

/**
 * Three sources' documents (three chunks each) written in an interleaved order — runs of one to
 * four documents of one source, as concurrent syncs would — so every common term's postings hold
 * many runs of each source.
 */
function corpus(): Corpus {
  const next = random(7);
  const pick = () => WORDS[Math.floor(next() * WORDS.length)] ?? "river";
  const index = new LexicalIndex();
  const sourceOf: number[] = [];
  const pending = [0, 1, 2].map((source) =>
    Array.from({ length: 40 }, (_, d) => ({ source, group: source * 1000 + d })),
  );
  while (pending.some((docs) => docs.length > 0)) {
    const docs = pending[Math.floor(next() * 3)] ?? [];
    for (let run = 1 + Math.floor(next() * 4); run > 0 && docs.length > 0; run--) {
      const doc = docs.shift();
      if (!doc) break;
      const title = `${pick()} ${pick()}`;
      for (let c = 0; c < 3; c++) {
        const sentence = () => `The ${pick()} near the ${pick()} has ${Math.floor(next() * 90)} ${pick()}s.`;
        const slot = index.add(`${sentence()} ${sentence()}`, title, doc.source, doc.group);
        sourceOf[slot] = doc.source;
      }
    }
  }
  return { index, sourceOf };
}

const QUERIES = [
  "river bridge",
  "how many towers does the castle have",
  "glacier canyon volcano",
  "when was the treaty signed by the senate",
  "railway station near the market",
  "engine battery",
];

/** Everything of a candidate but the two features relative to the best candidate of its search. */
function own(c: LexicalCandidate) {
  const { bm25Rel: _rel, docRel: _docRel, ...features } = c.features;
  return { slot: c.slot, ...features };
}

/**
 * Every candidate of the question over `every` source, cut to those of `scope`, as the scoped search
 * must answer (no cut to the best 100 on either side: among equal scores which ones a cut keeps
 * depends on the order they were met in).
 */
function expected(index: LexicalIndex, sourceOf: number[], query: string, scope: number[], every: number[]) {
  const all = index.search(query, new Set(every), index.slotCount);
  return all.filter((c) => scope.includes(sourceOf[c.slot] ?? -1)).map(own);
}

const scoped = (index: LexicalIndex, query: string, scope: number[]) =>
  index.search(query, new Set(scope), index.slotCount);

describe("search partitioned by data source", () => {
  it("gives a question scoped to some sources exactly their part of the search over every source", () => {
    const { index, sourceOf } = corpus();
    expect(index.size).toBe(360);
    for (const query of QUERIES) {
      for (const scope of [[0], [1], [2], [0, 2], [1, 2]]) {
        const found = scoped(index, query, scope);
        expect(found.length, `${query} in ${scope}`).toBeGreaterThan(0);
        expect(found.map(own), `${query} in ${scope}`).toEqual(
          expected(index, sourceOf, query, scope, [0, 1, 2]),
        );
        // Relative to the best candidate the question can see, not the best on the server.
        expect(found[0]?.features.bm25Rel).toBe(1);
      }
    }
  });

  it("drops only the removed source's partition: the others answer as before, after compaction and a snapshot", () => {
    const { index, sourceOf } = corpus();
    for (let slot = 0; slot < index.slotCount; slot++) if (sourceOf[slot] === 1) index.remove(slot);
    const before = new Map(
      QUERIES.flatMap((q) => [0, 2].map((s) => [`${q}|${s}`, index.search(q, new Set([s]))] as const)),
    );
    for (const query of QUERIES) {
      expect(index.search(query, new Set([1]))).toEqual([]);
      for (const scope of [[0], [2], [0, 2]]) {
        expect(scoped(index, query, scope).map(own)).toEqual(
          expected(index, sourceOf, query, scope, [0, 1, 2]),
        );
      }
    }

    const remap = index.compact();
    expect(index.slotCount).toBe(240);
    const restored = LexicalIndex.fromState(index.params, index.captureState());
    for (const search of [index, restored]) {
      for (const query of QUERIES) {
        expect(search.search(query, new Set([1]))).toEqual([]);
        for (const source of [0, 2]) {
          const was = (before.get(`${query}|${source}`) ?? []).map((c) => ({
            ...c,
            slot: remap[c.slot],
          }));
          expect(search.search(query, new Set([source])), `${query} in ${source}`).toEqual(was);
        }
      }
    }

    // Chunks appended to lists loaded from the snapshot (an old source's and a new one's, in turn).
    const sourceAfter: number[] = [];
    remap.forEach((to, from) => {
      if (to >= 0) sourceAfter[to] = sourceOf[from] ?? -1;
    });
    const next = random(11);
    const pick = () => WORDS[Math.floor(next() * WORDS.length)] ?? "river";
    for (let i = 0; i < 30; i++) {
      const source = i % 2 === 0 ? 0 : 3;
      const slot = restored.add(
        `The ${pick()} by the ${pick()} and the ${pick()}.`,
        pick(),
        source,
        5000 + i,
      );
      sourceAfter[slot] = source;
    }
    for (const query of QUERIES) {
      for (const scope of [[0], [3], [0, 3], [2, 3]]) {
        expect(scoped(restored, query, scope).map(own), `${query} in ${scope}`).toEqual(
          expected(restored, sourceAfter, query, scope, [0, 2, 3]),
        );
      }
    }
  });
});
