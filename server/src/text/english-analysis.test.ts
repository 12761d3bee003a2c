import { describe, expect, it } from "vitest";
import { analyze, analyzeTokens, tokenize } from "../retrieval/text-analysis.ts";
import { stemWord, tokenizeTerms, tokenizeWords } from "./normalize.ts";
import { splitSentences } from "./sentences.ts";

// English retrieval and answers are tuned against these exact outputs: language support must not move them.
const pins = [
  {
    text: "How do I reset my password if I can't log in?",
    tokens: ["how", "do", "i", "reset", "my", "password", "if", "i", "can", "t", "log", "in"],
    analyzed: ["reset", "password", "log"],
    words: ["how", "do", "i", "reset", "my", "password", "if", "i", "can't", "log", "in"],
    terms: ["reset", "password", "log"],
  },
  {
    text: "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy.",
    tokens: [
      "the",
      "normans",
      "were",
      "the",
      "people",
      "who",
      "in",
      "the",
      "10th",
      "and",
      "11th",
      "centuries",
      "gave",
      "their",
      "name",
      "to",
      "normandy",
    ],
    analyzed: ["norman", "peopl", "10th", "11th", "centuri", "gave", "name", "normandi"],
    words: [
      "the",
      "normans",
      "were",
      "the",
      "people",
      "who",
      "in",
      "the",
      "10th",
      "and",
      "11th",
      "centuries",
      "gave",
      "their",
      "name",
      "to",
      "normandy",
    ],
    terms: ["norman", "peopl", "10th", "11th", "century", "gav", "nam", "normandy"],
  },
  {
    text: "Café owners’ naïve résumé — “quoted” text, 1990s, COVID-19 and e-mail.",
    tokens: [
      "cafe",
      "owners",
      "naive",
      "resume",
      "quoted",
      "text",
      "1990s",
      "covid",
      "19",
      "and",
      "e",
      "mail",
    ],
    analyzed: ["cafe", "owner", "naiv", "resum", "quot", "text", "1990s", "covid", "19", "e", "mail"],
    words: [
      "café",
      "owners",
      "naïve",
      "résumé",
      "quoted",
      "text",
      "1990s",
      "covid",
      "19",
      "and",
      "e",
      "mail",
    ],
    terms: ["café", "owner", "naïv", "résumé", "quot", "text", "1990s", "covid", "19", "e", "mail"],
  },
  {
    text: "What year did Tesla's company go public? It was founded in 2003 by Martin Eberhard.",
    tokens: [
      "what",
      "year",
      "did",
      "tesla",
      "s",
      "company",
      "go",
      "public",
      "it",
      "was",
      "founded",
      "in",
      "2003",
      "by",
      "martin",
      "eberhard",
    ],
    analyzed: ["year", "tesla", "compani", "go", "public", "found", "2003", "martin", "eberhard"],
    words: [
      "what",
      "year",
      "did",
      "tesla's",
      "company",
      "go",
      "public",
      "it",
      "was",
      "founded",
      "in",
      "2003",
      "by",
      "martin",
      "eberhard",
    ],
    terms: ["year", "tesla", "company", "go", "public", "found", "2003", "martin", "eberhard"],
  },
];

describe("English analysis stays as tuned", () => {
  it.each(pins)("keeps the retrieval tokens and terms of $text", (pin) => {
    expect(tokenize(pin.text)).toEqual(pin.tokens);
    expect(analyze(pin.text)).toEqual(pin.analyzed);
    expect(analyzeTokens(pin.tokens)).toEqual(pin.analyzed);
  });

  it.each(pins)("keeps the answerer's words and terms of $text", (pin) => {
    expect(tokenizeWords(pin.text)).toEqual(pin.words);
    expect(tokenizeTerms(pin.text)).toEqual(pin.terms);
  });

  it("keeps the light stemmer's forms", () => {
    expect(["running", "studies", "Café", "naïve", "don't", "rivers"].map(stemWord)).toEqual([
      "run",
      "study",
      "Café",
      "naïv",
      "don't",
      "river",
    ]);
  });

  it("keeps English sentence boundaries", () => {
    const text =
      "Dr. Smith arrived at 5 p.m. Shipping is free. Visit the U.S. Army site! Is it “open”? Yes.\n\nNext para";
    expect(splitSentences(text)).toEqual([
      { text: "Dr. Smith arrived at 5 p.m.", start: 0, end: 27 },
      { text: "Shipping is free.", start: 28, end: 45 },
      { text: "Visit the U.S. Army site!", start: 46, end: 71 },
      { text: "Is it “open”?", start: 72, end: 85 },
      { text: "Yes.", start: 86, end: 90 },
      { text: "Next para", start: 92, end: 101 },
    ]);
  });
});
