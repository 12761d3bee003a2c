import type { AnswerEvent } from "@lore/shared";
import { describe, expect, it } from "vitest";
import type { ChatModel, GenerateInput } from "../generation/types.ts";
import { createSender, fallbackMessageFor } from "./compose-answer.ts";
import { type Draft, draftAnswer } from "./draft-answer.ts";
import type { Passages } from "./retrieve-context.ts";
import { newReply } from "./store-answer.ts";
import { makeAgent, makeRetrievedChunk } from "./test-answers.ts";

const agent = makeAgent({ instructions: "Be brief." });
const passages: Passages = {
  kind: "passages",
  standalone: "Can I cancel my order after it ships?",
  retrieval: { query: "cancel order ships", translation: null },
  judged: "cancel order after ships",
  modelTranslation: null,
  chunks: [
    makeRetrievedChunk("Delivery", "Orders ship within two working days."),
    makeRetrievedChunk("Cancelling", "Once shipped, use the returns process."),
  ],
  pool: [],
};

/** A model server's answer, token by token, then its usage; records what it was asked. */
function scriptedModel(
  tokens: string[],
  extra: Partial<ChatModel> = {},
): ChatModel & { asked: GenerateInput[] } {
  const asked: GenerateInput[] = [];
  return {
    name: "openai:test",
    asked,
    async *generate(input) {
      asked.push(input);
      for (const token of tokens) yield { type: "token", token };
      yield { type: "usage", promptTokens: 200, completionTokens: tokens.length };
    },
    condense: async (question) => question,
    ...extra,
  };
}

async function draft(model: ChatModel) {
  const reply = newReply();
  const sender = createSender(reply, passages.chunks.length);
  const request = {
    agent,
    model,
    passages,
    history: [],
    fallbackMessage: fallbackMessageFor(agent, passages.standalone),
    signal: new AbortController().signal,
  };
  const events: AnswerEvent[] = [];
  const run = draftAnswer(request, sender.send);
  let next = await run.next();
  while (!next.done) {
    events.push(next.value);
    next = await run.next();
  }
  const result: Draft = next.value;
  return { events, result, reply };
}

describe("draftAnswer", () => {
  it("streams a chat model's tokens as they come, citations renumbered in order of use", async () => {
    const model = scriptedModel(["Once shipped, ", "use the returns process ", "[2", "]."]);
    const { events, result, reply } = await draft(model);
    expect(events.map((e) => (e.type === "token" ? e.token : ""))).toEqual([
      "Once shipped, ",
      "use the returns process ",
      "[1].",
    ]);
    expect(reply.text).toBe("Once shipped, use the returns process [1].");
    expect(result).toEqual({
      raw: "Once shipped, use the returns process [2].",
      usage: { type: "usage", promptTokens: 200, completionTokens: 4 },
    });
    // A chat model reads the visitor's own words and the agent's instructions.
    expect(model.asked[0]).toMatchObject({ question: passages.standalone, instructions: "Be brief." });
  });

  it("holds back the extractive answerer's draft, asked in the words the passages are judged on", async () => {
    const model = scriptedModel(["Once shipped, use the returns process. [2]"], { closestPassage: () => "" });
    const { events, result, reply } = await draft(model);
    expect(events).toEqual([]);
    expect(reply.text).toBe("");
    expect(result.raw).toBe("Once shipped, use the returns process. [2]");
    expect(model.asked[0]?.question).toBe(passages.judged);
  });
});
