import { describe, expect, it } from "vitest";
import { analyze } from "../retrieval/text-analysis.ts";
import { stemGreek } from "./analyzers.ts";
import { tokenizeTerms, tokenizeTermsIn, tokenizeWords } from "./normalize.ts";

const shared = (a: readonly string[], b: readonly string[]) => a.filter((t) => b.includes(t));

describe("Greek analysis", () => {
  it("indexes a noun's cases and a verb's accents as one term", () => {
    const question = analyze("Πότε ιδρύθηκε το Πανεπιστήμιο;");
    const passage = analyze(
      "Η ίδρυση του πανεπιστημίου έγινε το 1837, και τα κτήρια των πανεπιστημίων ακολούθησαν.",
    );
    expect(shared(question, passage)).toContain(stemGreek("πανεπιστήμιο"));
    expect(stemGreek("Πανεπιστήμιο")).toBe(stemGreek("πανεπιστημίων"));
    expect(stemGreek("βασιλιάς")).toBe(stemGreek("βασιλιά"));
  });

  it("drops Greek function words from the index", () => {
    expect(analyze("το και της")).toEqual([]);
  });

  it("matches inflected forms in the answerer's terms", () => {
    expect(shared(tokenizeTerms("του πανεπιστημίου"), tokenizeTerms("Το Πανεπιστήμιο"))).toHaveLength(1);
  });
});

describe("Turkish analysis", () => {
  it("keeps a word that starts with a capital İ whole", () => {
    expect(tokenizeWords("İstanbul'da İzmir")).toEqual(["istanbul'da", "izmir"]);
  });

  it("reads a proper name with its case ending after the apostrophe as the name", () => {
    const passage = tokenizeTermsIn("Fatih Sultan Mehmet 1453 yılında İstanbul'u fethetti.", "tr");
    const question = tokenizeTermsIn("Fatih Sultan Mehmet İstanbul'u ne zaman aldı?", "tr");
    expect(passage).toContain("istanbul");
    expect(question).toContain("istanbul");
  });

  it("drops question words from a Turkish question's terms", () => {
    expect(tokenizeTermsIn("Kaç kişi geldi?", "tr")).not.toContain("kaç");
  });
});
