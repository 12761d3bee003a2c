import { afterEach, describe, expect, it, vi } from "vitest";
import { type DomainEvent, EventBus } from "../events/event-bus.ts";
import type { MessageRecord } from "../store/records.ts";
import { openConversation, prepareConversation } from "./prepare-conversation.ts";
import {
  type AnswerTurn,
  answerSummary,
  newReply,
  type Reply,
  type StoreRequest,
  storeAnswer,
} from "./store-answer.ts";
import { makeAgent, openConversations } from "./test-answers.ts";

const agent = makeAgent();
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A question asked on the widget, its conversation prepared, and what the event bus announces. */
async function asked(fields: Partial<StoreRequest> = {}) {
  const opened = await openConversations();
  closing.push(opened.close);
  const { conversations } = opened;
  const events = new EventBus();
  const announced: DomainEvent[] = [];
  events.subscribe((event) => {
    announced.push(event);
  });
  const request = {
    agent,
    message: "Can I cancel my order after it ships?",
    channel: "widget" as const,
    visitorId: "visitor-1",
    streamed: true,
    callerId: "visitor-1",
    ...fields,
  };
  const prepared = await prepareConversation(
    { conversations },
    request,
    await openConversation({ conversations }, request),
  );
  const turn: AnswerTurn = {
    agent,
    prepared,
    messageId: "message-1",
    modelName: "extractive",
    at: "2026-12-06T08:00:00.000Z",
    started: performance.now(),
    request,
  };
  return { conversations, events, announced, turn, id: prepared.conversation.id };
}

const sureReply = (): Reply => ({
  ...newReply(),
  text: "Once shipped, use the returns process. [1]",
  outcome: "answered",
  confidence: 0.81,
  sources: [
    {
      rank: 1,
      documentId: "doc-orders",
      chunkId: "chunk-1",
      title: "Orders",
      dataSourceName: "Help center",
      dataSourceType: "text",
      sourceUrl: "",
      content: "Once shipped, use the returns process.",
      score: 0.8,
      displayMode: "expandable",
      dataSourceId: "source",
      headingPath: ["Orders", "Cancelling"],
    },
  ],
  retrievalTime: 3.14,
  generationTime: 2.66,
  promptTokens: 9,
  completionTokens: 7,
  tokensUsed: 16,
});

describe("storeAnswer", () => {
  it("stores the answer after the user's message and announces it on the event bus for analytics", async () => {
    const { conversations, announced, turn, id, events } = await asked();
    await storeAnswer({ conversations, events }, turn, sureReply(), {
      status: "complete",
      answered: true,
      error: null,
    });
    const messages = await conversations.messages(id);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messages[1]).toMatchObject({
      id: "message-1",
      content: "Once shipped, use the returns process. [1]",
      status: "complete",
      fallback: false,
      outcome: "answered",
      confidence: 0.81,
      retrievalTime: 3.1,
      generationTime: 2.7,
      tokensUsed: 16,
      model: "extractive",
    });
    await vi.waitFor(() => expect(announced).toHaveLength(1));
    expect(announced[0]).toMatchObject({
      type: "question.answered",
      workspaceId: "workspace",
      query: {
        agentId: "agent",
        conversationId: id,
        messageId: "message-1",
        at: "2026-12-06T08:00:00.000Z",
        channel: "widget",
        streamed: true,
        callerId: "visitor-1",
        question: "Can I cancel my order after it ships?",
        newConversation: true,
        answered: true,
        outcome: "answered",
        error: null,
        retrievalTime: 3.1,
        cited: [{ documentId: "doc-orders", title: "Orders", dataSourceId: "source" }],
      },
    });
  });

  it("keeps a stopped answer's words without judging it, and records the failure code", async () => {
    const { conversations, announced, turn, id, events } = await asked();
    const cut = { ...sureReply(), text: "Once shipped," };
    await storeAnswer({ conversations, events }, turn, cut, {
      status: "stopped",
      answered: false,
      error: "cancelled",
    });
    const [, answer] = await conversations.messages(id);
    expect(answer).toMatchObject({
      content: "Once shipped,",
      status: "stopped",
      fallback: false,
      outcome: null,
      confidence: null,
    });
    await vi.waitFor(() => expect(announced).toHaveLength(1));
    expect(announced[0]).toMatchObject({ query: { answered: false, outcome: null, error: "cancelled" } });
  });

  it("hands a trial run's answer over without storing or announcing it", async () => {
    const given: MessageRecord[] = [];
    const { conversations, announced, turn, id, events } = await asked({
      ephemeral: true,
      onAnswer: (m) => given.push(m),
    });
    await storeAnswer({ conversations, events }, turn, sureReply(), {
      status: "complete",
      answered: true,
      error: null,
    });
    expect(given.map((m) => m.content)).toEqual(["Once shipped, use the returns process. [1]"]);
    expect(await conversations.messages(id)).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(announced).toEqual([]);
  });
});

describe("answerSummary", () => {
  it("names the visitor's language: the agent's when it has one, else the question's", async () => {
    const spanish = await asked({ message: "¿Puedo cancelar mi pedido después de que se envíe?" });
    expect(answerSummary(spanish.turn, sureReply(), 42, 5).language).toBe("es");
    const fixed = { ...spanish.turn, agent: { ...spanish.turn.agent, language: "de" as const } };
    expect(answerSummary(fixed, sureReply(), 42, 5).language).toBe("de");
  });

  it("reports the stored answer's outcome, sources and rounded timings", async () => {
    const { turn, id } = await asked();
    expect(answerSummary(turn, sureReply(), 42, 5)).toEqual({
      conversationId: id,
      messageId: "message-1",
      outcome: "answered",
      confidence: 0.81,
      sources: sureReply().sources,
      correctionId: null,
      latency: 42,
      model: "extractive",
      retrievedChunks: 5,
      language: "en",
      metadata: {
        tokensUsed: 16,
        promptTokens: 9,
        completionTokens: 7,
        retrievalTime: 3.1,
        generationTime: 2.7,
      },
    });
  });
});
