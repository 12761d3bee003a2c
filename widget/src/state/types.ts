import type { Citation } from "@lore/shared";

export type MessageStatus = "pending" | "streaming" | "complete" | "stopped" | "failed";

export interface ChatMessage {
  /** Local id, stable across renders and page loads. */
  id: string;
  role: "user" | "assistant";
  content: string;
  sources: Citation[];
  status: MessageStatus;
  /** The server's message id, known once the answer stream starts. */
  messageId: string | null;
  feedback: "up" | "down" | null;
  /** How sure the answer is (from the server's `done` event); absent on answers saved before it. */
  outcome?: "answered" | "uncertain" | "fallback";
  /** The language the server wrote the answer for (`done`'s `language`): the way out under it speaks it. */
  lang?: string | null | undefined;
}

/** What the visitor is told when something stops the conversation. */
export type Notice =
  | { kind: "rate_limited"; retryAt: number }
  | { kind: "processing" }
  | { kind: "origin_refused" }
  | { kind: "not_found" }
  | { kind: "offline" }
  | { kind: "unreachable" }
  | { kind: "upstream" }
  | { kind: "server" }
  | { kind: "interrupted" }
  | { kind: "too_long" }
  | { kind: "feedback_failed" };

/** The events a host page can subscribe to with `on`, dispatched as `lore:<name>` on the host element. */
export type WidgetEvent = "open" | "close" | "message" | "sources" | "feedback" | "error";
export type Emit = (event: WidgetEvent, detail: Record<string, unknown>) => void;
