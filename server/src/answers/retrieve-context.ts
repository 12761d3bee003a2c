import type { CorrectionFinder, CorrectionMatch } from "../corrections/corrections-service.ts";
import type { ChatMessage, ChatModel, RetrievedChunk } from "../generation/types.ts";
import type { AgentRecord } from "../store/records.ts";
import {
  judgedQuestion,
  type RetrievalQuestion,
  retrievalQuestion,
  type SearchDeps,
  searchKnowledge,
} from "./search-knowledge.ts";

/** Chunks retrieved for an answer at least, the answer reading the agent's `topK` of them. */
const MAY_HELP_POOL = 10;

export interface RetrieveDeps extends SearchDeps {
  /** The owner's corrections, matched before retrieval. */
  corrections: CorrectionFinder;
}

export interface ContextRequest {
  agent: AgentRecord;
  message: string;
  history: ChatMessage[];
  /** The sources to search, already checked against the agent. */
  sourceIds: string[];
  /** Condenses a follow-up into a standalone question. */
  model: Pick<ChatModel, "condense">;
  signal: AbortSignal;
}

/** The passages of the sources an answer is drawn from. */
export interface Passages {
  kind: "passages";
  /** The question standing alone (a follow-up condensed with its history). */
  standalone: string;
  /** The question as searched: translated into the documents' words where it had to be. */
  retrieval: RetrievalQuestion;
  /** The question the answer is judged on (see judgedQuestion). */
  judged: string;
  /** The agent's `topK` best chunks: what the answer reads and cites. */
  chunks: RetrievedChunk[];
  /** A wider pool, so an uncertain answer can list three articles that may help. */
  pool: RetrievedChunk[];
}

/** What an answer draws on: the owner's correction of the question, or passages of the sources. */
export type RetrievedContext = { kind: "correction"; match: CorrectionMatch } | Passages;

/** An owner's correction of a question that means the same, else the best passages for it. */
export async function retrieveContext(
  deps: RetrieveDeps,
  request: ContextRequest,
): Promise<RetrievedContext> {
  const { agent, history, signal } = request;
  const corrected = await deps.corrections.find(agent, request.message, signal);
  if (corrected) return { kind: "correction", match: corrected };
  const standalone =
    history.length > 0 ? await request.model.condense(request.message, history, signal) : request.message;
  // A question in another language than the documents' is searched, and judged, in their words.
  const retrieval = await retrievalQuestion(deps, standalone);
  const pool = await searchKnowledge(deps, agent, {
    query: retrieval.query,
    sourceIds: request.sourceIds,
    topK: Math.max(agent.retrieval.topK, MAY_HELP_POOL),
    signal,
  });
  const chunks = pool.slice(0, agent.retrieval.topK);
  return { kind: "passages", standalone, retrieval, judged: judgedQuestion(retrieval, chunks), chunks, pool };
}
