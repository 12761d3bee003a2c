import type { AnswerEvent } from "@lore/shared";
import type { ChatMessage, ChatModel } from "../generation/types.ts";
import type { AgentRecord } from "../store/records.ts";
import { crossLanguageInstruction } from "../text/translate/translate-question.ts";
import type { Passages } from "./retrieve-context.ts";

/** The answerer's text, citing chunks by prompt number [n], and the model's token counts if it gave them. */
export interface Draft {
  raw: string;
  usage: { promptTokens: number; completionTokens: number } | null;
}

export interface DraftRequest {
  agent: AgentRecord;
  model: ChatModel;
  passages: Passages;
  history: ChatMessage[];
  fallbackMessage: string;
  signal: AbortSignal;
}

/**
 * Whether the answerer composes its whole answer at once (the extractive one): it is then judged
 * before anything is sent. A chat model streams, and its answer is judged at the end.
 */
export function judgesFirst(model: Pick<ChatModel, "closestPassage">): boolean {
  return model.closestPassage !== undefined;
}

/**
 * The answerer's draft from the passages. A chat model's tokens go out as they come, through `send`
 * (which renumbers citations and keeps what was sent); the extractive answerer's are held back.
 */
export async function* draftAnswer(
  request: DraftRequest,
  send: (token: string) => string,
): AsyncGenerator<AnswerEvent, Draft> {
  const { agent, model, passages } = request;
  const judgedFirst = judgesFirst(model);
  const { translation } = passages.retrieval;
  let raw = "";
  let usage: Draft["usage"] = null;
  for await (const event of model.generate({
    // The extractive answerer matches passages by words; a chat model reads the visitor's own.
    question: judgedFirst ? passages.judged : passages.standalone,
    history: request.history,
    chunks: passages.chunks,
    // A chat model reads the visitor's question and the English sources: it is told so, and how it was searched.
    instructions: judgedFirst
      ? agent.instructions
      : passages.modelTranslation
        ? `${agent.instructions}\n\n${crossLanguageInstruction(passages.modelTranslation.visitorLanguage, passages.modelTranslation.english)}`.trim()
        : translation
          ? `${agent.instructions}\n\n${crossLanguageInstruction(translation.language, passages.judged)}`.trim()
          : agent.instructions,
    fallbackMessage: request.fallbackMessage,
    temperature: agent.temperature,
    maxTokens: agent.maxTokens,
    signal: request.signal,
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
  return { raw, usage };
}
