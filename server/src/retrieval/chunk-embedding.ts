import type { WriteQueue } from "../store/write-queue.ts";
import type { ChunkStore, StoredChunk, VectorRow } from "./chunk-store.ts";
import type { Embedder } from "./embedder.ts";
import type { MemoryIndex } from "./memory-index.ts";

const embedBatchSize = 64;

/** What gets embedded: the title and headings give a chunk the context its text often lacks. */
export function embeddingText(chunk: StoredChunk): string {
  const context = [chunk.title, ...chunk.headingPath].filter((s) => s.trim() !== "").join(" › ");
  return context ? `${context}\n\n${chunk.text}` : chunk.text;
}

/** Embeds the chunks in batches, in order. */
export async function embedChunks(
  embedder: Embedder,
  chunks: readonly StoredChunk[],
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < chunks.length; i += embedBatchSize) {
    out.push(...(await embedder.embed(chunks.slice(i, i + embedBatchSize).map(embeddingText))));
  }
  return out;
}

export function vectorRow(
  chunk: StoredChunk,
  writeId: string,
  embedder: Embedder,
  vector: Float32Array | undefined,
): VectorRow {
  return {
    id: chunk.id,
    dataSourceId: chunk.dataSourceId,
    documentId: chunk.documentId,
    writeId,
    embedder: embedder.name,
    vector: Array.from(vector ?? []),
  };
}

/**
 * Re-embeds the live chunks whose stored vector another embedder made (or that have none), a batch
 * at a time, each batch written through the write queue. Returns how many chunks were embedded.
 */
export async function reembedStaleChunks(
  embedder: Embedder,
  store: ChunkStore,
  memory: MemoryIndex,
  writes: WriteQueue,
): Promise<number> {
  const current = new Set<string>();
  for (const stamp of await store.vectorStamps()) {
    const live = memory.liveSlot(stamp.id, stamp.writeId) !== undefined;
    if (live && stamp.embedder === embedder.name) current.add(stamp.id);
  }
  const pending = memory.chunksExcept(current);
  let done = 0;
  for (let i = 0; i < pending.length; i += embedBatchSize) {
    const batch = pending.slice(i, i + embedBatchSize);
    const embedded = await embedder.embed(batch.map((s) => embeddingText(s.chunk)));
    await writes.run(async () => {
      // Skip chunks replaced or deleted while this batch was being embedded.
      const still = batch
        .map((s, j) => vectorRow(s.chunk, s.writeId, embedder, embedded[j]))
        .filter((row) => memory.liveSlot(row.id, row.writeId) !== undefined);
      if (still.length === 0) return;
      await store.replaceVectors(still);
      done += still.length;
    });
  }
  return done;
}
