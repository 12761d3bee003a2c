import { describe, expect, it } from "vitest";
import type { Embedder } from "../retrieval/embedder.ts";
import { analyzeQuestion, isSemantic, lexicalSimilarity, sameQuestion } from "./match-correction.ts";

const same = (a: string, b: string) =>
  sameQuestion(lexicalSimilarity(analyzeQuestion(a), analyzeQuestion(b)), null);

describe("matching a question to a correction's question by its words", () => {
  it.each([
    ["How do I cancel my subscription?", "How can I cancel the subscription?"],
    ["How do I cancel my subscription?", "Cancelling subscriptions: how do I do that?"],
    ["How do I reset my password?", "How can my password be reset?"],
    ["What are your opening hours?", "What hours are you open?"],
    ["How do I start a free trial?", "How do I begin a free trial?"],
    ["How do I end my subscription?", "How do I terminate my subscription?"],
    // analytics lists questions lower-cased without punctuation; the console adds answers from there
    ["whats the refund policy", "What's the refund policy?"],
  ])("takes %j and %j as the same question", (a, b) => {
    expect(same(a, b)).toBe(true);
    expect(same(b, a)).toBe(true);
  });

  it.each([
    ["How do I cancel my subscription?", "How much does a subscription cost?"],
    ["How do I cancel my subscription?", "What happens if I cancel my subscription?"],
    ["How do I cancel my subscription?", "What happens when I cancel my subscription?"],
    ["How do I cancel my monthly subscription?", "How do I cancel my annual subscription?"],
    ["How do I reset my password?", "How long is a password reset link valid?"],
    ["Do you ship to Canada?", "How much is shipping to Canada?"],
    ["Do you ship to Canada?", "Don't you ship to Canada?"],
    ["Can I get a refund?", "How long does a refund take?"],
    ["How do I cancel my subscription?", "Hello"],
  ])("keeps %j and %j apart", (a, b) => {
    expect(same(a, b)).toBe(false);
    expect(same(b, a)).toBe(false);
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
