import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultLexicalParams } from "./lexical-index.ts";
import { MemoryIndex } from "./memory-index.ts";
import {
  loadMemorySnapshot,
  SNAPSHOT_LAYOUT,
  type SnapshotKey,
  saveMemorySnapshot,
} from "./memory-snapshot.ts";
import { makeStoredChunk } from "./test-chunks.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lore-memory-snapshot-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const key: SnapshotKey = {
  layout: SNAPSHOT_LAYOUT,
  table: "chunks",
  tableVersion: 3,
  params: defaultLexicalParams,
};
const words = "refund policy shipping days order invoice account password reset billing plan team".split(" ");

/** An index of 600 chunks in three sources: common words make long lists, numbers one-entry ones. */
function built(): MemoryIndex {
  const memory = new MemoryIndex(defaultLexicalParams);
  const workspaceId = randomUUID();
  const sources = [randomUUID(), randomUUID(), randomUUID()];
  for (let i = 0; i < 600; i++) {
    const text = `${words[i % words.length]} ${words[(i * 7) % words.length]} item ${i} of ${words[(i * 5) % words.length]}.`;
    const chunk = makeStoredChunk({
      workspaceId,
      dataSourceId: sources[i % 3] ?? "",
      documentId: `doc-${Math.floor(i / 10)}`,
      ordinal: i % 10,
      text,
    });
    memory.add(chunk, "w1");
  }
  return memory;
}

const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe("the memory index snapshot", () => {
  it("stores postings as gaps computed a piece at a time: pieces that cut through lists load the same index", async () => {
    const memory = built();
    const whole = join(dir, "whole.snapshot");
    const pieces = join(dir, "pieces.snapshot");
    await saveMemorySnapshot(whole, key, memory);
    // 256 bytes: 64 entries a piece, so most lists start in one piece and end in another.
    await saveMemorySnapshot(pieces, key, memory, { pieceBytes: 256 });
    const captured = memory.captureState().lexical;
    const saved = { postings: captured.postings.pack(), titlePostings: captured.titlePostings.pack() };
    captured.release();
    for (const path of [whole, pieces]) {
      const loaded = await loadMemorySnapshot(path, key);
      if (!loaded) throw new Error(`no snapshot at ${path}`);
      const loadedState = loaded.captureState().lexical;
      const state = {
        postings: loadedState.postings.pack(),
        titlePostings: loadedState.titlePostings.pack(),
      };
      loadedState.release();
      for (const field of ["postings", "titlePostings"] as const) {
        expect(state[field].docs.length).toBeGreaterThan(1_000);
        expect(bytesOf(state[field].offsets).equals(bytesOf(saved[field].offsets))).toBe(true);
        expect(bytesOf(state[field].docs).equals(bytesOf(saved[field].docs)), `${path} ${field}`).toBe(true);
        expect(bytesOf(state[field].tfs).equals(bytesOf(saved[field].tfs))).toBe(true);
      }
      loaded.close();
    }
    memory.close();
  });
});
