import { randomUUID } from "node:crypto";
import type { AnswerEvent, AnswerOutcome, Citation, DeviceClass, QueryResponse } from "@lore/shared";
import type { AgentsService } from "../agents/agents-service.ts";
import type { ConversationsService } from "../conversations/conversations-service.ts";
import type { CorrectionFinder, CorrectionMatch } from "../corrections/corrections-service.ts";
import { AppError } from "../errors.ts";
import { decideAnswer, withArticlesThatMayHelp } from "../generation/answer-outcome.ts";
import { buildSources, createCitationRenumberer } from "../generation/citations.ts";
import { outcomeFor } from "../generation/confidence.ts";
import { splitIntoTokens } from "../generation/extractive-model.ts";
import { HISTORY_WINDOW } from "../generation/prompt.ts";
import type { ChatMessage, ChatModel, RetrievedChunk } from "../generation/types.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import type { AgentRecord, ConversationRecord, MessageRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { crossLanguageNotes, localizeFallback, localizeUncertain } from "../text/messages.ts";
import { countTokens } from "../text/tokens.ts";
import type { QueryTranslator } from "../text/translate/query-translator.ts";
import { crossLanguageInstruction, translationCertainty } from "../text/translate/translate-question.ts";
import type { AnsweredQuery, AnswerRecorder } from "./answer-record.ts";
import { judgedQuestion, retrievalQuestion, searchKnowledge } from "./search-knowledge.ts";

/** Chunks retrieved for an answer at least, the answer reading the agent's `topK` of them. */
const MAY_HELP_POOL = 10;

export interface AnswerDeps {
  store: Store;
  index: ChunkIndex;
  agents: AgentsService;
  conversations: ConversationsService;
  /** The owner's corrections, matched before retrieval. */
  corrections: CorrectionFinder;
  recorder: AnswerRecorder;
  /** The chat model for an agent's `model` setting. */
  /** The chat model an agent's `model` names, answered by its workspace's model server. */
  modelFor: (model: string, workspaceId: string) => ChatModel;
  /** Questions in another language than the documents', translated for retrieval (issue #53). */
  translator?: QueryTranslator;
}

export interface AnswerInput {
  agent: AgentRecord;
  message: string;
  conversationId?: string;
  dataSourceIds?: string[];
  channel: AnsweredQuery["channel"];
  streamed: boolean;
  /** The widget's page and device class, recorded on a new conversation. */
  pageUrl?: string;
  device?: DeviceClass;
  callerId: string;
  /** Widget conversations belong to one visitor. */
  visitorId?: string | null;
  /** History supplied by the caller (chat completions) instead of a stored conversation. */
  history?: ChatMessage[];
  /** A trial run (checking suggested questions): nothing is stored and analytics records nothing. */
  ephemeral?: boolean;
  /** Given the finished answer as it is (or would be) stored. */
  onAnswer?: (message: MessageRecord) => void;
  signal: AbortSignal;
}

/** Checks a question can be answered now: sources attached and ready (503 with Retry-After otherwise). */
export function resolveSources(
  deps: Pick<AnswerDeps, "store" | "agents">,
  agent: AgentRecord,
  requested?: string[],
): string[] {
  if (requested) {
    const unknown = requested.filter((id) => !agent.dataSourceIds.includes(id));
    if (unknown.length > 0) {
      throw new AppError("validation_error", "Some data sources are not attached to this agent", {
        fields: { dataSourceIds: unknown.map((id) => `not attached: ${id}`) },
      });
    }
  }
  const wanted = requested ?? agent.dataSourceIds;
  const live = wanted.filter((id) => {
    const s = deps.store.dataSources.get(id);
    return s !== undefined && s.deletedAt === null;
  });
  const notReady = live.filter((id) => !deps.store.dataSources.get(id)?.everReady);
  if (notReady.length > 0) {
    throw new AppError(
      "agent_processing",
      "The agent is still processing its data sources; retry shortly",
      { agentId: agent.id, dataSourceIds: notReady },
      { "Retry-After": "5" },
    );
  }
  return live;
}

/**
 * Answers one question as a stream of events: start, token*, sources, then done or error.
 * Validation failures throw before `start`; anything after is reported as an `error` event.
 * The user's message is stored before generation, the answer (complete, stopped or failed) after.
 */
