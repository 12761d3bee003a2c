import type { AnswerOutcome, Citation, QueryResponse } from "@lore/shared";
import type { ConversationsService } from "../conversations/conversations-service.ts";
import type { AnsweredQuery, EventBus } from "../events/event-bus.ts";
import type { AgentRecord, MessageRecord } from "../store/records.ts";
import { detectLanguage } from "../text/language.ts";
import { messageRecord, type PreparedConversation } from "./prepare-conversation.ts";

/** The assistant's answer as it is built: stored as it stands whether it completes, stops or fails. */
export interface Reply {
  /** What the visitor has seen so far (the whole answer once composed). */
  text: string;
  sources: Citation[];
  outcome: AnswerOutcome;
  confidence: number;
  correctionId: string | null;
  /** Milliseconds, unrounded. */
  retrievalTime: number;
  generationTime: number;
  promptTokens: number;
  completionTokens: number;
  tokensUsed: number;
}

/** An answer not begun: empty, the fallback until judged otherwise. */
export function newReply(): Reply {
  return {
    text: "",
    sources: [],
    outcome: "fallback",
    confidence: 0,
    correctionId: null,
    retrievalTime: 0,
    generationTime: 0,
    promptTokens: 0,
    completionTokens: 0,
    tokensUsed: 0,
  };
}

/** What the question's request says about storing its answer. */
export interface StoreRequest {
  message: string;
  channel: AnsweredQuery["channel"];
  streamed: boolean;
  callerId: string;
  /** A trial run: nothing is stored and analytics records nothing. */
  ephemeral?: boolean;
  /** Given the finished answer as it is (or would be) stored. */
  onAnswer?: (message: MessageRecord) => void;
}

/** One question being answered: what its answer is stored and counted under. */
export interface AnswerTurn {
  agent: AgentRecord;
  prepared: PreparedConversation;
  messageId: string;
  modelName: string;
  /** ISO time the question arrived. */
  at: string;
  /** `performance.now()` when the question arrived: the answer's latency counts from it. */
  started: number;
  request: StoreRequest;
}

/** How an answer ended: stopped or failed ones were cut short; `answered` is false for the fallback. */
export interface AnswerEnding {
  status: MessageRecord["status"];
  answered: boolean;
  /** The error code of a failed (or cancelled) answer. */
  error: string | null;
}

export interface StoreDeps {
  conversations: ConversationsService;
  /** Told of every stored answer (`question.answered`): analytics listens. */
  events: EventBus;
}

/**
 * Stores the assistant message (after the user's) and announces it on the event bus; returns the
 * answer's latency. A trial run's answer is only handed to `onAnswer`.
 */
export async function storeAnswer(
  deps: StoreDeps,
  turn: AnswerTurn,
  reply: Reply,
  ending: AnswerEnding,
): Promise<number> {
  const latency = Math.round(performance.now() - turn.started);
  await turn.prepared.userStored;
  const message = assistantMessage(turn, reply, ending, latency);
  turn.request.onAnswer?.(message);
  if (turn.request.ephemeral) return latency;
  await deps.conversations.append(message);
  deps.events.emit({
    type: "question.answered",
    workspaceId: turn.agent.workspaceId,
    query: answeredQuery(turn, reply, ending, message.outcome ?? null, latency),
  });
  return latency;
}

/** The `done` event's fields once the answer is stored. */
export function answerSummary(
  turn: AnswerTurn,
  reply: Reply,
  latency: number,
  retrievedChunks: number,
): Omit<QueryResponse, "response"> {
  return {
    conversationId: turn.prepared.conversation.id,
    messageId: turn.messageId,
    outcome: reply.outcome,
    confidence: reply.confidence,
    sources: reply.sources,
    correctionId: reply.correctionId,
    latency,
    model: turn.modelName,
    retrievedChunks,
    // The question's language is detected (and cached) by the search already.
    language: turn.agent.language ?? detectLanguage(turn.request.message),
    metadata: {
      tokensUsed: reply.tokensUsed,
      promptTokens: reply.promptTokens,
      completionTokens: reply.completionTokens,
      retrievalTime: round(reply.retrievalTime),
      generationTime: round(reply.generationTime),
    },
  };
}

function assistantMessage(
  turn: AnswerTurn,
  reply: Reply,
  ending: AnswerEnding,
  latency: number,
): MessageRecord {
  const complete = ending.status === "complete";
  return {
    ...messageRecord(turn.agent, turn.prepared.conversation.id, "assistant", reply.text, turn.messageId),
    sources: reply.sources,
    model: turn.modelName,
    latency,
    tokensUsed: reply.tokensUsed,
    retrievalTime: round(reply.retrievalTime),
    generationTime: round(reply.generationTime),
    status: ending.status,
    // Only a complete answer can be the fallback: a stopped or failed one was cut short.
    fallback: complete && !ending.answered,
    // A stopped or failed answer was never judged: its outcome is unknown.
    outcome: complete ? reply.outcome : null,
    confidence: complete ? reply.confidence : null,
    correctionId: reply.correctionId,
  };
}

function answeredQuery(
  turn: AnswerTurn,
  reply: Reply,
  ending: AnswerEnding,
  outcome: AnsweredQuery["outcome"],
  latency: number,
): AnsweredQuery {
  const { agent, request } = turn;
  return {
    agentId: agent.id,
    workspaceId: agent.workspaceId,
    conversationId: turn.prepared.conversation.id,
    messageId: turn.messageId,
    at: turn.at,
    channel: request.channel,
    streamed: request.streamed,
    callerId: request.callerId,
    question: request.message,
    newConversation: turn.prepared.newConversation,
    conversationAt: turn.prepared.conversation.createdAt,
    afterFallback: turn.prepared.afterFallback,
    answered: ending.answered,
    error: ending.error,
    outcome,
    latency,
    retrievalTime: round(reply.retrievalTime),
    generationTime: round(reply.generationTime),
    tokensUsed: reply.tokensUsed,
    cited: reply.sources.map((s) => ({
      documentId: s.documentId,
      title: s.title,
      dataSourceId: s.dataSourceId ?? "",
    })),
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
