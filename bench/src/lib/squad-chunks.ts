import { randomUUID } from "node:crypto";
import type { StoredChunk } from "../../../server/src/retrieval/chunk-index.ts";
import type { SquadData } from "../datasets.ts";

/** SQuAD as chunks, one per paragraph, each article one document (titles without underscores). */
export function squadParagraphChunks(squad: SquadData, sourceId: string, workspaceId: string): StoredChunk[] {
  const docIds = squad.articles.map(() => randomUUID());
  return squad.paragraphs.map((p, i) => ({
    id: randomUUID(),
    workspaceId,
    dataSourceId: sourceId,
    documentId: docIds[p.articleIndex] ?? "",
    documentVersion: "v1",
    ordinal: i,
    text: p.context,
    title: p.articleTitle.replaceAll("_", " "),
    headingPath: [],
    page: null,
    sourceUrl: null,
    kind: "text",
    tokenCount: p.context.split(/\s+/).length,
  }));
}
