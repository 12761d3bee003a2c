import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideAnswer } from "../generation/answer-outcome.ts";
import type { ChatModel, RetrievedChunk } from "../generation/types.ts";
import { ChunkIndex } from "../retrieval/chunk-index.ts";
import { makeStoredChunk } from "../retrieval/test-chunks.ts";
import type { QuestionTranslation } from "../text/translate/translate-question.ts";
import { createDefaultAnswerer } from "./chat-models.ts";
import { decideOutcome } from "./decide-outcome.ts";
import type { Draft } from "./draft-answer.ts";
import type { Passages } from "./retrieve-context.ts";
import { makeAgent, makeRetrievedChunk } from "./test-answers.ts";

const agent = makeAgent();
const fallbackMessage = agent.fallbackMessage;
const question = "How do I cancel an order before it ships?";
const text = "You can cancel an order free of charge until it ships. Once shipped, use the returns process.";
const chunks: RetrievedChunk[] = [makeRetrievedChunk("Cancelling an order", text)];
const extractive = createDefaultAnswerer();
const chatModel: Pick<ChatModel, "closestPassage"> = {};

let dir: string;
let index: ChunkIndex;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lore-decide-"));
  index = await ChunkIndex.open(await connect(dir), { embedder: null });
  const [workspaceId, dataSourceId, documentId] = [randomUUID(), randomUUID(), randomUUID()];
  const fields = { workspaceId, dataSourceId, documentId, ordinal: 0, text };
  await index.replaceDocument(documentId, [makeStoredChunk(fields)]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function passagesFor(translation: QuestionTranslation | null): Passages {
  return {
    kind: "passages",
    standalone: question,
    retrieval: { query: question, translation },
    judged: question,
    modelTranslation: null,
    chunks,
    pool: chunks,
  };
}

/** A Spanish question whose `untranslated` key words no dictionary knew, of `words`. */
function spanish(words: number, untranslated: number): QuestionTranslation {
  const groups = Array.from({ length: words }, (_, i) => [`word${i}`]);
  return {
    language: "es",
    query: question,
    groups,
    translated: words - untranslated,
    untranslated,
    unread: groups.map(() => false),
  };
}

async function extractiveDraft(): Promise<Draft> {
  let raw = "";
  for await (const event of extractive.generate({
    question,
    history: [],
    chunks,
    instructions: "",
    fallbackMessage,
    temperature: 0,
    maxTokens: 800,
  })) {
    if (event.type === "token") raw += event.token;
  }
  return { raw, usage: null };
}

describe("decideOutcome", () => {
  it("judges a passage as the answer's evidence warrants", async () => {
    const draft = await extractiveDraft();
    const decision = decideOutcome(
      { index },
      { agent, model: extractive, passages: passagesFor(null), draft, fallbackMessage },
    );
    expect(decision.outcome).toBe("answered");
    expect(decision.passage).toContain("cancel an order free of charge");
    const alone = decideAnswer({
      question,
      chunks,
      raw: draft.raw,
      fallbackMessage,
      policy: "balanced",
      vocabulary: index.unknownTerms(question),
      closestPassage: extractive.closestPassage,
    });
    expect(decision).toEqual(alone);
  });

  it("is less sure of a translated question by the key words no dictionary knew", async () => {
    const draft = await extractiveDraft();
    const sure = decideOutcome(
      { index },
      { agent, model: extractive, passages: passagesFor(null), draft, fallbackMessage },
    );
    const translated = decideOutcome(
      { index },
      { agent, model: extractive, passages: passagesFor(spanish(4, 1)), draft, fallbackMessage },
    );
    // One of four words unknown: an eighth less sure.
    expect(translated.confidence).toBe(Math.round(sure.confidence * 0.875 * 1000) / 1000);
  });

  it("falls back when translation leaves too little, unless a chat model's answer is already out", async () => {
    // A strict agent doubts below 0.45; no key word of the question translated halves the confidence.
    const strict = makeAgent({ answerPolicy: "strict" });
    const lost = passagesFor(spanish(2, 2));
    const draft = await extractiveDraft();
    const sure = decideOutcome(
      { index },
      { agent: strict, model: extractive, passages: passagesFor(null), draft, fallbackMessage },
    );
    expect(sure.outcome).toBe("answered");
    expect(sure.confidence / 2).toBeLessThan(0.45);
    const extractiveLost = decideOutcome(
      { index },
      { agent: strict, model: extractive, passages: lost, draft, fallbackMessage },
    );
    expect(extractiveLost.outcome).toBe("fallback");
    const chatDraft = { raw: draft.raw, usage: null };
    const chatLost = decideOutcome(
      { index },
      { agent: strict, model: chatModel, passages: lost, draft: chatDraft, fallbackMessage },
    );
    expect(chatLost.outcome).toBe("uncertain");
  });

  it("falls back when nothing was retrieved", () => {
    const none = { ...passagesFor(null), chunks: [], pool: [] };
    const draft = { raw: fallbackMessage, usage: null };
    expect(
      decideOutcome({ index }, { agent, model: extractive, passages: none, draft, fallbackMessage }),
    ).toMatchObject({
      outcome: "fallback",
      passage: fallbackMessage,
    });
  });
});
