import { randomUUID } from "node:crypto";
import type { AnswerEvent } from "@lore/shared";
import { AppError } from "../errors.ts";
import type { ChatModel } from "../generation/types.ts";
import type { Store } from "../store/store.ts";
import { composeAnswer, composeCorrection, createSender, fallbackMessageFor } from "./compose-answer.ts";
import { decideOutcome } from "./decide-outcome.ts";
import { draftAnswer } from "./draft-answer.ts";
import {
  type ConversationRequest,
  openConversation,
  prepareConversation,
  resolveSources,
} from "./prepare-conversation.ts";
import { type RetrieveDeps, retrieveContext } from "./retrieve-context.ts";
import {
  type AnswerTurn,
  answerSummary,
  newReply,
  type StoreDeps,
  type StoreRequest,
  storeAnswer,
} from "./store-answer.ts";

export interface AnswerDeps extends RetrieveDeps, StoreDeps {
  store: Store;
  /** The chat model an agent's `model` names, answered by its workspace's model server. */
  modelFor: (model: string, workspaceId: string) => ChatModel;
}

export interface AnswerInput extends ConversationRequest, StoreRequest {
  dataSourceIds?: string[];
  signal: AbortSignal;
}

/**
 * Answers one question as a stream of events: start, token*, sources, then done or error.
 * Validation failures throw before `start`; anything after is reported as an `error` event.
 * The user's message is stored before generation, the answer (complete, stopped or failed) after.
 * Stages: prepare the conversation → retrieve → draft → decide the outcome → compose → store.
 */
export async function* answerQuestion(deps: AnswerDeps, input: AnswerInput): AsyncGenerator<AnswerEvent> {
  const started = performance.now();
  const at = new Date().toISOString();
  const { agent, signal } = input;
  const sourceIds = resolveSources(deps, agent, input.dataSourceIds);
  const opened = await openConversation(deps, input);
  const model = deps.modelFor(agent.model, agent.workspaceId);
  // Preparing the context (history, condensing, search) counts as retrieval, so the two timings add up to `latency`.
  const retrievalStart = performance.now();
  const prepared = await prepareConversation(deps, input, opened);
  const messageId = randomUUID();
  const turn: AnswerTurn = { agent, prepared, messageId, modelName: model.name, at, started, request: input };
  yield { type: "start", query_id: randomUUID(), conversationId: prepared.conversation.id, messageId };

  const reply = newReply();
  try {
    const { message } = input;
    const { history } = prepared;
    const context = await retrieveContext(deps, { agent, message, history, sourceIds, model, signal });
    reply.retrievalTime = performance.now() - retrievalStart;
    const generationStart = performance.now();
    if (context.kind === "correction") yield* composeCorrection(context.match, message, reply, signal);
    else {
      const passages = context;
      const fallbackMessage = fallbackMessageFor(agent, message);
      const sender = createSender(reply, passages.chunks.length);
      const asked = { agent, model, passages, fallbackMessage, signal };
      const draft = yield* draftAnswer({ ...asked, history }, sender.send);
      const decision = decideOutcome(deps, { ...asked, draft });
      yield* composeAnswer({ ...asked, message, draft, decision }, sender, reply);
    }
    reply.generationTime = performance.now() - generationStart;
    const status = signal.aborted ? "stopped" : "complete";
    const latency = await storeAnswer(deps, turn, reply, {
      status,
      answered: reply.outcome !== "fallback",
      error: null,
    });
    yield { type: "sources", sources: reply.sources };
    const retrievedChunks = context.kind === "passages" ? context.chunks.length : 0;
    yield { type: "done", ...answerSummary(turn, reply, latency, retrievedChunks) };
  } catch (error) {
    const aborted = signal.aborted;
    const errorCode = error instanceof AppError ? error.code : aborted ? "cancelled" : "internal_error";
    // The partial answer is kept: a stopped or failed answer is still part of the conversation.
    await storeAnswer(deps, turn, reply, {
      status: aborted ? "stopped" : "failed",
      answered: false,
      error: errorCode,
    });
    if (aborted) return;
    throw error;
  }
}
