import type { RetrievalMode, SearchResponse } from "@lore/shared";
import { chunkCitation } from "../generation/citations.ts";
import type { RetrievedChunk } from "../generation/types.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import type { AgentRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

export interface SearchDeps {
  store: Store;
  index: ChunkIndex;
}

export interface KnowledgeQuery {
  query: string;
  /** The sources to search (already checked against the agent); none → nothing found. */
  sourceIds: string[];
  topK?: number;
  mode?: RetrievalMode;
  signal: AbortSignal;
}

/** The agent's best chunks for a query, with their sources' names: what answers cite and `/search/` lists. */
export async function searchKnowledge(
  deps: SearchDeps,
  agent: AgentRecord,
  q: KnowledgeQuery,
): Promise<RetrievedChunk[]> {
  if (q.sourceIds.length === 0) return [];
  const hits = await deps.index.search({
    query: q.query,
    dataSourceIds: q.sourceIds,
    workspaceId: agent.workspaceId,
    topK: q.topK ?? agent.retrieval.topK,
    minScore: agent.retrieval.minScore,
    mode: q.mode ?? agent.retrieval.mode,
    signal: q.signal,
  });
  return hits.map(({ chunk, score }) => ({
    chunkId: chunk.id,
    documentId: chunk.documentId,
    dataSourceId: chunk.dataSourceId,
    dataSourceName: deps.store.dataSources.get(chunk.dataSourceId)?.name ?? "",
    kind: chunk.kind,
    title: chunk.title,
    sourceUrl: chunk.sourceUrl,
    text: chunk.text,
    score,
    page: chunk.page,
    headingPath: chunk.headingPath,
  }));
}

/** Retrieval only, timed: the ranked chunks an answer would draw on. */
export async function searchResults(
  deps: SearchDeps,
  agent: AgentRecord,
  q: KnowledgeQuery,
): Promise<SearchResponse> {
  const started = performance.now();
  const chunks = await searchKnowledge(deps, agent, q);
  return {
    results: chunks.map((chunk, i) => chunkCitation(chunk, i + 1, chunk.text)),
    retrievalTime: Math.round((performance.now() - started) * 10) / 10,
    mode: deps.index.effectiveMode(q.mode ?? agent.retrieval.mode),
  };
}
