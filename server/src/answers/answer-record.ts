/** What every answer leaves for analytics, whatever the channel. */
export interface AnsweredQuery {
  agentId: string;
  workspaceId: string;
  conversationId: string;
  messageId: string;
  /** ISO time the question arrived. */
  at: string;
  /** `console`: asked with an owner's session (the console's Try it); left out of analytics by default. */
  channel: "api" | "widget" | "console" | "openai" | "mcp";
  streamed: boolean;
  /** Visitor id, user id or API key id: distinct callers are counted from it. */
  callerId: string;
  question: string;
  newConversation: boolean;
  /** When the conversation began (ISO); absent on answers recorded before it was kept. */
  conversationAt?: string;
  /** The conversation's previous answer was the fallback (resolution looks at the last answer). */
  afterFallback?: boolean;
  /** False when the answer is the agent's fallback message. */
  answered: boolean;
  /** How sure the answer was; absent on answers recorded before outcomes existed. */
  outcome?: "answered" | "uncertain" | "fallback" | null;
  /** Error code when the answer failed. */
  error: string | null;
  latency: number;
  retrievalTime: number;
  generationTime: number;
  tokensUsed: number;
  cited: Array<{ documentId: string; title: string; dataSourceId: string }>;
}

export interface AnswerRecorder {
  /** Must not throw and must not block the answer. */
  record(query: AnsweredQuery): void;
}

export const noopRecorder: AnswerRecorder = { record() {} };
