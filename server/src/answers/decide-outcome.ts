import { type Decision, decideAnswer } from "../generation/answer-outcome.ts";
import { outcomeFor } from "../generation/confidence.ts";
import type { ChatModel } from "../generation/types.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import type { AgentRecord } from "../store/records.ts";
import { translationCertainty } from "../text/translate/translate-question.ts";
import { type Draft, judgesFirst } from "./draft-answer.ts";
import type { Passages } from "./retrieve-context.ts";

export interface OutcomeRequest {
  agent: Pick<AgentRecord, "answerPolicy">;
  model: Pick<ChatModel, "closestPassage">;
  passages: Passages;
  draft: Draft;
  fallbackMessage: string;
}

/**
 * How sure the answer is (answered, uncertain or the fallback) and what it offers. A question
 * searched in translation is less sure by the words no dictionary knew; a chat model's answer,
 * already sent, keeps its doubt rather than becoming the fallback.
 */
export function decideOutcome(
  deps: { index: Pick<ChunkIndex, "unknownTerms"> },
  request: OutcomeRequest,
): Decision {
  const { passages, model } = request;
  const policy = request.agent.answerPolicy ?? "balanced";
  const decision = decideAnswer({
    question: passages.judged,
    chunks: passages.chunks,
    raw: request.draft.raw,
    fallbackMessage: request.fallbackMessage,
    policy,
    vocabulary: deps.index.unknownTerms(passages.judged),
    closestPassage: model.closestPassage,
  });
  const { translation } = passages.retrieval;
  if (!translation || decision.outcome === "fallback") return decision;
  // Key words no dictionary knew: the answer may miss just what they asked.
  const confidence = Math.round(decision.confidence * translationCertainty(translation) * 1000) / 1000;
  const judgedAgain = outcomeFor(confidence, policy);
  const outcome = judgedAgain === "fallback" && !judgesFirst(model) ? "uncertain" : judgedAgain;
  return { ...decision, outcome, confidence };
}
