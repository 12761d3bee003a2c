import type { AnswerEvent } from "@lore/shared";
import type { CorrectionMatch } from "../corrections/corrections-service.ts";
import { type Decision, withArticlesThatMayHelp } from "../generation/answer-outcome.ts";
import { buildSources, createCitationRenumberer } from "../generation/citations.ts";
import { splitIntoTokens } from "../generation/extractive-model.ts";
import type { ChatModel } from "../generation/types.ts";
import type { AgentRecord } from "../store/records.ts";
import { crossLanguageNotes, localizeFallback, localizeUncertain } from "../text/messages.ts";
import { countTokens } from "../text/tokens.ts";
import { type Draft, judgesFirst } from "./draft-answer.ts";
import type { Passages } from "./retrieve-context.ts";
import type { Reply } from "./store-answer.ts";

/** Sends an answer's text with its citations renumbered in order of appearance, keeping what was sent. */
export interface Sender {
  /** The text to send for a token (part of a marker may be held back), added to the reply. */
  send(token: string): string;
  /** Whatever was held back, at the end, added to the reply. */
  flush(): string;
}

export function createSender(reply: Reply, chunkCount: number): Sender {
  const renumber = createCitationRenumberer(chunkCount);
  return {
    send(token) {
      const text = renumber.push(token);
      // What the visitor has seen so far: stored as it is if the model fails before the end.
      reply.text += text;
      return text;
    },
    flush() {
      const tail = renumber.flush();
      reply.text += tail;
      return tail;
    },
  };
}

/** The agent's fallback message: the default one follows the visitor's language, a custom one is sent as written. */
export function fallbackMessageFor(
  agent: Pick<AgentRecord, "fallbackMessage" | "language">,
  question: string,
): string {
  return localizeFallback(agent.fallbackMessage, question, agent.language ?? null);
}

/**
 * The owner's correction as the answer, in word-sized tokens so it streams like a generated one:
 * as sure as an answer gets, and with no source card (the owner's words are the agent's answer).
 */
export async function* composeCorrection(
  match: CorrectionMatch,
  question: string,
  reply: Reply,
  signal: AbortSignal,
): AsyncGenerator<AnswerEvent> {
  reply.correctionId = match.correction.id;
  reply.outcome = "answered";
  reply.confidence = 1;
  for (const token of match.correction.answer.match(/\s*\S+/g) ?? []) {
    if (signal.aborted) break;
    reply.text += token;
    yield { type: "token", token };
  }
  countUsage(reply, { promptTokens: countTokens(question), completionTokens: countTokens(reply.text) });
}

export interface ComposeRequest {
  agent: Pick<AgentRecord, "language">;
  /** The visitor's question as asked. */
  message: string;
  model: Pick<ChatModel, "closestPassage">;
  passages: Passages;
  draft: Draft;
  decision: Decision;
  fallbackMessage: string;
  signal: AbortSignal;
}

/**
 * The answer as the visitor reads it, with its sources. The extractive answerer's passage is sent
 * now: as it is when sure, after a note when uncertain, the fallback message otherwise. A chat
 * model's answer is already out: an uncertain one gets the note after it.
 */
export async function* composeAnswer(
  request: ComposeRequest,
  sender: Sender,
  reply: Reply,
): AsyncGenerator<AnswerEvent> {
  const { decision, passages, signal } = request;
  const { translation } = passages.retrieval;
  reply.outcome = decision.outcome;
  reply.confidence = decision.confidence;
  const notice = localizeUncertain(request.message, request.agent.language ?? null);
  let offered = request.draft.raw;
  if (judgesFirst(request.model)) {
    // A passage quoted in another language than the question's says so first, in the visitor's.
    const quoted = translation
      ? `${crossLanguageNotes[translation.language]}\n\n${decision.passage}`
      : decision.passage;
    offered =
      decision.outcome === "fallback"
        ? request.fallbackMessage
        : decision.outcome === "uncertain"
          ? `${notice}\n\n${quoted}`
          : quoted;
    for (const token of splitIntoTokens(offered)) {
      if (signal.aborted) break;
      const text = sender.send(token);
      if (text) yield { type: "token", token: text };
    }
  } else if (decision.outcome === "uncertain" && !signal.aborted) {
    const note = `\n\n${notice}`;
    offered += note;
    const text = sender.send(note);
    if (text) yield { type: "token", token: text };
  }
  const tail = sender.flush();
  if (tail) yield { type: "token", token: tail };
  const isFallback = decision.outcome === "fallback";
  const built = buildSources(offered, passages.chunks, { isFallback, question: passages.judged });
  reply.text = built.answer;
  // An uncertain answer lists up to three articles that may help.
  reply.sources =
    decision.outcome === "uncertain" ? withArticlesThatMayHelp(built.sources, passages.pool) : built.sources;
  countUsage(
    reply,
    request.draft.usage ?? {
      promptTokens: countTokens(passages.standalone),
      completionTokens: countTokens(reply.text),
    },
  );
}

function countUsage(reply: Reply, usage: { promptTokens: number; completionTokens: number }): void {
  reply.promptTokens = usage.promptTokens;
  reply.completionTokens = usage.completionTokens;
  reply.tokensUsed = usage.promptTokens + usage.completionTokens;
}