export async function* answerQuestion(deps: AnswerDeps, input: AnswerInput): AsyncGenerator<AnswerEvent> {
  const started = performance.now();
  const at = new Date().toISOString();
  const { agent } = input;
  const sourceIds = resolveSources(deps, agent, input.dataSourceIds);
  let conversation: ConversationRecord;
  let newConversation = false;
  if (input.conversationId) {
    conversation = await deps.conversations.load(agent.id, input.conversationId);
    // A widget conversation is its visitor's token's alone, an API one no visitor's: otherwise it
    // is not the caller's to continue, answered as an unknown one (issue #34).
    // A console conversation is continued only from the console (issue #49: an API key posted into
    // the owner's Try it conversation, its questions then absent from the review list).
    const consoleOnly = conversation.channel === "console" && input.channel !== "console";
    if (consoleOnly || conversation.visitorId !== (input.visitorId ?? null)) {
      throw new AppError("not_found", "conversation not found", {
        resource: "conversation",
        id: input.conversationId,
      });
    }
  } else {
    newConversation = true;
    const fields = {
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      title: input.message,
      channel: conversationChannel(input.channel),
      visitorId: input.visitorId ?? null,
      pageUrl: input.pageUrl ?? null,
      device: input.device ?? null,
    };
    conversation = input.ephemeral ? unsavedConversation(fields) : deps.conversations.create(fields);
  }

  const model = deps.modelFor(agent.model, agent.workspaceId);
  // Preparing the context (history, condensing, search) counts as retrieval, so the two timings add up to `latency`.
  const retrievalStart = performance.now();
  const history: ChatMessage[] =
    input.history ??
    (await deps.conversations.messages(conversation.id))
      .filter((m) => m.content.length > 0)
      .slice(-HISTORY_WINDOW)
      .map((m) => ({ role: m.role, content: m.content }));
  const userMessage = messageRecord(agent, conversation.id, "user", input.message);
  // Made durable while retrieval and generation run; awaited before the answer is stored.
  const created = conversation;
  const userStored = (async () => {
    if (input.ephemeral) return;
    if (newConversation) await deps.conversations.save(created);
    await deps.conversations.append(userMessage);
  })();
  userStored.catch(() => undefined);

  const messageId = randomUUID();
  yield { type: "start", query_id: randomUUID(), conversationId: conversation.id, messageId };

  let answer = "";
  let retrievalTime = 0;
  let generationTime = 0;
  let tokensUsed = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let sources: Citation[] = [];
  let correctionId: string | null = null;
  let outcome: AnswerOutcome = "fallback";
  let confidence = 0;
  let status: MessageRecord["status"] = "complete";
  // Stores the assistant message (after the user's) and records the answer for analytics.
  const storeAnswer = async (final: MessageRecord["status"], answered: boolean, error: string | null) => {
    const latency = Math.round(performance.now() - started);
    await userStored;
    const message: MessageRecord = {
      ...messageRecord(agent, conversation.id, "assistant", answer, messageId),
      sources,
      model: model.name,
      latency,
      tokensUsed,
      retrievalTime: round(retrievalTime),
      generationTime: round(generationTime),
      status: final,
      // Only a complete answer can be the fallback: a stopped or failed one was cut short.
      fallback: final === "complete" && !answered,
      // A stopped or failed answer was never judged: its outcome is unknown.
      outcome: final === "complete" ? outcome : null,
      confidence: final === "complete" ? confidence : null,
      correctionId,
    };
    input.onAnswer?.(message);
    if (input.ephemeral) return latency;
    await deps.conversations.append(message);
    record(deps, input, {
      conversation,
      messageId,
      at,
      newConversation,
      answered,
      error,
      outcome: message.outcome ?? null,
      latency,
      retrievalTime,
      generationTime,
      tokensUsed,
      sources,
    });
    return latency;
  };
  // The `done` event's fields once the answer is stored.
  const finished = (latency: number, retrievedChunks: number): Omit<QueryResponse, "response"> => ({
    conversationId: conversation.id,
    messageId,
    outcome,
    confidence,
    sources,
    correctionId,
    latency,
    model: model.name,
    retrievedChunks,
    metadata: {
      tokensUsed,
      promptTokens,
      completionTokens,
      retrievalTime: round(retrievalTime),
      generationTime: round(generationTime),
    },
  });
  let chunks: RetrievedChunk[] = [];
  try {
    // An owner's correction of a question that means the same comes before any search.
    const corrected = await deps.corrections.find(agent, input.message, input.signal);
    if (corrected) {
      retrievalTime = performance.now() - retrievalStart;
      const generationStart = performance.now();
      // The owner's words are the agent's answer: no source card named after the corrections list.
      correctionId = corrected.correction.id;
      // The owner wrote this answer: as sure as an answer gets.
      outcome = "answered";
      confidence = 1;
      for (const token of correctionTokens(corrected)) {
        if (input.signal.aborted) break;
        answer += token;
        yield { type: "token", token };
      }
      if (input.signal.aborted) status = "stopped";
      promptTokens = countTokens(input.message);
      completionTokens = countTokens(answer);
      tokensUsed = promptTokens + completionTokens;
      generationTime = performance.now() - generationStart;
      const latency = await storeAnswer(status, true, null);
      yield { type: "sources", sources };
      yield { type: "done", ...finished(latency, 0) };
      return;
    }
    const standalone =
      history.length > 0 ? await model.condense(input.message, history, input.signal) : input.message;
    // A question in another language than the documents' is searched, and judged, in their words.
    const retrieval = await retrievalQuestion(deps, standalone);
    // A wider pool than the answer reads, so an uncertain answer can list three articles that may help.
    const pool = await searchKnowledge(deps, agent, {
      query: retrieval.query,
      sourceIds,
      topK: Math.max(agent.retrieval.topK, MAY_HELP_POOL),
      signal: input.signal,
    });
    chunks = pool.slice(0, agent.retrieval.topK);
    const judged = judgedQuestion(retrieval, chunks);
    retrievalTime = performance.now() - retrievalStart;

    const generationStart = performance.now();
    // The default fallback follows the visitor's language; a custom one is sent as written.
    const fallbackMessage = localizeFallback(agent.fallbackMessage, input.message, agent.language ?? null);
    const notice = localizeUncertain(input.message, agent.language ?? null);
    const renumber = createCitationRenumberer(chunks.length);
    let raw = "";
    let usage: { promptTokens: number; completionTokens: number } | null = null;
    // An answerer that composes its answer at once (the extractive one) is judged before anything is
    // sent; a chat model streams, and its answer is judged at the end.
    const judgedFirst = model.closestPassage !== undefined;
    const send = (token: string): string => {
      const text = renumber.push(token);
      // What the visitor has seen so far: stored as it is if the model fails before the end.
      answer += text;
      return text;
    };
    for await (const event of model.generate({
      // The extractive answerer matches passages by words; a chat model reads the visitor's own.
      question: judgedFirst ? judged : standalone,
      history,
      chunks,
      // A chat model reads the visitor's question and the English sources: it is told so, and how it was searched.
      instructions:
        retrieval.translation && !judgedFirst
          ? `${agent.instructions}\n\n${crossLanguageInstruction(retrieval.translation, judged)}`.trim()
          : agent.instructions,
      fallbackMessage,
      temperature: agent.temperature,
      maxTokens: agent.maxTokens,
      signal: input.signal,
    })) {
      if (event.type === "usage") {
        usage = event;
        continue;
      }
      raw += event.token;
      if (judgedFirst) continue;
      const text = send(event.token);
      if (text) yield { type: "token", token: text };
    }
    const decision = decideAnswer({
      question: judged,
      chunks,
      raw,
      fallbackMessage,
      policy: agent.answerPolicy ?? "balanced",
      vocabulary: deps.index.unknownTerms(judged),
      closestPassage: model.closestPassage,
    });
    outcome = decision.outcome;
    confidence = decision.confidence;
    if (retrieval.translation && outcome !== "fallback") {
      // Key words no dictionary knew: the answer may miss just what they asked.
      confidence = Math.round(confidence * translationCertainty(retrieval.translation) * 1000) / 1000;
      const judgedAgain = outcomeFor(confidence, agent.answerPolicy ?? "balanced");
      // A chat model's answer is already out: it keeps its doubt rather than becoming the fallback.
      outcome = judgedAgain === "fallback" && !judgedFirst ? "uncertain" : judgedAgain;
    }
    let offered = raw;
    if (judgedFirst) {
      // A passage quoted in another language than the question's says so first, in the visitor's.
      const quoted = retrieval.translation
        ? `${crossLanguageNotes[retrieval.translation.language]}\n\n${decision.passage}`
        : decision.passage;
      offered =
        outcome === "fallback"
          ? fallbackMessage
          : outcome === "uncertain"
            ? `${notice}\n\n${quoted}`
            : quoted;
      for (const token of splitIntoTokens(offered)) {
        if (input.signal.aborted) break;
        const text = send(token);
        if (text) yield { type: "token", token: text };
      }
    } else if (outcome === "uncertain" && !input.signal.aborted) {
      // The model's answer is already out: the doubt follows it.
      const note = `\n\n${notice}`;
      offered += note;
      const text = send(note);
      if (text) yield { type: "token", token: text };
    }
    const tail = renumber.flush();
    answer += tail;
    if (tail) yield { type: "token", token: tail };
    if (input.signal.aborted) status = "stopped";
    const isFallback = outcome === "fallback";
    const built = buildSources(offered, chunks, { isFallback, question: judged });
    answer = built.answer;
    sources = outcome === "uncertain" ? withArticlesThatMayHelp(built.sources, pool, judged) : built.sources;
    promptTokens = usage ? usage.promptTokens : countTokens(standalone);
    completionTokens = usage ? usage.completionTokens : countTokens(answer);
    tokensUsed = promptTokens + completionTokens;
    generationTime = performance.now() - generationStart;
    const latency = await storeAnswer(status, !isFallback, null);
    yield { type: "sources", sources };
    yield { type: "done", ...finished(latency, chunks.length) };
  } catch (error) {
    const aborted = input.signal.aborted;
    const errorCode = error instanceof AppError ? error.code : aborted ? "cancelled" : "internal_error";
    // The partial answer is kept: a stopped or failed answer is still part of the conversation.
    await storeAnswer(aborted ? "stopped" : "failed", false, errorCode);
    if (aborted) return;
    throw error;
  }
}

