import { randomUUID } from "node:crypto";
import type { Handoff, HandoffStatus, WidgetHandoffRequest } from "@lore/shared";
import { handoffOf } from "../agents/agents-service.ts";
import type { ConversationsService, HandoffCounts } from "../conversations/conversations-service.ts";
import { AppError, notFound } from "../errors.ts";
import type { EventBus, HandoffTranscriptEntry } from "../events/event-bus.ts";
import type { RecordTable } from "../store/record-table.ts";
import type { AgentRecord, ConversationRecord, HandoffRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { oneLine, wellFormed } from "./visitor-text.ts";

const NONE: HandoffCounts = Object.freeze({ handoffs: 0, openHandoffs: 0 });

/**
 * Visitors' requests for a person. A request is stored (one LanceDB commit) before it is announced,
 * so the webhook deliveries and e-mails that follow it can fail without losing what the visitor wrote.
 */
export class HandoffsService {
  private constructor(
    private readonly table: RecordTable<HandoffRecord>,
    private readonly conversations: ConversationsService,
    private readonly events: EventBus,
  ) {}

  static async open(deps: {
    store: Store;
    conversations: ConversationsService;
    events: EventBus;
  }): Promise<HandoffsService> {
    const table = await deps.store.openRecords<HandoffRecord>("handoffs");
    return new HandoffsService(table, deps.conversations, deps.events);
  }

  /** Stores a visitor's request on their conversation, then announces it with the transcript. */
  async create(
    agent: AgentRecord,
    conversation: ConversationRecord,
    visitorId: string,
    input: Omit<WidgetHandoffRequest, "visitorToken">,
  ): Promise<HandoffRecord> {
    requireForm(agent);
    const record: HandoffRecord = {
      id: randomUUID(),
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      conversationId: conversation.id,
      visitorId,
      email: oneLine(wellFormed(input.email)),
      name: oneLine(wellFormed(input.name ?? "")) || null,
      message: wellFormed(input.message),
      status: "open",
      createdAt: new Date().toISOString(),
      resolvedAt: null,
    };
    await this.table.put(record);
    const messages = await this.conversations.messages(conversation.id);
    const transcript: HandoffTranscriptEntry[] = messages
      .filter((m) => m.content.length > 0)
      .map((m) => ({
        role: m.role,
        content: m.content,
        createdAt: m.createdAt,
        sources: m.sources.map((s) => ({ title: s.title, sourceUrl: s.sourceUrl })),
      }));
    this.events.emit({
      type: "conversation.handoff_requested",
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      handoff: toHandoff(record),
      conversationCreatedAt: conversation.createdAt,
      transcript,
      lastAnswerFallback: messages.findLast((m) => m.role === "assistant")?.fallback === true,
    });
    return record;
  }

  /**
   * A request sent before any question: it starts the visitor's widget conversation (titled with
   * the message), so the owner reads it like any other, with the request open.
   */
  async createFirst(
    agent: AgentRecord,
    visitorId: string,
    input: Omit<WidgetHandoffRequest, "visitorToken">,
  ): Promise<HandoffRecord> {
    requireForm(agent);
    const conversation = this.conversations.create({
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      title: input.message,
      channel: "widget",
      visitorId,
    });
    await this.conversations.save(conversation);
    return this.create(agent, conversation, visitorId, input);
  }

  /** An agent's requests, newest first. */
  list(agentId: string, status?: HandoffStatus): Handoff[] {
    return this.table
      .filter((h) => h.agentId === agentId && (status === undefined || h.status === status))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .map(toHandoff);
  }

  get(agentId: string, id: string): HandoffRecord {
    const found = this.table.get(id);
    if (!found || found.agentId !== agentId) throw notFound("handoff", id);
    return found;
  }

  /** Resolves (or reopens) a request. */
  async setStatus(handoff: HandoffRecord, status: HandoffStatus): Promise<Handoff> {
    if (handoff.status === status) return toHandoff(handoff);
    const updated: HandoffRecord = {
      ...handoff,
      status,
      resolvedAt: status === "resolved" ? new Date().toISOString() : null,
    };
    await this.table.put(updated);
    return toHandoff(updated);
  }

  /** Open requests counted by agent, for the agents `readable` keeps (the console's badge). */
  openByAgent(readable: (agentId: string) => boolean): { agentId: string; count: number }[] {
    const counts = new Map<string, number>();
    for (const h of this.table.filter((r) => r.status === "open" && readable(r.agentId)))
      counts.set(h.agentId, (counts.get(h.agentId) ?? 0) + 1);
    return [...counts].map(([agentId, count]) => ({ agentId, count }));
  }

  /** A conversation's requests, oldest first. */
  forConversation(conversationId: string): Handoff[] {
    return this.table
      .filter((h) => h.conversationId === conversationId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map(toHandoff);
  }

  /** Counts by conversation id for one agent. */
  countsFor(agentId: string): (conversationId: string) => HandoffCounts {
    const counts = new Map<string, HandoffCounts>();
    for (const h of this.table.filter((r) => r.agentId === agentId)) {
      const c = counts.get(h.conversationId) ?? { handoffs: 0, openHandoffs: 0 };
      c.handoffs += 1;
      if (h.status === "open") c.openHandoffs += 1;
      counts.set(h.conversationId, c);
    }
    return (conversationId) => counts.get(conversationId) ?? NONE;
  }

  /** Deletes the requests of deleted conversations (what the visitor wrote goes with them). */
  async removeForConversations(conversationIds: readonly string[]): Promise<void> {
    const ids = new Set(conversationIds);
    await this.table.delete(this.table.filter((h) => ids.has(h.conversationId)).map((h) => h.id));
  }

  async removeForAgent(agentId: string): Promise<void> {
    await this.table.delete(this.table.filter((h) => h.agentId === agentId).map((h) => h.id));
  }

  idle(): Promise<void> {
    return this.table.idle();
  }
}

function requireForm(agent: AgentRecord): void {
  if (handoffOf(agent).mode !== "form") {
    throw new AppError("validation_error", "This assistant takes no contact requests", {
      fields: { handoff: ["the agent's handoff is not a form"] },
    });
  }
}

export function toHandoff(r: HandoffRecord): Handoff {
  const { workspaceId: _w, visitorId: _v, ...rest } = r;
  return rest;
}
