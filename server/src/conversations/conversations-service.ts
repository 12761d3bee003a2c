import { randomUUID } from "node:crypto";
import type { Conversation, Message } from "@lore/shared";
import { notFound } from "../errors.ts";
import type { ConversationRecord, MessageRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

const HISTORY_CACHE_SIZE = 5_000;
const UUID = /^[0-9a-f-]{36}$/i;

export function toConversation(c: ConversationRecord): Conversation {
  return {
    id: c.id,
    title: c.title,
    messageCount: c.messageCount,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function toMessage(m: MessageRecord): Message {
  const { agentId: _a, workspaceId: _w, feedbackComment: _f, ...message } = m;
  return message;
}

/** Conversations (in memory, written through) and their messages (an append log in LanceDB). */
export class ConversationsService {
  // Recent conversations' messages, so follow-ups don't scan the message table.
  private readonly recent = new Map<string, MessageRecord[]>();

  constructor(private readonly store: Store) {}

  get(agentId: string, conversationId: string): ConversationRecord {
    const conversation = this.store.conversations.get(conversationId);
    if (!conversation || conversation.agentId !== agentId) throw notFound("conversation", conversationId);
    return conversation;
  }

  listForAgent(agentId: string): ConversationRecord[] {
    return this.store.conversations
      .filter((c) => c.agentId === agentId)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id.localeCompare(a.id));
  }

  /** A new conversation's record; `save` makes it durable (callers may overlap that with other work). */
  create(input: {
    agentId: string;
    workspaceId: string;
    title: string;
    channel: ConversationRecord["channel"];
    visitorId: string | null;
  }): ConversationRecord {
    const now = new Date().toISOString();
    const title = input.title.replace(/\s+/g, " ").trim();
    const record: ConversationRecord = {
      id: randomUUID(),
      agentId: input.agentId,
      workspaceId: input.workspaceId,
      title: title.length > 80 ? `${title.slice(0, 79)}…` : title,
      messageCount: 0,
      channel: input.channel,
      visitorId: input.visitorId,
      createdAt: now,
      updatedAt: now,
    };
    this.recent.set(record.id, []);
    return record;
  }

  save(record: ConversationRecord): Promise<ConversationRecord> {
    return this.store.conversations.put(record);
  }

  /** Appends a message durably, then bumps the conversation's count and updatedAt. */
  async append(message: MessageRecord): Promise<void> {
    const list = await this.messages(message.conversationId);
    // Two tables, two commits: run them side by side (an answer waits on these before `done`).
    await Promise.all([
      this.store.messages.append({
        id: message.id,
        conversation_id: message.conversationId,
        agent_id: message.agentId,
        seq: list.length,
        data: JSON.stringify(message),
      }),
      this.store.conversations.transact(() => {
        const current = this.store.conversations.get(message.conversationId);
        if (!current) return { rows: [], result: null };
        return {
          rows: [{ ...current, messageCount: current.messageCount + 1, updatedAt: message.createdAt }],
          result: null,
        };
      }),
    ]);
    list.push(message);
    this.remember(message.conversationId, list);
  }

  /** Every message of a conversation, oldest first. */
  async messages(conversationId: string): Promise<MessageRecord[]> {
    const cached = this.recent.get(conversationId);
    if (cached) return cached;
    if (!UUID.test(conversationId)) return [];
    const rows = await this.store.messages.table
      .query()
      .where(`conversation_id = '${conversationId}'`)
      .select(["seq", "data"])
      .toArray();
    const list = rows
      .sort((a, b) => Number(a.seq) - Number(b.seq))
      .map((r) => JSON.parse(String(r.data)) as MessageRecord);
    this.remember(conversationId, list);
    return list;
  }

  async findMessage(agentId: string, messageId: string): Promise<MessageRecord> {
    if (!UUID.test(messageId)) throw notFound("message", messageId);
    for (const list of this.recent.values()) {
      const hit = list.find((m) => m.id === messageId);
      if (hit) {
        if (hit.agentId !== agentId) throw notFound("message", messageId);
        return hit;
      }
    }
    const rows = await this.store.messages.table
      .query()
      .where(`id = '${messageId}'`)
      .select(["data"])
      .limit(1)
      .toArray();
    const message = rows[0] ? (JSON.parse(String(rows[0].data)) as MessageRecord) : null;
    if (!message || message.agentId !== agentId) throw notFound("message", messageId);
    return message;
  }

  async setFeedback(
    message: MessageRecord,
    rating: "up" | "down",
    comment: string | null,
  ): Promise<MessageRecord> {
    const updated: MessageRecord = { ...message, feedback: rating, feedbackComment: comment };
    await this.store.messages.write((t) =>
      t.update({ where: `id = '${message.id}'`, values: { data: JSON.stringify(updated) } }),
    );
    const list = this.recent.get(message.conversationId);
    if (list) {
      const i = list.findIndex((m) => m.id === message.id);
      if (i >= 0) list[i] = updated;
    }
    return updated;
  }

  async remove(conversation: ConversationRecord): Promise<void> {
    await this.store.messages.write((t) => t.delete(`conversation_id = '${conversation.id}'`));
    await this.store.conversations.delete([conversation.id]);
    this.recent.delete(conversation.id);
  }

  private remember(conversationId: string, list: MessageRecord[]): void {
    this.recent.delete(conversationId);
    this.recent.set(conversationId, list);
    if (this.recent.size > HISTORY_CACHE_SIZE) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
  }
}
