import { describe, expect, it } from "vitest";
import { condenseHeuristically, looksLikeFollowUp } from "./condense.ts";
import type { ChatMessage } from "./types.ts";

const after = (...questions: string[]): ChatMessage[] =>
  questions.flatMap((q) => [
    { role: "user" as const, content: q },
    { role: "assistant" as const, content: "An answer. [1]" },
  ]);

describe("looksLikeFollowUp", () => {
  it("spots pronouns, elliptic openings and very short questions", () => {
    expect(looksLikeFollowUp("When was it founded?")).toBe(true);
    expect(looksLikeFollowUp("And in Canada?")).toBe(true);
    expect(looksLikeFollowUp("What about London?")).toBe(true);
    expect(looksLikeFollowUp("Pricing?")).toBe(true);
    expect(looksLikeFollowUp("How long does standard shipping take?")).toBe(false);
  });
});

describe("condenseHeuristically", () => {
  it("appends the earlier question's topic to a pronoun follow-up", () => {
    expect(
      condenseHeuristically("When was it founded?", after("Tell me about the University of Chicago.")),
    ).toBe("When was it founded? University Chicago");
  });

  it("keeps the new subject of a 'what about' question and carries over only what was asked", () => {
    expect(condenseHeuristically("What about London?", after("What is the population of Paris?"))).toBe(
      "What about London? population",
    );
  });

  it("reaches back past a follow-up to the original topic", () => {
    const history = after("What is the refund policy of Acme?", "Does it cover downloads?");
    expect(condenseHeuristically("And how long does it take?", history)).toBe(
      "And how long does it take? refund policy Acme cover downloads",
    );
  });

  it("leaves standalone questions and first questions unchanged", () => {
    expect(condenseHeuristically("How long does standard shipping take?", after("Who founded Acme?"))).toBe(
      "How long does standard shipping take?",
    );
    expect(condenseHeuristically("When was it founded?", [])).toBe("When was it founded?");
  });
});
