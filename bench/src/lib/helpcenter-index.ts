/** The help-center articles parsed and chunked by the sync's own code, indexed in-process (for tuning and fitting). */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";
import {
  ChunkIndex,
  type ChunkIndexOptions,
  type StoredChunk,
} from "../../../server/src/retrieval/chunk-index.ts";
import { chunkedDocument } from "../../../server/src/sources/chunking/chunk-document.ts";
import { parseDocument } from "../../../server/src/sources/parsing/parse-document.ts";
import { chunkRecords } from "../../../server/src/sources/sync-source.ts";
import type { HelpCenterData } from "../datasets.ts";

export interface HelpCenterIndex {
  index: ChunkIndex;
  sourceId: string;
  /** Document id → article path (the questions' gold ids). */
  pathOf: Map<string, string>;
  chunks: StoredChunk[];
}

export async function indexHelpCenter(
  data: HelpCenterData,
  options: Partial<ChunkIndexOptions> = {},
): Promise<HelpCenterIndex> {
  const dir = mkdtempSync(join(tmpdir(), "lore-hc-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const index = await ChunkIndex.open(await connect(dir), { embedder: null, ...options });
  const sourceId = randomUUID();
  const pathOf = new Map<string, string>();
  const documents: { documentId: string; chunks: StoredChunk[] }[] = [];
  for (const article of data.articles) {
    const parsed = await parseDocument({
      externalId: article.path,
      title: article.title,
      sourceUrl: null,
      kind: "text",
      body: article.content,
    });
    const documentId = randomUUID();
    pathOf.set(documentId, article.path);
    documents.push({
      documentId,
      chunks: chunkRecords(chunkedDocument(parsed), {
        workspaceId: "bench",
        dataSourceId: sourceId,
        documentId,
        documentVersion: "1",
        sourceUrl: null,
      }),
    });
  }
  await index.replaceDocuments(documents);
  return { index, sourceId, pathOf, chunks: documents.flatMap((d) => d.chunks) };
}
