import { describe, expect, it } from "vitest";
import { composeExtractiveAnswer } from "../generation/extractive-model.ts";
import type { RetrievedChunk } from "../generation/types.ts";
import { Dictionary } from "../text/translate/dictionary.ts";
import { translateQuestion, type WordStatus } from "../text/translate/translate-question.ts";
import { judgedQuestion } from "./search-knowledge.ts";

const chunk: RetrievedChunk = {
  chunkId: "c1",
  documentId: "d1",
  dataSourceId: "s1",
  dataSourceName: "FAQ",
  kind: "text",
  title: "Delivery",
  sourceUrl: null,
  text: "Delivery takes three to five business days. Orders over 50 euros ship for free.",
  score: 0.4,
  page: null,
  headingPath: [],
};

const held = new Set(["delivery", "take", "takes", "days", "orders", "ship", "free", "euros"]);
const status = (word: string): WordStatus => (held.has(word) ? "known" : "unknown");
const russian = new Dictionary("ru", "test", "test", [
  ["доставка", ["delivery"]],
  ["сколько", ["how much"]],
  ["дней", ["days"]],
]);

describe("judgedQuestion", () => {
  // A question about the FAQ's delivery times naming a courier and cities no document mentions.
  const translation = translateQuestion(
    "Сколько дней идёт доставка курьером Лесопромторг из Екатеринбурга в Новосибирск?",
    russian,
    status,
  );

  it("leaves out the words neither the documents nor a dictionary knew", () => {
    expect(translation.untranslated).toBe(5);
    const judged = judgedQuestion({ query: translation.query, translation }, [chunk]);
    expect(judged).toBe("days delivery");
  });

  it("so the passage that answers what was understood is offered, not the fallback", () => {
    const judged = judgedQuestion({ query: translation.query, translation }, [chunk]);
    expect(composeExtractiveAnswer(judged, [chunk], "FALLBACK").answer).toContain("three to five");
    // Judged with the unread words, as before, the same passage fell below the evidence floor.
    expect(composeExtractiveAnswer(translation.query, [chunk], "FALLBACK").answer).toBe("FALLBACK");
  });
});
