import { describe, expect, it } from "vitest";
import { TermVariants } from "./term-variants.ts";

function variantsOf(vocabulary: string[], term: string): string[] {
  const variants = new TermVariants();
  for (const word of vocabulary) variants.add(word);
  const known = new Set(vocabulary);
  return variants.of(term, (candidate) => known.has(candidate)).sort();
}

describe("TermVariants", () => {
  const vocabulary = [
    "jahr",
    "jahren",
    "jahresbericht",
    "bericht",
    "spielzeit",
    "zeit",
    "warschau",
    "zeitung",
  ];

  it("finds the shorter terms a word starts or ends with", () => {
    expect(variantsOf(vocabulary, "warschaus")).toEqual(["warschau"]);
    expect(variantsOf(vocabulary, "jahresbericht")).toEqual(["bericht", "jahr"]);
  });

  it("finds the longer terms that start or end with a word", () => {
    expect(variantsOf(vocabulary, "zeit")).toEqual(["spielzeit", "zeitung"]);
    expect(variantsOf(vocabulary, "jahr")).toEqual(["jahren", "jahresbericht"]);
  });

  it("leaves short words, numbers and middles alone", () => {
    expect(variantsOf(["art", "article", "1990s", "1990"], "art")).toEqual([]);
    expect(variantsOf(["1990s", "1990"], "1990")).toEqual([]);
    expect(variantsOf(["abendzeitung"], "zeit")).toEqual([]);
  });

  it("finds terms added after many others (merged in batches)", () => {
    const variants = new TermVariants();
    for (let i = 0; i < 5000; i++)
      variants.add(`filler${String.fromCharCode(97 + (i % 26))}${i.toString(36)}x`);
    variants.add("bericht");
    variants.add("jahresbericht");
    const known = new Set(["bericht", "jahresbericht"]);
    expect(variants.of("bericht", (t) => known.has(t))).toEqual(["jahresbericht"]);
  });
});
