// The owner's loop (issue #15 items 1–3): the review queue's conversation pages, transcripts and
// corrections, as the console calls them.
import type {
  Citation,
  CORRECTION_SOURCE_TYPE,
  Conversation,
  Correction,
  CorrectionMatches,
  CorrectMessageRequest,
  CreateCorrectionRequest,
  Handoff,
  HandoffStatus,
  Message,
  Page,
  SuggestedQuestionsCheck,
  UpdateCorrectionRequest,
} from "@lore/shared";
import { api } from "./api.ts";

export type { Correction };
export type Transcript = Conversation & { messages: Message[]; handoffRequests: Handoff[] };

export type QueueFilter = "all" | "down" | "unanswered" | "uncertain" | "up" | "handoff";

export interface QueueQuery {
  filter: QueueFilter;
  q: string;
  /** The conversations' own status (the contact requests' under the `handoff` filter); `all` for either. */
  status: "open" | "resolved" | "all";
  /** Whose questions: visitors' and apps' (the default), members' in Try it, or both. */
  asked: "visitors" | "all";
}

export const PAGE_SIZE = 100;

/** One page of the agent's conversations under the queue's filter and text search. */
export function listConversations(
  agentId: string,
  query: QueueQuery,
  page: number,
): Promise<Page<Conversation>> {
  const params = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE) });
  if (query.filter === "down" || query.filter === "up") params.set("feedback", query.filter);
  if (query.filter === "unanswered") params.set("unanswered", "true");
  // Under "Contact requests" the status is the requests' own: a correction resolves the
  // conversation, never the visitor's request.
  if (query.filter === "handoff") params.set("handoff", query.status === "all" ? "any" : query.status);
  if (query.filter === "uncertain") params.set("outcome", "uncertain");
  if (query.q.trim()) params.set("q", query.q.trim());
  if (query.status !== "all" && query.filter !== "handoff") params.set("status", query.status);
  if (query.asked === "all") params.set("includeConsole", "true");
  return api("GET", `/agents/${agentId}/conversations/?${params}`);
}

export function getTranscript(agentId: string, conversationId: string): Promise<Transcript> {
  return api("GET", `/agents/${agentId}/conversations/${conversationId}/`);
}

/** Stores the owner's answer for the question behind an assistant message. */
export function correctMessage(
  agentId: string,
  messageId: string,
  body: CorrectMessageRequest,
): Promise<Correction> {
  return api("POST", `/agents/${agentId}/messages/${messageId}/correction/`, { body });
}

export function createCorrection(agentId: string, body: CreateCorrectionRequest): Promise<Correction> {
  return api("POST", `/agents/${agentId}/corrections/`, { body });
}

export function listCorrections(agentId: string, page: number): Promise<Page<Correction>> {
  return api("GET", `/agents/${agentId}/corrections/?page=${page}&page_size=50`);
}

/** Recent visitor questions the correction would answer, and close ones it would not. */
export function correctionMatches(agentId: string, id: string): Promise<CorrectionMatches> {
  return api("GET", `/agents/${agentId}/corrections/${id}/matches/?limit=5`);
}

export function updateCorrection(
  agentId: string,
  id: string,
  body: UpdateCorrectionRequest,
): Promise<Correction> {
  return api("PATCH", `/agents/${agentId}/corrections/${id}/`, { body });
}

export function deleteCorrection(agentId: string, id: string): Promise<null> {
  return api("DELETE", `/agents/${agentId}/corrections/${id}/`);
}

/** Resolves (or reopens) a visitor's contact request. */
export function setHandoffStatus(
  agentId: string,
  handoffId: string,
  status: HandoffStatus,
): Promise<Handoff> {
  return api("PATCH", `/agents/${agentId}/handoffs/${handoffId}/`, { body: { status } });
}

/** Resolves a conversation (it leaves the open queue) or opens it again. */
export function setConversationStatus(
  agentId: string,
  conversationId: string,
  status: "open" | "resolved",
): Promise<Conversation> {
  return api("PATCH", `/agents/${agentId}/conversations/${conversationId}/`, { body: { status } });
}

/** True when a citation is one of the owner's corrections. */
export function isCorrection(source: Citation): boolean {
  // A literal checked against the contract's: a value import would bring zod into the bundle.
  return source.dataSourceType === ("correction" satisfies typeof CORRECTION_SOURCE_TYPE);
}

/** Runs each suggested question through the answer path (nothing is stored). */
export function checkSuggestedQuestions(agentId: string): Promise<SuggestedQuestionsCheck> {
  return api("POST", `/agents/${agentId}/suggested-questions/check/`);
}
