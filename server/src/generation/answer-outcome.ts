/**
 * What an answer becomes once judged (docs/api.md, "Outcomes"): the stated answer (`answered`), the
 * closest passage under a note that the agent is not sure, with up to three articles that may help
 * (`uncertain`), or the agent's fallback message with no sources (`fallback`).
 */
import type { AnswerOutcome, AnswerPolicy, Citation } from "@lore/shared";
import { chunkCitation, firstLines, snippetAround } from "./citations.ts";
import { judge, outcomeFor } from "./confidence.ts";
import type { ConfidenceFeatures } from "./confidence-features.ts";
import type { RetrievedChunk } from "./types.ts";

/** Most distinct articles an uncertain answer lists. */
export const UNCERTAIN_ARTICLES = 3;

export interface DecideInput {
  question: string;
  chunks: RetrievedChunk[];
  /** The answerer's text, citing chunks by prompt number [n]. */
  raw: string;
  fallbackMessage: string;
  policy: AnswerPolicy;
  /** Of the question's terms, how many the knowledge base never mentions. */
  vocabulary: { terms: number; unknown: number };
  /**
   * The extractive answerer's best passage whatever its evidence (used when it fell back); absent
   * for a chat model, whose refusal is final.
   */
  closestPassage?: (question: string, chunks: RetrievedChunk[]) => string;
}

export interface Decision {
  outcome: AnswerOutcome;
  confidence: number;
  /** What is offered (prompt-numbered markers): the answer, the closest passage, or the fallback message. */
  passage: string;
  /** The chat model said it cannot answer from the sources. */
  declined: boolean;
  features: ConfidenceFeatures | null;
}

// A chat model saying the sources don't hold the answer, in its own words.
const DECLINE =
  /\b(?:i (?:could ?n[o’']t|can ?n[o’']t|cannot|was unable to|am unable to|do ?n[o’']t|did ?n[o’']t) (?:find|see|locate|answer|know)|(?:the )?(?:provided )?(?:sources?|documents?|context|knowledge base|articles?) (?:do(?:es)? ?n[o’']t|do not|does not|did not) (?:say|mention|contain|cover|include|provide|specify)|(?:there is|i have) no (?:information|mention|details?) (?:about|of|on|regarding))/i;
// Hedges in a chat model's answer: its own statement that it is not sure.
const HEDGE = /\b(?:not sure|unclear|it (?:seems|appears)|might|possibly|i (?:think|believe))\b/i;
const HEDGE_FACTOR = 0.8;
const MARKER = /\[\s*\d+/;

export function decideAnswer(input: DecideInput): Decision {
  const { chunks, raw, fallbackMessage } = input;
  const fallback = (confidence: number, declined: boolean): Decision => ({
    outcome: "fallback",
    confidence,
    passage: fallbackMessage,
    declined,
    features: null,
  });
  if (chunks.length === 0) return fallback(0, false);
  const declined =
    raw.trim() === fallbackMessage.trim() || raw.trim() === "" || (!MARKER.test(raw) && DECLINE.test(raw));
  let passage = raw;
  if (declined) {
    const closest = input.closestPassage?.(input.question, chunks) ?? "";
    if (closest.trim() === "" || closest.trim() === fallbackMessage.trim()) {
      if (!input.closestPassage || input.policy !== "always") return fallback(0, declined);
      // `always`: the top chunk's best part stands in for a passage.
      passage = `${snippetAround(chunks[0]?.text ?? "", input.question, 300)} [1]`;
    } else passage = closest;
  }
  const { confidence: judged, features } = judge({
    question: input.question,
    chunks,
    passage,
    fellBack: declined,
    vocabulary: input.vocabulary,
  });
  let confidence = judged;
  if (!input.closestPassage && HEDGE.test(raw))
    confidence = Math.round(confidence * HEDGE_FACTOR * 1000) / 1000;
  // A chat model that declines is the fallback whatever the policy: it read the sources and said no.
  if (declined && !input.closestPassage) return { ...fallback(confidence, true), features };
  let outcome = outcomeFor(confidence, input.policy);
  // A chat model's answer has been streamed by now: too late to take back, so it keeps its doubt.
  if (outcome === "fallback" && !input.closestPassage) outcome = "uncertain";
  if (outcome === "fallback") return { ...fallback(confidence, declined), features };
  return { outcome, confidence, passage, declined, features };
}

/**
 * An uncertain answer's sources: the ones it cites, then the best section of each further article
 * with its first lines, until UNCERTAIN_ARTICLES distinct articles are listed (ranks continue after
 * the cited ones).
 */
export function withArticlesThatMayHelp(sources: Citation[], chunks: readonly RetrievedChunk[]): Citation[] {
  const out = [...sources];
  const documents = new Set(out.map((s) => s.documentId));
  for (const chunk of chunks) {
    if (documents.size >= UNCERTAIN_ARTICLES) break;
    if (documents.has(chunk.documentId)) continue;
    documents.add(chunk.documentId);
    out.push(chunkCitation(chunk, out.length + 1, firstLines(chunk), Math.min(1, Math.max(0, chunk.score))));
  }
  return out;
}