/** A new stored message: complete, unrated, not a fallback, with no sources or timings yet. */
export function messageRecord(
  agent: Pick<AgentRecord, "id" | "workspaceId">,
  conversationId: string,
  role: "user" | "assistant",
  content: string,
  id: string = randomUUID(),
): MessageRecord {
  return {
    id,
    conversationId,
    agentId: agent.id,
    workspaceId: agent.workspaceId,
    role,
    content,
    sources: [],
    model: null,
    latency: null,
    tokensUsed: null,
    retrievalTime: null,
    generationTime: null,
    status: "complete",
    feedback: null,
    feedbackComment: null,
    feedbackReason: null,
    fallback: false,
    outcome: null,
    confidence: null,
    correctionId: null,
    createdAt: new Date().toISOString(),
  };
}

/** A conversation that is never stored (a trial run's). */
function unsavedConversation(
  fields: Pick<
    ConversationRecord,
    "agentId" | "workspaceId" | "title" | "channel" | "visitorId" | "pageUrl" | "device"
  >,
): ConversationRecord {
  const now = new Date().toISOString();
  return { id: randomUUID(), ...fields, messageCount: 0, createdAt: now, updatedAt: now };
}

/** A conversation's channel: chat completions and MCP are API traffic. */
function conversationChannel(channel: AnswerInput["channel"]): ConversationRecord["channel"] {
  return channel === "widget" || channel === "console" ? channel : "api";
}

