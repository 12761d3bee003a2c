import { describe, expect, it } from "vitest";
import { type ChunkMeta, ChunkSlots } from "./chunk-slots.ts";

const meta: ChunkMeta = {
  workspaceId: "w",
  dataSourceId: "s",
  documentId: "d",
  documentVersion: "v1",
  title: "Guide",
  sourceUrl: null,
  kind: "markdown",
  writeId: "write-1",
  source: 0,
};

const texts = [
  "Plain ASCII text.",
  "Ünïcödé — “quotes”, 漢字 and emoji 🙂 survive the round trip.",
  "A lone surrogate \ud800 stays a JS string.",
  "",
];

describe("ChunkSlots", () => {
  it("gives back every field it was given, text included, whatever its characters", () => {
    const slots = new ChunkSlots();
    for (const [i, text] of texts.entries()) {
      const headingPath = i === 3 ? [] : ["Setup", `Part ${i}\n“${text.slice(0, 5)}”`];
      slots.set(
        i,
        { id: `c${i}`, ordinal: i, text, headingPath, page: i === 1 ? null : i + 1, tokenCount: 10 + i },
        meta,
      );
    }
    texts.forEach((text, i) => {
      expect(slots.chunk(i)).toEqual({
        id: `c${i}`,
        ordinal: i,
        text,
        headingPath: i === 3 ? [] : ["Setup", `Part ${i}\n“${text.slice(0, 5)}”`],
        page: i === 1 ? null : i + 1,
        tokenCount: 10 + i,
      });
      expect(slots.meta(i)).toBe(meta);
    });
  });

  it("forgets a cleared slot and renumbers the rest on compaction, texts intact", () => {
    const slots = new ChunkSlots();
    for (const [i, text] of texts.entries()) {
      slots.set(i, { id: `c${i}`, ordinal: i, text, headingPath: [], page: null, tokenCount: 1 }, meta);
    }
    slots.clear(1);
    expect(slots.chunk(1)).toBeNull();
    expect(slots.id(1)).toBeNull();
    slots.compact(Int32Array.from([0, -1, 1, 2]));
    expect(slots.length).toBe(3);
    expect([0, 1, 2].map((slot) => slots.chunk(slot)?.text)).toEqual([texts[0], texts[2], texts[3]]);
    expect([0, 1, 2].map((slot) => slots.id(slot))).toEqual(["c0", "c2", "c3"]);
  });

  it("keeps texts apart across its large shared buffers", () => {
    const slots = new ChunkSlots();
    const big = "x".repeat(3 * 1024 * 1024);
    for (let i = 0; i < 24; i++) {
      slots.set(
        i,
        { id: `c${i}`, ordinal: i, text: `${i}:${big}`, headingPath: [], page: null, tokenCount: 1 },
        meta,
      );
    }
    for (const i of [0, 10, 11, 23]) expect(slots.chunk(i)?.text).toBe(`${i}:${big}`);
  });
});
