import type { AnswerEvent } from "@lore/shared";
import { describe, expect, it } from "vitest";
import type { Decision } from "../generation/answer-outcome.ts";
import { localizeUncertain } from "../text/messages.ts";
import { countTokens } from "../text/tokens.ts";
import { composeAnswer, composeCorrection, createSender } from "./compose-answer.ts";
import type { Draft } from "./draft-answer.ts";
import type { Passages } from "./retrieve-context.ts";
import { newReply } from "./store-answer.ts";
import { makeAgent, makeRetrievedChunk } from "./test-answers.ts";

const question = "Can I cancel my order after it ships?";
const fallbackMessage = "Sorry, I can't help with that.";
const extractive = { closestPassage: () => "" };
const chatModel = {};

const cancelling = makeRetrievedChunk(
  "Cancelling an order",
  "You can cancel an order free of charge until it ships. Once shipped, use the returns process.",
);
const delivery = makeRetrievedChunk("Delivery times", "Orders ship within two working days.");
const passages: Passages = {
  kind: "passages",
  standalone: question,
  retrieval: { query: question, translation: null },
  judged: question,
  modelTranslation: null,
  chunks: [delivery, cancelling],
  pool: [
    delivery,
    cancelling,
    makeRetrievedChunk("Returns", "Returns are free within 30 days."),
    makeRetrievedChunk("Gift cards", "Gift cards never expire."),
  ],
};

function decided(outcome: Decision["outcome"], passage: string): Decision {
  return {
    outcome,
    confidence: outcome === "answered" ? 0.8 : 0.3,
    passage,
    declined: false,
    features: null,
  };
}

async function drain(events: AsyncGenerator<AnswerEvent>): Promise<string> {
  let sent = "";
  for await (const event of events) if (event.type === "token") sent += event.token;
  return sent;
}

function compose(model: object, decision: Decision, draft: Draft = { raw: "", usage: null }) {
  const reply = newReply();
  const sender = createSender(reply, passages.chunks.length);
  const request = {
    agent: makeAgent(),
    message: question,
    model,
    passages,
    draft,
    decision,
    fallbackMessage,
    signal: new AbortController().signal,
  };
  return { reply, sender, events: () => composeAnswer(request, sender, reply) };
}

describe("composeAnswer", () => {
  it("sends the extractive answerer's sure passage with its citations renumbered from [1]", async () => {
    const { reply, events } = compose(
      extractive,
      decided("answered", "Once shipped, use the returns process. [2]"),
    );
    expect(await drain(events())).toBe("Once shipped, use the returns process. [1]");
    expect(reply).toMatchObject({ text: "Once shipped, use the returns process. [1]", outcome: "answered" });
    expect(reply.sources.map((s) => [s.rank, s.title])).toEqual([[1, "Cancelling an order"]]);
  });

  it("puts the doubt first in an uncertain answer and lists further articles that may help", async () => {
    const { reply, events } = compose(
      extractive,
      decided("uncertain", "Once shipped, use the returns process. [2]"),
    );
    const sent = await drain(events());
    expect(sent).toBe(`${localizeUncertain(question)}\n\nOnce shipped, use the returns process. [1]`);
    expect(reply.sources.map((s) => s.title)).toEqual(["Cancelling an order", "Delivery times", "Returns"]);
  });

  it("sends the fallback message without sources when nothing answers", async () => {
    const { reply, events } = compose(extractive, decided("fallback", fallbackMessage));
    expect(await drain(events())).toBe(fallbackMessage);
    expect(reply).toMatchObject({ text: fallbackMessage, outcome: "fallback", sources: [] });
  });

  it("adds the doubt after a chat model's answer, which is already out", async () => {
    const raw = "Once shipped, use the returns process [2].";
    const { reply, sender, events } = compose(chatModel, decided("uncertain", raw), {
      raw,
      usage: { promptTokens: 120, completionTokens: 9 },
    });
    sender.send(raw); // as the draft streamed it
    expect(await drain(events())).toBe(`\n\n${localizeUncertain(question)}`);
    expect(reply.text).toBe(`Once shipped, use the returns process [1].\n\n${localizeUncertain(question)}`);
    // The model's own token counts, not an estimate.
    expect(reply).toMatchObject({ promptTokens: 120, completionTokens: 9, tokensUsed: 129 });
  });
});

describe("composeCorrection", () => {
  const match = {
    correction: {
      id: "correction-1",
      question: "Can I cancel after shipping?",
      answer: "No: once shipped, start a return from your account.",
    },
    score: 0.9,
  } as Parameters<typeof composeCorrection>[0];

  it("streams the owner's answer word by word as a sure answer without source cards", async () => {
    const reply = newReply();
    const tokens: string[] = [];
    for await (const event of composeCorrection(match, question, reply, new AbortController().signal)) {
      if (event.type === "token") tokens.push(event.token);
    }
    expect(tokens).toEqual([
      "No:",
      " once",
      " shipped,",
      " start",
      " a",
      " return",
      " from",
      " your",
      " account.",
    ]);
    expect(reply).toMatchObject({
      text: match.correction.answer,
      outcome: "answered",
      confidence: 1,
      correctionId: "correction-1",
      sources: [],
      promptTokens: countTokens(question),
    });
  });

  it("stops sending once the visitor stops", async () => {
    const reply = newReply();
    const stop = new AbortController();
    for await (const _ of composeCorrection(match, question, reply, stop.signal)) stop.abort();
    expect(reply.text).toBe("No:");
  });
});
