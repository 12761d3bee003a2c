import type { SuggestedQuestionCheck } from "@lore/shared";
import { type AnswerDeps, answerQuestion } from "../answers/answer-question.ts";
import { collectResponse } from "../answers/collect-response.ts";
import type { AgentRecord } from "../store/records.ts";

/**
 * Below this best-source score an answer is flagged weak: scores estimate the probability that the
 * source holds the answer (retrieval/calibration.ts), so under one in two it is more likely a guess.
 */
export const WEAK_SCORE = 0.5;

/**
 * Runs each of an agent's suggested questions through the answer path, one after another, storing
 * nothing (no conversation, no analytics): what a visitor clicking them would be told.
 */
export async function checkSuggestedQuestions(
  deps: AnswerDeps,
  agent: AgentRecord,
  signal: AbortSignal,
): Promise<SuggestedQuestionCheck[]> {
  const results: SuggestedQuestionCheck[] = [];
  for (const question of agent.suggestedQuestions) {
    const stored: {
      fallback: boolean;
      outcome: SuggestedQuestionCheck["outcome"];
      confidence: number | null;
      corrected: boolean;
    } = { fallback: false, outcome: null, confidence: null, corrected: false };
    const result = await collectResponse(
      answerQuestion(deps, {
        agent,
        message: question,
        channel: "api",
        streamed: false,
        callerId: "suggested-questions-check",
        history: [],
        ephemeral: true,
        onAnswer: (message) => {
          stored.fallback = message.fallback;
          stored.outcome = message.outcome ?? null;
          stored.confidence = message.confidence ?? null;
          stored.corrected = message.correctionId !== null;
        },
        signal,
      }),
    );
    const { outcome, confidence } = stored;
    const fallback = outcome ? outcome === "fallback" : stored.fallback;
    // An owner's correction cites no source: it is the agent's own answer, as sure as one gets.
    const score = stored.corrected ? 1 : Math.max(0, ...result.sources.map((s) => s.score));
    results.push({
      question,
      response: result.response,
      fallback,
      score,
      // The answer contract's own judgement when there is one: an answer it states is never weak.
      weak: outcome ? outcome === "uncertain" : !fallback && score < WEAK_SCORE,
      outcome,
      confidence,
      sources: result.sources,
      correctionId: result.correctionId,
    });
  }
  return results;
}
