import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Connection, connect } from "@lancedb/lancedb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChunkIndex, type StoredChunk } from "./chunk-index.ts";
import type { Embedder } from "./embedder.ts";
import { makeStoredChunk } from "./test-chunks.ts";
import { tokenize } from "./text-analysis.ts";

/** A tiny bag-of-words embedder whose `gate` holds a search mid-flight. */
class GatedEmbedder implements Embedder {
  readonly name = "test-bow";
  readonly dimensions = 32;
  gate: Promise<void> | null = null;

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.gate) await this.gate;
    return texts.map((text) => {
      const v = new Float32Array(this.dimensions);
      for (const token of tokenize(text)) v[token.length % this.dimensions] = 1;
      return v;
    });
  }
}

let dir: string;
let db: Connection;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lore-partitioned-"));
  db = await connect(join(dir, "lance"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Workspace {
  id: string;
  source: string;
  /** Four documents of one chunk each; the first mentions `word`. */
  documents: string[];
  word: string;
}

const workspace = (word: string): Workspace => ({
  id: randomUUID(),
  source: randomUUID(),
  documents: [randomUUID(), randomUUID(), randomUUID(), randomUUID()],
  word,
});

function chunkOf(ws: Workspace, documentId: string, text: string, version = "v1"): StoredChunk {
  return makeStoredChunk(
    { workspaceId: ws.id, dataSourceId: ws.source, documentId, ordinal: 0, text },
    { documentVersion: version },
  );
}

async function fill(index: ChunkIndex, ws: Workspace): Promise<void> {
  await index.replaceDocuments(
    ws.documents.map((documentId, i) => ({
      documentId,
      chunks: [
        chunkOf(
          ws,
          documentId,
          i === 0
            ? `The ${ws.word} policy covers refunds within thirty days.`
            : `Filler note ${i} about shipping.`,
        ),
      ],
    })),
  );
}

/** The documents a keyword search of one workspace finds (its id passed, or looked up from the source). */
async function found(
  index: ChunkIndex,
  ws: Workspace,
  query: string,
  passWorkspace = true,
): Promise<string[]> {
  const hits = await index.search({
    query,
    dataSourceIds: [ws.source],
    workspaceId: passWorkspace ? ws.id : undefined,
    topK: 10,
    minScore: 0,
    mode: "keyword",
  });
  return hits.map((h) => h.chunk.documentId);
}

function openPartitioned(maxChunks: number, extra: { embedder?: Embedder } = {}) {
  const log: { message: string; fields: Record<string, unknown> }[] = [];
  const opened = ChunkIndex.open(db, {
    embedder: extra.embedder ?? null,
    maxChunks,
    snapshotPath: join(dir, "index", "chunks.snapshot"),
    log: (message, fields) => log.push({ message, fields }),
  });
  return { opened, log };
}

describe("a chunk index with a chunk budget (LORE_INDEX_MAX_CHUNKS)", () => {
  it("holds nothing at open, loads a workspace at its first search and lets the least recent go past the budget", async () => {
    const [a, b, c] = [workspace("aardvark"), workspace("bluebird"), workspace("chinchilla")];
    const { opened, log } = openPartitioned(6);
    const index = await opened;
    expect(index.startup.from).toBe("partitioned");
    for (const ws of [a, b, c]) await fill(index, ws);
    // Writes for workspaces not held went to the table only.
    expect(index.heldIndex).toEqual({ maxChunks: 6, chunks: 0, workspaces: 0 });

    expect(await found(index, a, "aardvark refunds")).toEqual([a.documents[0]]);
    expect(index.heldIndex).toEqual({ maxChunks: 6, chunks: 4, workspaces: 1 });
    expect(log.at(-1)).toMatchObject({
      message: "search index loaded a workspace",
      fields: { workspaceId: a.id, chunks: 4 },
    });

    // B (its workspace looked up from the source) pushes the index past 6: A goes.
    expect(await found(index, b, "bluebird refunds", false)).toEqual([b.documents[0]]);
    expect(index.holds(b.id)).toBe(true);
    expect(index.holds(a.id)).toBe(false);
    expect(index.heldIndex).toEqual({ maxChunks: 6, chunks: 4, workspaces: 1 });
    expect(log.map((l) => l.message)).toContain("search index let a workspace go");
    expect(log.find((l) => l.message === "search index let a workspace go")?.fields).toMatchObject({
      workspaceId: a.id,
      chunks: 4,
    });
    // Sources never mix: B's search cannot see A's chunk, held or not.
    expect(await found(index, b, "aardvark")).toEqual([]);

    // A again: reloaded from the table, the same answer.
    expect(await found(index, a, "aardvark refunds")).toEqual([a.documents[0]]);
    expect(index.holds(a.id)).toBe(true);
    expect(index.holds(b.id)).toBe(false);
    index.close();
  });

  it("finds what was written to a workspace while it was not held, once it loads", async () => {
    const [a, b] = [workspace("aardvark"), workspace("bluebird")];
    const index = await openPartitioned(5).opened;
    await fill(index, a);
    await fill(index, b);
    expect(await found(index, a, "aardvark")).toEqual([a.documents[0]]);
    // B not held: a replacement and a delete go to the table only.
    const [first, second] = b.documents;
    if (!first || !second) throw new Error("fixture");
    await index.replaceDocument(first, [chunkOf(b, first, "The kookaburra policy replaced it.", "v2")]);
    await index.deleteDocuments([second]);
    expect(index.heldIndex?.chunks).toBe(4);
    // The old version's rows went from the table at once, as for a held workspace.
    const table = await db.openTable("retrieval_chunks");
    expect(await table.countRows(`documentId = '${first}'`)).toBe(1);
    expect(await table.countRows(`documentId = '${second}'`)).toBe(0);
    expect(index.documentChunks(first)).toEqual([]);
    // Read from the table for a workspace not held.
    expect((await index.readDocumentChunks([first])).get(first)?.map((c) => c.text)).toEqual([
      "The kookaburra policy replaced it.",
    ]);
    expect(await index.countByDataSource(b.source)).toBe(3);

    expect(await found(index, b, "kookaburra")).toEqual([first]);
    expect(await found(index, b, "bluebird")).toEqual([]);
    expect(await found(index, b, "filler note 1")).not.toContain(second);
    expect(index.heldIndex).toEqual({ maxChunks: 5, chunks: 3, workspaces: 1 });
    // A held workspace's write reaches memory at once.
    await index.replaceDocument(first, [chunkOf(b, first, "The wombat policy now.", "v3")]);
    expect(await found(index, b, "wombat")).toEqual([first]);
    expect(await found(index, b, "kookaburra")).toEqual([]);
    index.close();
  });

  it("neither loses nor doubles a write made while its workspace loads", async () => {
    const [a, b] = [workspace("aardvark"), workspace("bluebird")];
    const index = await openPartitioned(5).opened;
    await fill(index, a);
    await fill(index, b);
    const [first] = a.documents;
    if (!first) throw new Error("fixture");
    for (let round = 1; round <= 4; round++) {
      // Each round A is not held (B's search let it go) and its load races a replacement.
      expect(await found(index, b, "bluebird")).toEqual([b.documents[0]]);
      expect(index.holds(a.id)).toBe(false);
      const word = `axolotl${round}`;
      const writing = index.replaceDocument(first, [
        chunkOf(a, first, `The ${word} policy.`, `v${round + 1}`),
        { ...chunkOf(a, first, `A second ${word} part.`, `v${round + 1}`), ordinal: 1 },
      ]);
      const searching = found(index, a, "filler");
      await Promise.all([searching, writing]);
      expect(await found(index, a, word)).toEqual([first, first]);
      expect(index.heldIndex?.chunks).toBe(5);
    }
    expect(await index.countByDataSource(a.source)).toBe(5);
    index.close();
  });

  it("keeps a workspace over the budget alone, and never lets go of one a search is using", async () => {
    const embedder = new GatedEmbedder();
    const [a, b] = [workspace("aardvark"), workspace("bluebird")];
    const index = await openPartitioned(2, { embedder }).opened;
    await fill(index, a);
    await fill(index, b);
    expect(await found(index, a, "aardvark")).toEqual([a.documents[0]]);
    // Alone over the budget (4 > 2), still held and searchable.
    expect(index.heldIndex).toEqual({ maxChunks: 2, chunks: 4, workspaces: 1 });

    let release = (): void => undefined;
    embedder.gate = new Promise((resolve) => {
      release = resolve;
    });
    // A hybrid search of A waits for its query's embedding, A pinned meanwhile.
    const inFlight = index.search({
      query: "aardvark refunds",
      dataSourceIds: [a.source],
      workspaceId: a.id,
      topK: 3,
      minScore: 0,
      mode: "hybrid",
    });
    expect(await found(index, b, "bluebird")).toEqual([b.documents[0]]);
    expect(index.holds(a.id)).toBe(true);
    release();
    expect((await inFlight).map((h) => h.chunk.documentId)[0]).toBe(a.documents[0]);
    index.close();
  });

  it("never loads or saves a snapshot", async () => {
    const a = workspace("aardvark");
    const index = await openPartitioned(10).opened;
    await fill(index, a);
    await found(index, a, "aardvark");
    await index.saveSnapshot();
    expect(existsSync(join(dir, "index", "chunks.snapshot"))).toBe(false);
    index.close();
  });
});

describe("a chunk index without a budget", () => {
  it("holds every workspace from open and keeps its snapshot", async () => {
    const [a, b] = [workspace("aardvark"), workspace("bluebird")];
    const snapshotPath = join(dir, "index", "chunks.snapshot");
    const first = await ChunkIndex.open(db, { embedder: null, snapshotPath });
    await fill(first, a);
    await fill(first, b);
    expect(first.size).toBe(8);
    expect(first.heldIndex).toBeNull();
    expect(first.holds(a.id)).toBe(true);
    await first.saveSnapshot();
    first.close();
    expect(existsSync(snapshotPath)).toBe(true);

    const reopened = await ChunkIndex.open(db, { embedder: null, snapshotPath });
    expect(reopened.startup.from).toBe("snapshot");
    expect(reopened.size).toBe(8);
    expect(await found(reopened, b, "bluebird")).toEqual([b.documents[0]]);
    expect(reopened.size).toBe(8);
    reopened.close();
  });
});