/** A correction's answer in word-sized tokens, so it streams like a generated one. */
function correctionTokens(match: CorrectionMatch): string[] {
  return match.correction.answer.match(/\s*\S+/g) ?? [];
}

function record(
  deps: AnswerDeps,
  input: AnswerInput,
  r: Pick<
    AnsweredQuery,
    | "messageId"
    | "at"
    | "newConversation"
    | "answered"
    | "error"
    | "outcome"
    | "latency"
    | "retrievalTime"
    | "generationTime"
    | "tokensUsed"
  > & { conversation: ConversationRecord; sources: Citation[] },
): void {
  deps.recorder.record({
    agentId: input.agent.id,
    workspaceId: input.agent.workspaceId,
    conversationId: r.conversation.id,
    messageId: r.messageId,
    at: r.at,
    channel: input.channel,
    streamed: input.streamed,
    callerId: input.callerId,
    question: input.message,
    newConversation: r.newConversation,
    answered: r.answered,
    error: r.error,
    outcome: r.outcome,
    latency: r.latency,
    retrievalTime: round(r.retrievalTime),
    generationTime: round(r.generationTime),
    tokensUsed: r.tokensUsed,
    cited: r.sources.map((s) => ({
      documentId: s.documentId,
      title: s.title,
      dataSourceId: s.dataSourceId ?? "",
    })),
  });
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
