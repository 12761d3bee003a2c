// Issue #29: confidence is 0 for a passage that shares nothing with the question.
import { describe, expect, it } from "vitest";
import { confidenceOf, judge, outcomeFor } from "./confidence.ts";
import { makeChunk } from "./test-chunks.ts";

const vocabulary = { terms: 4, unknown: 2 };

describe("answer confidence", () => {
  it("is 0 when neither the passage nor its title shares a term with the question, whatever the scores", () => {
    const chunks = [makeChunk(0, "Shipping", "Orders ship within two working days.", { score: 0.9 })];
    const { confidence, features } = judge({
      question: "Do you have a store on Mars?",
      chunks,
      passage: "Orders ship within two working days. [1]",
      fellBack: true,
      vocabulary,
    });
    expect(features.focus).toBe(0);
    expect(features.titleFocus).toBe(0);
    expect(confidence).toBe(0);
    expect(outcomeFor(confidence, "balanced")).toBe("fallback");
    expect(outcomeFor(confidence, "lenient")).toBe("fallback");
    expect(outcomeFor(confidence, "always")).toBe("uncertain");
    // The same evidence with one shared term is the model's to weigh.
    expect(confidenceOf({ ...features, titleFocus: 0.2 })).toBeGreaterThan(0);
  });

  it("weighs a passage that does share the question's terms", () => {
    const chunks = [makeChunk(0, "Shipping times", "Orders ship within two working days.", { score: 0.9 })];
    const { confidence } = judge({
      question: "How long does shipping take?",
      chunks,
      passage: "Orders ship within two working days. [1]",
      fellBack: false,
      vocabulary: { terms: 3, unknown: 0 },
    });
    expect(confidence).toBeGreaterThan(0.3);
  });
});
