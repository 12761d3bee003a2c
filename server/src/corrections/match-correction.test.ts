import { describe, expect, it } from "vitest";
import type { Embedder } from "../retrieval/embedder.ts";
import {
  analyzeQuestion,
  isSemantic,
  prepareEntry,
  rarityAmong,
  sameQuestion,
  scoreEntry,
} from "./match-correction.ts";

/** Whether `asked` reaches a correction written for `question` (with `answer`) by its words alone. */
const reaches = (question: string, asked: string, answer = "", alsoAnswers: string[] = []) => {
  const entry = prepareEntry(question, alsoAnswers, answer);
  return sameQuestion(scoreEntry(analyzeQuestion(asked), entry, rarityAmong([entry])), null);
};

describe("matching a question to a correction as an FAQ entry", () => {
  it.each([
    ["How do I cancel my subscription?", "How can I cancel the subscription?"],
    ["How do I cancel my subscription?", "Cancelling subscriptions: how do I do that?"],
    ["How do I reset my password?", "How can my password be reset?"],
    ["What are your opening hours?", "What hours are you open?"],
    ["What are your opening hours?", "When are you open?"],
    ["How do I start a free trial?", "How do I begin a free trial?"],
    ["How do I end my subscription?", "How do I terminate my subscription?"],
    ["How long is the warranty on the Zephyr-9 probe?", "what warranty does zephyr 9 come with?"],
    ["How long is the warranty on the Zephyr-9 probe?", "how long is the zephyr9 warranty"],
    ["How much does gift wrapping cost?", "What's the price of gift wrapping?"],
    ["How do I cancel my subscription?", "Where do I cancel my subscription?"],
    // analytics lists questions lower-cased without punctuation; the console adds answers from there
    ["whats the refund policy", "What's the refund policy?"],
  ])("lets a correction for %j answer %j", (question, asked) => {
    expect(reaches(question, asked)).toBe(true);
  });

  it.each([
    ["How do I cancel my subscription?", "How much does a subscription cost?"],
    ["How do I cancel my subscription?", "What happens if I cancel my subscription?"],
    ["How do I cancel my subscription?", "What happens when I cancel my subscription?"],
    ["How do I cancel my monthly subscription?", "How do I cancel my annual subscription?"],
    ["How do I reset my password?", "How long is a password reset link valid?"],
    ["Do you ship to Canada?", "How much is shipping to Canada?"],
    ["Do you ship to Canada?", "Don't you ship to Canada?"],
    ["Do you ship to Canada?", "Do you ship to Mexico?"],
    ["Can I get a refund?", "How long does a refund take?"],
    ["How long is the warranty on the Zephyr-9 probe?", "How much does the Zephyr-9 probe cost?"],
    ["How long is the warranty on the Zephyr-9 probe?", "zephyr 9"],
    ["How do I cancel my subscription?", "Hello"],
  ])("keeps a correction for %j from %j", (question, asked) => {
    expect(reaches(question, asked)).toBe(false);
    expect(reaches(asked, question)).toBe(false);
  });

  it("reaches a wording the owner added, and counts the answer's words a little", () => {
    const question = "Do you ship to Canada?";
    expect(reaches(question, "Can you send my parcel to Toronto?")).toBe(false);
    expect(
      reaches(question, "Can you send my parcel to Toronto?", "", ["Do you send parcels to Toronto?"]),
    ).toBe(true);
  });

  it("weighs a word many corrections share less than one that tells them apart", () => {
    const entries = [
      prepareEntry("How do I cancel my subscription?", [], ""),
      prepareEntry("How do I pause my subscription?", [], ""),
      prepareEntry("How do I upgrade my subscription?", [], ""),
    ];
    const rarity = rarityAmong(entries);
    expect(rarity("subscript")).toBeLessThan(rarity("cancel"));
  });
});

describe("matching with an embedding model", () => {
  const model = (name: string): Embedder => ({
    name,
    dimensions: 2,
    embed: async (t) => t.map(() => new Float32Array(2)),
  });

  it("trusts a close embedding alone, a fairly close one only with shared words", () => {
    expect(sameQuestion(0, 0.93)).toBe(true);
    expect(sameQuestion(0.5, 0.82)).toBe(true);
    expect(sameQuestion(0.2, 0.82)).toBe(false);
    expect(sameQuestion(0.5, 0.7)).toBe(false);
  });

  it("does not take the hashed embedder for one that captures meaning", () => {
    expect(isSemantic(model("hashed:256"))).toBe(false);
    expect(isSemantic(model("openai:text-embedding-3-small"))).toBe(true);
    expect(isSemantic(null)).toBe(false);
  });
});
