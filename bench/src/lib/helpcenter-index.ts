/** The help-center articles parsed and chunked exactly as a sync does, indexed in-process (for tuning and fitting). */
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
import { chunkDocument } from "../../../server/src/sources/chunking/chunk-document.ts";
import { parseDocument } from "../../../server/src/sources/parsing/parse-document.ts";
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
      chunks: chunkDocument(parsed).map((d) => ({
        id: randomUUID(),
        workspaceId: "bench",
        dataSourceId: sourceId,
        documentId,
        documentVersion: "1",
        ordinal: d.ordinal,
        text: d.text,
        title: parsed.title,
        headingPath: d.headingPath,
        page: d.page,
        sourceUrl: null,
        kind: parsed.kind,
        tokenCount: d.tokenCount,
      })),
    });
  }
  await index.replaceDocuments(documents);
  return { index, sourceId, pathOf, chunks: documents.flatMap((d) => d.chunks) };
}
