import { describe, expect, it } from "vitest";
import { createDefaultAnswerer } from "../answers/chat-models.ts";
import { decideAnswer, withArticlesThatMayHelp } from "./answer-outcome.ts";
import { buildSources } from "./citations.ts";
import { calibrate, outcomeFor } from "./confidence.ts";
import { confidenceFeatures } from "./confidence-features.ts";
import { HANDBOOK, makeChunk } from "./test-chunks.ts";

const FALLBACK = "Sorry, I don't know.";
const known = { terms: 3, unknown: 0 };
const base = { chunks: HANDBOOK, fallbackMessage: FALLBACK, vocabulary: known } as const;

// The first test loads WordNet (seconds on a busy machine).
describe("deciding an answer's outcome", { timeout: 30_000 }, () => {
  it("falls back with confidence 0 when nothing was retrieved, whatever the policy", () => {
    const d = decideAnswer({ ...base, chunks: [], question: "Refunds?", raw: FALLBACK, policy: "always" });
    expect(d).toMatchObject({ outcome: "fallback", confidence: 0, passage: FALLBACK });
  });

  it("treats a chat model's refusal in its own words as the fallback", () => {
    for (const raw of [
      "I couldn't find that in the provided sources.",
      "The documents don't mention a phone number.",
      "There is no information about Canada in the context.",
      FALLBACK,
    ]) {
      const d = decideAnswer({ ...base, question: "What is the phone number?", raw, policy: "always" });
      expect(d.outcome, raw).toBe("fallback");
      expect(d.declined).toBe(true);
    }
  });

  it("keeps a cited chat-model answer that mentions a missing detail, and never takes a streamed answer back", () => {
    const raw = "Refunds can be requested within 30 days [1]. I couldn't find the exact fee.";
    const d = decideAnswer({
      ...base,
      question: "How long do I have to request a refund?",
      raw,
      policy: "strict",
    });
    expect(d.declined).toBe(false);
    expect(d.outcome).not.toBe("fallback");
  });

  it("offers the extractive answerer's closest passage under `always` when it would fall back", () => {
    const model = createDefaultAnswerer();
    const question = "Is there a discount for students?";
    const d = decideAnswer({
      ...base,
      question,
      raw: FALLBACK,
      policy: "always",
      closestPassage: model.closestPassage,
    });
    expect(d.outcome).not.toBe("fallback");
    expect(d.passage).not.toBe(FALLBACK);
    expect(d.passage).toMatch(/\[\d\]/);
  });

  it("is more confident when the passage covers the question's focus than when it misses it", () => {
    const question = "How long does standard shipping take?";
    const on = confidenceFeatures({
      question,
      chunks: HANDBOOK,
      passage: "Standard shipping takes 3 to 5 business days. [2]",
      fellBack: false,
      vocabulary: known,
    });
    const off = confidenceFeatures({
      question,
      chunks: HANDBOOK,
      passage: "Acme Corp. was founded in 1998. [3]",
      fellBack: false,
      vocabulary: known,
    });
    expect(on.focus).toBeGreaterThan(off.focus);
    expect(off.kindMismatch).toBe(0); // 1998 is a number
    const yesno = confidenceFeatures({
      question: "How many people work there?",
      chunks: HANDBOOK,
      passage: "The company moved to Seattle. [3]",
      fellBack: false,
      vocabulary: known,
    });
    expect(yesno.kindMismatch).toBe(1);
  });

  it("counts the share of question words no document mentions", () => {
    const f = confidenceFeatures({
      question: "Apple Watch app?",
      chunks: HANDBOOK,
      passage: "x [1]",
      fellBack: false,
      vocabulary: { terms: 3, unknown: 2 },
    });
    expect(f.unknown).toBeCloseTo(2 / 3);
  });

  it("maps confidence to outcomes by the policy's thresholds", () => {
    const policies = {
      strict: { answer: 0.8, doubt: 0.4 },
      balanced: { answer: 0.6, doubt: 0.2 },
      lenient: { answer: 0.4, doubt: 0.1 },
      always: { answer: 0.4, doubt: 0 },
    };
    expect(outcomeFor(0.7, "strict", { policies })).toBe("uncertain");
    expect(outcomeFor(0.7, "balanced", { policies })).toBe("answered");
    expect(outcomeFor(0.3, "strict", { policies })).toBe("fallback");
    expect(outcomeFor(0.05, "always", { policies })).toBe("uncertain");
    expect(
      calibrate(0.5, [
        [0.2, 0.1],
        [0.8, 0.7],
      ]),
    ).toBeCloseTo(0.4);
    expect(
      calibrate(0.95, [
        [0.2, 0.1],
        [0.8, 0.7],
      ]),
    ).toBe(0.7);
  });

  it("lists up to three distinct documents for an uncertain answer, the cited ones first", () => {
    const chunks = [
      ...HANDBOOK,
      makeChunk(3, "Refunds", "More on refunds.", { documentId: "doc-0" }),
      makeChunk(4, "Careers", "Jobs."),
    ];
    const { sources } = buildSources("Refunds within 30 days [2]", chunks, { isFallback: false });
    const listed = withArticlesThatMayHelp(sources, chunks);
    expect(listed.map((s) => s.title)).toEqual(["Shipping", "Refunds", "Company"]);
    expect(listed.map((s) => s.rank)).toEqual([1, 2, 3]);
  });
});
