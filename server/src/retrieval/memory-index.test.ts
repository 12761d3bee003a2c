import { describe, expect, it } from "vitest";
import type { StoredChunk } from "./chunk-store.ts";
import { defaultLexicalParams } from "./lexical-index.ts";
import { MemoryIndex } from "./memory-index.ts";

function chunk(id: string, documentId: string, text: string, dataSourceId = "source-1"): StoredChunk {
  return {
    id,
    workspaceId: "w",
    dataSourceId,
    documentId,
    documentVersion: "v1",
    ordinal: 0,
    text,
    title: "Guide",
    headingPath: ["Setup"],
    page: null,
    sourceUrl: null,
    kind: "markdown",
    tokenCount: 3,
  };
}

describe("MemoryIndex", () => {
  it("loads the newest write of each document and names the writes left behind", () => {
    const memory = new MemoryIndex(defaultLexicalParams);
    const stale = memory.load([
      { chunk: chunk("a1", "doc-a", "old text"), writeId: "w1", indexedAt: 1 },
      { chunk: chunk("a2", "doc-a", "new text"), writeId: "w2", indexedAt: 2 },
      { chunk: chunk("b1", "doc-b", "other text"), writeId: "w1", indexedAt: 1 },
    ]);
    expect([...stale]).toEqual(["w1"]);
    expect(memory.size).toBe(2);
    expect(memory.liveSlot("a2", "w2")).toBeDefined();
    expect(memory.liveSlot("a2", "w1")).toBeUndefined();
    expect(memory.liveSlot("a1", "w1")).toBeUndefined();
  });

  it("forgets removed documents and sources, and keeps its slots straight through compaction", () => {
    const memory = new MemoryIndex(defaultLexicalParams);
    for (let i = 0; i < 10; i++) memory.add(chunk(`c${i}`, `doc-${i}`, `text number ${i}`), "w");
    memory.add(chunk("x", "doc-x", "elsewhere", "source-2"), "w");
    for (let i = 0; i < 5; i++) memory.removeDocument(`doc-${i}`);
    memory.removeSources(["source-2"]);
    expect([memory.liveCount("source-1"), memory.liveCount("source-2")]).toEqual([5, 0]);
    memory.compactIfSparse();
    expect(memory.documentIds().sort()).toEqual(["doc-5", "doc-6", "doc-7", "doc-8", "doc-9"]);
    const slot = memory.liveSlot("c7", "w");
    expect(slot === undefined ? null : memory.chunkAt(slot)?.text).toBe("text number 7");
    expect(memory.chunksExcept(new Set(["c5"])).map((c) => c.chunk.id)).toEqual(["c6", "c7", "c8", "c9"]);
  });
});
