import type { MessageRecord } from "../store/records.ts";
import { fallbackMessages } from "../text/messages.ts";

/** Why a conversation is in a review queue: its rated and fallback answers. */
export interface ReviewCounts {
  upvotes: number;
  downvotes: number;
  unanswered: number;
  /** Answers given with a doubt (outcome `uncertain`). */
  uncertain: number;
}

/** What one answer adds to its conversation's counts. */
interface Mark {
  feedback: "up" | "down" | null;
  fallback: boolean;
  uncertain: boolean;
}

const EMPTY: ReviewCounts = Object.freeze({ upvotes: 0, downvotes: 0, unanswered: 0, uncertain: 0 });
const defaultFallbacks: ReadonlySet<string> = new Set(Object.values(fallbackMessages));

/**
 * A stored message in today's shape. Messages stored before answers recorded `fallback` and
 * `correctionId` get them here: `fallback` when a complete, uncited answer is the agent's fallback
 * text (its current one, or the default in any language), `correctionId` null.
 */
export function upgradeMessage(
  stored: Omit<MessageRecord, "fallback" | "correctionId" | "feedbackReason"> & Partial<MessageRecord>,
  agentFallback: string | undefined,
): MessageRecord {
  if (
    stored.fallback !== undefined &&
    stored.correctionId !== undefined &&
    stored.outcome !== undefined &&
    stored.feedbackReason !== undefined
  )
    return stored as MessageRecord;
  const text = stored.content.trim();
  const fallback =
    stored.role === "assistant" &&
    stored.status === "complete" &&
    stored.sources.length === 0 &&
    (text === agentFallback?.trim() || defaultFallbacks.has(text));
  const isFallback = stored.fallback ?? fallback;
  // Answers stored before outcomes existed: the fallback or an answer, of unknown confidence.
  const outcome =
    stored.role === "assistant" && stored.status === "complete"
      ? isFallback
        ? "fallback"
        : "answered"
      : null;
  return {
    ...stored,
    fallback: isFallback,
    correctionId: stored.correctionId ?? null,
    outcome: stored.outcome ?? outcome,
    confidence: stored.confidence ?? null,
    feedbackReason: stored.feedbackReason ?? null,
  };
}

function markOf(m: MessageRecord): Mark | null {
  const uncertain = m.outcome === "uncertain";
  if (m.role !== "assistant" || (m.feedback === null && !m.fallback && !uncertain)) return null;
  return { feedback: m.feedback, fallback: m.fallback, uncertain };
}

/** The counts of one conversation's messages. */
export function countMessages(messages: Iterable<MessageRecord>): ReviewCounts {
  const marks = new Map<string, Mark>();
  for (const m of messages) {
    const mark = markOf(m);
    if (mark) marks.set(m.id, mark);
  }
  return sumMarks(marks.values());
}

function sumMarks(marks: Iterable<Mark>): ReviewCounts {
  const counts = { upvotes: 0, downvotes: 0, unanswered: 0, uncertain: 0 };
  for (const mark of marks) {
    if (mark.feedback === "up") counts.upvotes++;
    if (mark.feedback === "down") counts.downvotes++;
    if (mark.fallback) counts.unanswered++;
    if (mark.uncertain) counts.uncertain++;
  }
  return counts;
}

type AgentMarks = Map<string, Map<string, Mark>>;

/**
 * Per agent, the rated and fallback answers of each conversation, so a conversation list can show
 * and filter by them without reading every message. An agent's marks are loaded from its stored
 * messages on first use and kept current by `note` (idempotent: a message's latest state replaces
 * its earlier one, so a message noted while the load ran is neither lost nor counted twice).
 */
export class ReviewIndex {
  private readonly agents = new Map<string, AgentMarks>();
  private readonly loading = new Map<string, { notes: MessageRecord[]; done: Promise<AgentMarks> }>();

  constructor(private readonly loadMessages: (agentId: string) => Promise<Iterable<MessageRecord>>) {}

  /** Records a message's current state (new, rated, or re-rated). */
  note(message: MessageRecord): void {
    const marks = this.agents.get(message.agentId);
    if (marks) apply(marks, message);
    else this.loading.get(message.agentId)?.notes.push(message);
  }

  forgetConversation(agentId: string, conversationId: string): void {
    this.agents.get(agentId)?.delete(conversationId);
  }

  forgetAgent(agentId: string): void {
    this.agents.delete(agentId);
    this.loading.delete(agentId);
  }

  /** Counts by conversation id for one agent (conversations without marks are absent). */
  async countsFor(agentId: string): Promise<(conversationId: string) => ReviewCounts> {
    const marks = await this.marksOf(agentId);
    return (conversationId) => {
      const own = marks.get(conversationId);
      return own ? sumMarks(own.values()) : EMPTY;
    };
  }

  private async marksOf(agentId: string): Promise<AgentMarks> {
    const ready = this.agents.get(agentId);
    if (ready) return ready;
    const pending = this.loading.get(agentId);
    if (pending) return pending.done;
    const notes: MessageRecord[] = [];
    const done = this.loadMessages(agentId).then((messages) => {
      const marks: AgentMarks = new Map();
      for (const m of messages) apply(marks, m);
      for (const m of notes) apply(marks, m);
      // Only if nobody forgot the agent meanwhile.
      if (this.loading.get(agentId)?.done === done) {
        this.agents.set(agentId, marks);
        this.loading.delete(agentId);
      }
      return marks;
    });
    this.loading.set(agentId, { notes, done });
    done.catch(() => this.loading.delete(agentId));
    return done;
  }
}

function apply(marks: AgentMarks, message: MessageRecord): void {
  const mark = markOf(message);
  let own = marks.get(message.conversationId);
  if (!mark) {
    own?.delete(message.id);
    return;
  }
  if (!own) {
    own = new Map();
    marks.set(message.conversationId, own);
  }
  own.set(message.id, mark);
}
