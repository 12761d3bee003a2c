import type { FeedbackReason, Handoff } from "@lore/shared";

/** Domain events other parts react to (webhooks, analytics); delivery is the listener's job. */
export type DomainEvent =
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
