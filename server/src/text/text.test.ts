import { countTokens as countBpeTokens } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { normalizeAnswer, stemWord, tokenizeTerms } from "./normalize.ts";
import { splitSentences } from "./sentences.ts";
import { countTokens, tokensUpTo } from "./tokens.ts";

describe("normalizeAnswer", () => {
  it("lowercases and drops punctuation, articles and extra spaces the SQuAD way", () => {
    expect(normalizeAnswer("  The  Levi's Stadium, in Santa Clara! ")).toBe("levis stadium in santa clara");
    expect(normalizeAnswer("An apple a day")).toBe("apple day");
  });
});

describe("tokenizeTerms", () => {
  it("drops stop words and folds inflections onto one stem", () => {
    expect(tokenizeTerms("What are the rivers of the cities?")).toEqual(["river", "city"]);
    expect(stemWord("founded")).toBe(stemWord("founding"));
    expect(stemWord("named")).toBe(stemWord("name"));
    expect(stemWord("stopped")).toBe("stop");
  });
});

describe("splitSentences", () => {
  it("keeps abbreviations, initials and decimals inside their sentence", () => {
    const text =
      'Dr. Smith moved to the U.S. Army in 1990. He paid $3.50 for it! J. R. R. Tolkien wrote "The Hobbit." It sold approx. five million copies.';
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      "Dr. Smith moved to the U.S. Army in 1990.",
      "He paid $3.50 for it!",
      'J. R. R. Tolkien wrote "The Hobbit."',
      "It sold approx. five million copies.",
    ]);
  });

  it("ends sentences at blank lines, list items and a.m./p.m. before a new sentence", () => {
    const text = "Orders ship at 2 p.m. Shipping is free\n\n# Returns\n- item one\n- item two";
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      "Orders ship at 2 p.m.",
      "Shipping is free",
      "# Returns",
      "- item one",
      "- item two",
    ]);
  });

  it("reports spans that point back into the text", () => {
    const text = "First one.  Second one.";
    const [, second] = splitSentences(text);
    expect(second && text.slice(second.start, second.end)).toBe("Second one.");
  });
});

describe("countTokens", () => {
  it("counts with the o200k tokenizer and treats special tokens as plain text", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("The quick brown fox.")).toBe(5);
    expect(countTokens("hi <|endoftext|> there")).toBeGreaterThan(3);
  });

  it("counts very long texts in slices to within a fraction of a percent", () => {
    const text = "Lore answers questions from your own documents. ".repeat(12_000);
    const exact = 8 * 12_000;
    expect(Math.abs(countTokens(text) - exact) / exact).toBeLessThan(0.005);
  });

  it("counts a megabyte without whitespace in slices, close to the exact count", () => {
    // Exact BPE on one 1 MB pre-token takes minutes (quadratic merging); the sliced count is linear.
    const blob = "QmFzZTY0IGRhdGEgaW4gYW4gSFRNTCBwYWdl".repeat(28_000);
    const sample = blob.slice(0, 3_000);
    const exactSample = countBpeTokens(sample);
    expect(Math.abs(countTokens(sample) - exactSample) / exactSample).toBeLessThan(0.03);
    const perChar = countTokens(sample) / sample.length;
    expect(countTokens(blob) / blob.length).toBeCloseTo(perChar, 2);
    expect(tokensUpTo(blob, 256)).toBeGreaterThan(256);
    expect(tokensUpTo(blob, 256)).toBeLessThan(400); // stopped early
  });
});
