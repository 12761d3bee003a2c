import type { RetrievalMode, SearchResponse } from "@lore/shared";
import { chunkCitation } from "../generation/citations.ts";
import type { RetrievedChunk } from "../generation/types.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import { analyze } from "../retrieval/text-analysis.ts";
import type { AgentRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { detectLanguage, type Language } from "../text/language.ts";
import type { QueryTranslator, QuestionTranslation, WordStatus } from "../text/translate/query-translator.ts";
import { questionWords } from "../text/translate/translate-question.ts";

export interface SearchDeps {
  store: Store;
  index: ChunkIndex;
  /** Questions in another language than the documents', translated for retrieval; none: searched as written. */
  translator?: QueryTranslator;
}

/** A question as retrieval searches it: `query`, and the translation it came from, if any. */
export interface RetrievalQuestion {
  query: string;
  translation: QuestionTranslation | null;
}

/**
 * The question in the documents' words (issue #53): the words the knowledge base does not hold
 * translated where a dictionary of the question's language can; as written otherwise.
 */
export async function retrievalQuestion(deps: SearchDeps, question: string): Promise<RetrievalQuestion> {
  const translation = (await deps.translator?.translate(question, wordStatusOf(deps))) ?? null;
  if (!translation || translation.translated === 0) return { query: question, translation: null };
  return { query: translation.query, translation };
}

/** What the knowledge base holds of each word, asked of the index once a word. */
function wordStatusOf(deps: SearchDeps): (word: string) => WordStatus {
  const seen = new Map<string, WordStatus>();
  return (word) => {
    let known = seen.get(word);
    if (known === undefined) {
      known = deps.index.wordStatus(word);
      if (known === "unknown" && deps.index.unknownTerms(word).unknown === 0) known = "related";
      seen.set(word, known);
    }
    return known;
  };
}

/**
 * The language of a question asked in another language than the documents' (English): one detected
 * and not English, with words the knowledge base does not hold; null otherwise (a question in the
 * documents' own language holds their words).
 */
export function foreignLanguageOf(deps: SearchDeps, question: string): Language | null {
  const language = detectLanguage(question);
  if (language === null || language === "en") return null;
  const status = wordStatusOf(deps);
  return questionWords(question).every((w) => status(w) === "known" || status(w) === "stop")
    ? null
    : language;
}

/**
 * A question a chat model also wrote in the documents' language, searched as that, alongside the
 * words of the visitor's own that the documents hold (names, numbers, shared words).
 */
export function modelTranslatedQuestion(
  deps: SearchDeps,
  translated: string,
  original: string,
): RetrievalQuestion {
  const status = wordStatusOf(deps);
  const written = new Set(questionWords(translated));
  const shared = questionWords(original).filter((w) => status(w) === "known" && !written.has(w));
  return { query: [translated, ...new Set(shared)].join(" "), translation: null };
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

/**
 * The translated question an answer is judged on: of each word's alternatives, the first the best
 * chunks hold (else its first), so a passage is weighed as a question written in its own words
 * would weigh it, not against every sense the search tried. A word neither the documents nor a
 * dictionary knew is left out: no passage can hold it, so it would sink every passage alike (the
 * answer's confidence pays for it once, in translationCertainty).
 */
export function judgedQuestion(retrieval: RetrievalQuestion, chunks: readonly RetrievedChunk[]): string {
  const translation = retrieval.translation;
  if (!translation) return retrieval.query;
  const held = new Set(chunks.slice(0, JUDGED_CHUNKS).flatMap((c) => analyze(c.text)));
  const read = translation.groups.filter((_, i) => !translation.unread[i]);
  return (read.length > 0 ? read : translation.groups)
    .map((alternatives) => alternatives.find((a) => analyze(a).every((t) => held.has(t))) ?? alternatives[0])
    .join(" ");
}

/** The chunks whose words choose among a translated word's senses (see judgedQuestion). */
const JUDGED_CHUNKS = 3;

/** Retrieval only, timed: the ranked chunks an answer would draw on. */
export async function searchResults(
  deps: SearchDeps,
  agent: AgentRecord,
  q: KnowledgeQuery,
): Promise<SearchResponse> {
  const started = performance.now();
  const chunks = await searchKnowledge(deps, agent, {
    ...q,
    query: (await retrievalQuestion(deps, q.query)).query,
  });
  return {
    results: chunks.map((chunk, i) => chunkCitation(chunk, i + 1, chunk.text)),
    retrievalTime: Math.round((performance.now() - started) * 10) / 10,
    mode: deps.index.effectiveMode(q.mode ?? agent.retrieval.mode),
  };
}
