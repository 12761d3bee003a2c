import type { DocumentKind } from "@lore/shared";

/** A chunk as retrieval hands it to generation and citations. */
export interface RetrievedChunk {
  chunkId: string;
  documentId: string;
  dataSourceId: string;
  dataSourceName: string;
  kind: DocumentKind;
  title: string;
  sourceUrl: string | null;
  text: string;
  /** Relevance in 0..1, one meaning across retrieval modes. */
  score: number;
  page: number | null;
  headingPath: string[];
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface GenerateInput {
  question: string;
  /** Earlier turns of the conversation, oldest first, at most the last 10 messages. */
  history: ChatMessage[];
  /** Numbered sources: chunks[0] is [1]. */
  chunks: RetrievedChunk[];
  instructions: string;
  fallbackMessage: string;
  temperature: number;
  maxTokens: number;
  signal?: AbortSignal;
}

export type GenerationEvent =
  | { type: "token"; token: string }
  | { type: "usage"; promptTokens: number; completionTokens: number };

/** Any answerer: the extractive default or an OpenAI-compatible chat model. */
export interface ChatModel {
  /** Reported as QueryResponse.model. */
  readonly name: string;
  generate(input: GenerateInput): AsyncIterable<GenerationEvent>;
  /**
   * The answerer's best passage whatever its evidence, citing chunks [n]: offered under a doubt when
   * it would fall back. Only an answerer that composes its whole answer at once has it (the extractive
   * one); its answer is then judged before the first token is sent.
   */
  closestPassage?(question: string, chunks: RetrievedChunk[]): string;
  /** Rewrites a follow-up into a standalone question using the history. */
  condense(question: string, history: ChatMessage[], signal?: AbortSignal): Promise<string>;
  /**
   * `condense`, and the standalone question also written in the sources' `language` (an English
   * name, "English"), in one call: how a chat model's agent searches a question asked in another
   * language than its documents'. `translated` is null when the model gave none.
   */
  condenseAcross?(
    question: string,
    history: ChatMessage[],
    language: string,
    signal?: AbortSignal,
  ): Promise<{ standalone: string; translated: string | null }>;
}
