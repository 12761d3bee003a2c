import { randomUUID } from "node:crypto";
import type { DeviceClass } from "@lore/shared";
import type { ConversationsService } from "../conversations/conversations-service.ts";
import { AppError } from "../errors.ts";
import type { AnsweredQuery } from "../events/event-bus.ts";
import { HISTORY_WINDOW } from "../generation/prompt.ts";
import type { ChatMessage } from "../generation/types.ts";
import type { AgentRecord, ConversationRecord, MessageRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

/** What a question says about its conversation. */
export interface ConversationRequest {
  agent: AgentRecord;
  message: string;
  conversationId?: string;
  channel: AnsweredQuery["channel"];
  /** The widget's page and device class, recorded on a new conversation. */
  pageUrl?: string;
  device?: DeviceClass;
  /** Widget conversations belong to one visitor. */
  visitorId?: string | null;
  /** Who asks (a user, an API key, a visitor): a console conversation is its starter's alone. */
  callerId: string;
  /** History supplied by the caller (chat completions) instead of a stored conversation. */
  history?: ChatMessage[];
  /** A trial run (checking suggested questions): nothing is stored and analytics records nothing. */
  ephemeral?: boolean;
}

/** The conversation a question belongs to. */
export interface OpenedConversation {
  conversation: ConversationRecord;
  newConversation: boolean;
}

/** A question's place in its conversation, ready to be answered. */
export interface PreparedConversation extends OpenedConversation {
  /** The earlier turns the answerer reads, oldest first. */
  history: ChatMessage[];
  /** The conversation's previous answer was the fallback (resolution looks at the last answer). */
  afterFallback: boolean;
  /** The conversation and the user's message made durable while the answer is prepared; awaited before it is stored. */
  userStored: Promise<void>;
}

/** Checks a question can be answered now: sources attached and ready (503 with Retry-After otherwise). */
export function resolveSources(deps: { store: Store }, agent: AgentRecord, requested?: string[]): string[] {
  if (requested) {
    const unknown = requested.filter((id) => !agent.dataSourceIds.includes(id));
    if (unknown.length > 0) {
      throw new AppError("validation_error", "Some data sources are not attached to this agent", {
        fields: { dataSourceIds: unknown.map((id) => `not attached: ${id}`) },
      });
    }
  }
  const wanted = requested ?? agent.dataSourceIds;
  const live = wanted.filter((id) => {
    const s = deps.store.dataSources.get(id);
    return s !== undefined && s.deletedAt === null;
  });
  const notReady = live.filter((id) => !deps.store.dataSources.get(id)?.everReady);
  if (notReady.length > 0) {
    throw new AppError(
      "agent_processing",
      "The agent is still processing its data sources; retry shortly",
      { agentId: agent.id, dataSourceIds: notReady },
      { "Retry-After": "5" },
    );
  }
  return live;
}

/**
 * The conversation a question continues (the caller's own, else 404) or starts (not stored yet). A
 * conversation this replica has not heard of yet is read from the shared table (issue #48).
 */
export async function openConversation(
  deps: { conversations: ConversationsService },
  request: ConversationRequest,
): Promise<OpenedConversation> {
  const { agent } = request;
  let conversation: ConversationRecord;
  let newConversation = false;
  if (request.conversationId) {
    conversation = await deps.conversations.load(agent.id, request.conversationId);
    // A widget conversation is its visitor's token's alone, an API one no visitor's: otherwise it
    // is not the caller's to continue, answered as an unknown one (issue #34).
    // A console conversation is continued only from the console, by the user who started it (issue
    // #49: an API key, or another user's session, posted into the owner's Try it conversation).
    const notTheirs =
      conversation.channel === "console" &&
      (request.channel !== "console" || (conversation.startedBy ?? request.callerId) !== request.callerId);
    if (notTheirs || conversation.visitorId !== (request.visitorId ?? null)) {
      throw new AppError("not_found", "conversation not found", {
        resource: "conversation",
        id: request.conversationId,
      });
    }
  } else {
    newConversation = true;
    const fields = {
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      title: request.message,
      channel: conversationChannel(request.channel),
      visitorId: request.visitorId ?? null,
      startedBy: request.channel === "console" ? request.callerId : null,
      pageUrl: request.pageUrl ?? null,
      device: request.device ?? null,
    };
    conversation = request.ephemeral ? unsavedConversation(fields) : deps.conversations.create(fields);
  }
  return { conversation, newConversation };
}

/**
 * An opened conversation's recent history, and the user's message on its way to storage (a trial
 * run stores nothing).
 */
export async function prepareConversation(
  deps: { conversations: ConversationsService },
  request: ConversationRequest,
  { conversation, newConversation }: OpenedConversation,
): Promise<PreparedConversation> {
  const earlier =
    request.history || newConversation ? [] : await deps.conversations.messages(conversation.id);
  // Resolution counts a conversation whose last answer is the fallback (analytics).
  const afterFallback = earlier.findLast((m) => m.role === "assistant")?.fallback === true;
  const history: ChatMessage[] =
    request.history ??
    earlier
      .filter((m) => m.content.length > 0)
      .slice(-HISTORY_WINDOW)
      .map((m) => ({ role: m.role, content: m.content }));
  const userMessage = messageRecord(request.agent, conversation.id, "user", request.message);
  const userStored = (async () => {
    if (request.ephemeral) return;
    if (newConversation) await deps.conversations.save(conversation);
    await deps.conversations.append(userMessage);
  })();
  userStored.catch(() => undefined);
  return { conversation, newConversation, history, afterFallback, userStored };
}

/** A new stored message: complete, unrated, not a fallback, with no sources or timings yet. */
export function messageRecord(
  agent: Pick<AgentRecord, "id" | "workspaceId">,
  conversationId: string,
  role: "user" | "assistant",
  content: string,
  id: string = randomUUID(),
): MessageRecord {
  return {
    id,
    conversationId,
    agentId: agent.id,
    workspaceId: agent.workspaceId,
    role,
    content,
    sources: [],
    model: null,
    latency: null,
    tokensUsed: null,
    retrievalTime: null,
    generationTime: null,
    status: "complete",
    feedback: null,
    feedbackComment: null,
    feedbackReason: null,
    fallback: false,
    outcome: null,
    confidence: null,
    correctionId: null,
    createdAt: new Date().toISOString(),
  };
}

/** A conversation that is never stored (a trial run's). */
function unsavedConversation(
  fields: Pick<
    ConversationRecord,
    "agentId" | "workspaceId" | "title" | "channel" | "visitorId" | "startedBy" | "pageUrl" | "device"
  >,
): ConversationRecord {
  const now = new Date().toISOString();
  return { id: randomUUID(), ...fields, messageCount: 0, createdAt: now, updatedAt: now };
}

/** A conversation's channel: chat completions and MCP are API traffic. */
function conversationChannel(channel: ConversationRequest["channel"]): ConversationRecord["channel"] {
  return channel === "widget" || channel === "console" ? channel : "api";
}
