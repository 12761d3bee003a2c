import type { FeedbackReason, Handoff } from "@lore/shared";

/** Domain events other parts react to (webhooks, analytics); delivery is the listener's job. */
export type DomainEvent =
  | {
      /** An answer was stored (complete, stopped or failed); analytics counts it. Trial runs send none. */
      type: "question.answered";
      workspaceId: string;
      query: AnsweredQuery;
    }
  | {
      type: "data_source.sync.completed";
      workspaceId: string;
      dataSourceId: string;
      syncRunId: string;
      counts: Record<string, number>;
    }
  | {
      type: "data_source.sync.failed";
      workspaceId: string;
      dataSourceId: string;
      syncRunId: string;
      error: string;
    }
  | { type: "agent.ready"; workspaceId: string; agentId: string }
  | {
      type: "message.feedback";
      workspaceId: string;
      agentId: string;
      conversationId: string;
      messageId: string;
      rating: "up" | "down";
      comment: string | null;
      reason: FeedbackReason | null;
      /** When the rated answer's conversation began (analytics count conversations by their start). */
      conversationCreatedAt: string;
      /** The conversation's channel: ratings of the console's Try-it answers are kept apart. */
      conversationChannel: "api" | "widget" | "console";
      /** The conversation's last answer is the fallback (analytics: it is not resolved either way). */
      lastAnswerFallback: boolean;
    }
  | {
      type: "conversation.handoff_requested";
      workspaceId: string;
      agentId: string;
      handoff: Handoff;
      /** When the conversation began. */
      conversationCreatedAt: string;
      /** The conversation as the visitor saw it when asking for a person. */
      transcript: HandoffTranscriptEntry[];
      /** Its last answer is the fallback (analytics: it is not resolved either way). */
      lastAnswerFallback: boolean;
    };

/** One message of a handoff's transcript (webhook payload and e-mail). */
export interface HandoffTranscriptEntry {
  role: "user" | "assistant";
  content: string;
  createdAt: string;
  sources: Array<{ title: string; sourceUrl: string }>;
}

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

export type DomainEventType = DomainEvent["type"];

export class EventBus {
  private readonly listeners: Array<(event: DomainEvent) => void | Promise<void>> = [];

  subscribe(listener: (event: DomainEvent) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  /** Listeners run after the caller's work; a failing listener never fails the emitter. */
  emit(event: DomainEvent): void {
    for (const listener of this.listeners) {
      queueMicrotask(() => {
        Promise.resolve()
          .then(() => listener(event))
          .catch(() => undefined);
      });
    }
  }
}
