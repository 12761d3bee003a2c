import type { CorrectionFinder, CorrectionMatch } from "../corrections/corrections-service.ts";
import type { ChatMessage, ChatModel, RetrievedChunk } from "../generation/types.ts";
import type { AgentRecord } from "../store/records.ts";
import type { Language } from "../text/language.ts";
import {
  foreignLanguageOf,
  judgedQuestion,
  modelTranslatedQuestion,
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
  /** Condenses a follow-up into a standalone question (and, for a chat model, writes it in the documents' language). */
  model: Pick<ChatModel, "condense" | "condenseAcross">;
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
  /** A question in another language that a chat model wrote in the documents' (English) in its condense call. */
  modelTranslation: { visitorLanguage: Language; english: string } | null;
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
  // A question in another language than the documents' is searched, and judged, in their words: a
  // chat model writes it in theirs in its condense call (one call); otherwise the dictionaries do.
  const { model } = request;
  const visitorLanguage = model.condenseAcross ? foreignLanguageOf(deps, request.message) : null;
  let standalone = request.message;
  let modelTranslation: Passages["modelTranslation"] = null;
  if (visitorLanguage && model.condenseAcross) {
    const across = await model.condenseAcross(request.message, history, "English", signal);
    standalone = across.standalone;
    if (across.translated) modelTranslation = { visitorLanguage, english: across.translated };
  } else if (history.length > 0) standalone = await model.condense(request.message, history, signal);
  const retrieval = modelTranslation
    ? modelTranslatedQuestion(deps, modelTranslation.english, standalone)
    : await retrievalQuestion(deps, standalone);
  const pool = await searchKnowledge(deps, agent, {
    query: retrieval.query,
    sourceIds: request.sourceIds,
    topK: Math.max(agent.retrieval.topK, MAY_HELP_POOL),
    signal,
  });
  const chunks = pool.slice(0, agent.retrieval.topK);
  const judged = judgedQuestion(retrieval, chunks);
  return { kind: "passages", standalone, retrieval, judged, modelTranslation, chunks, pool };
}
