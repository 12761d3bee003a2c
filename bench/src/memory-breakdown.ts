/**
 * Where the search index's memory goes (issue #32): builds the in-memory index (MemoryIndex) of N
 * synthetic chunks — the passages `scale.ts` writes — in this process, and prints, after a full GC,
 * the heap, the typed-array bytes and the RSS it added, per chunk, beside the index's own counts.
 *
 *   node --expose-gc --import tsx bench/src/memory-breakdown.ts [--chunks 200000] [--lexical-only]
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { defaultLexicalParams, LexicalIndex } from "@lore/server/retrieval/lexical-index.ts";
import { MemoryIndex } from "@lore/server/retrieval/memory-index.ts";
import { loadSquad } from "./datasets.ts";
import { passageChunks } from "./lib/direct-corpus.ts";
import { sentencePool, syntheticEntries } from "./lib/synthetic.ts";

const { values } = parseArgs({
  options: {
    chunks: { type: "string", default: "200000" },
    "lexical-only": { type: "boolean", default: false },
  },
});
const size = Number(values.chunks);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

function usage() {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, arrays: m.arrayBuffers, external: m.external, rss: m.rss };
}

const pool = sentencePool(loadSquad());
const before = usage();
const lexical = new LexicalIndex(defaultLexicalParams);
const memory = values["lexical-only"] ? null : new MemoryIndex(defaultLexicalParams);
const workspaceId = randomUUID();
for (let first = 0, source = 0; first < size; first += 10_000, source++) {
  const dataSourceId = randomUUID();
  for (let d = first; d < Math.min(size, first + 10_000); d += 100) {
    const passages = syntheticEntries(pool, d, Math.min(100, size - d));
    const title = `Document ${d / 100}`;
    const chunks = passageChunks(passages, { workspaceId, dataSourceId, documentId: randomUUID(), title });
    for (const chunk of chunks) {
      if (memory) memory.add(chunk, "w1");
      else lexical.add(chunk.text, `${chunk.title} ${chunk.headingPath.join(" ")}`, source, d / 100);
    }
  }
}
const after = usage();
const state = (memory?.lexical ?? lexical).captureState();
const mib = (n: number) => Math.round(n / 1024 / 1024);
const perChunk = (n: number) => Math.round(n / size);
console.log(
  JSON.stringify(
    {
      chunks: size,
      terms: state.terms.length,
      postings: state.postings.offsets.at(-1),
      titlePostings: state.titlePostings.offsets.at(-1),
      arenaBytes: state.blocks.reduce((n, b) => n + b.length, 0),
      heapMiB: mib(after.heap - before.heap),
      arraysMiB: mib(after.arrays - before.arrays),
      rssMiB: mib(after.rss - before.rss),
      perChunkBytes: {
        heap: perChunk(after.heap - before.heap),
        arrays: perChunk(after.arrays - before.arrays),
        rss: perChunk(after.rss - before.rss),
      },
    },
    null,
    2,
  ),
);
