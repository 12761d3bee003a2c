import { randomUUID } from "node:crypto";
import type { MessageRecord } from "../store/records.ts";

/** A stored message for tests: a complete, unrated answer unless `fields` say otherwise. */
export function makeMessage(fields: Partial<MessageRecord> = {}): MessageRecord {
  return {
    id: randomUUID(),
    conversationId: "c1",
    agentId: "agent",
    workspaceId: "workspace",
    role: "assistant",
    content: "Nine to five.",
    sources: [],
    model: null,
    latency: null,
    tokensUsed: null,
    retrievalTime: null,
    generationTime: null,
    status: "complete",
    feedback: null,
    feedbackComment: null,
    fallback: false,
    correctionId: null,
    createdAt: new Date().toISOString(),
    ...fields,
  };
}
