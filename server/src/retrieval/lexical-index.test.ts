import { describe, expect, it } from "vitest";
import { defaultLexicalParams, LexicalIndex } from "./lexical-index.ts";
import { addMixedCorpus, helpTexts } from "./test-texts.ts";

/** Adds articles (one chunk each unless split) and returns the titles ranked for a query. */
function rank(
  articles: { title: string; chunks: string[] }[],
  query: string,
  params: Partial<typeof defaultLexicalParams> = {},
): string[] {
  const index = new LexicalIndex({ ...defaultLexicalParams, ...params });
  const titleOf: string[] = [];
  articles.forEach((article, group) => {
    for (const chunk of article.chunks) titleOf[index.add(chunk, article.title, 0, group)] = article.title;
  });
  const scored = index.search(query, new Set([0])).map((c) => ({
    title: titleOf[c.slot] ?? "",
    score: c.features.bm25 + c.features.docCoverage + c.features.docRel,
  }));
  return [...new Set(scored.sort((a, b) => b.score - a.score).map((s) => s.title))];
}

const HELP = [
  { title: "Refunds", chunks: ["Refunds are issued within 14 days of purchase."] },
  {
    title: "Shipping",
    chunks: ["Standard shipping takes 5 to 7 business days; express shipping takes 2 days."],
  },
  { title: "Passwords", chunks: ["Reset your password from the sign-in page."] },
];

describe("lexical index on help articles", () => {
  it("scores a word of the title like a word of the body (field-weighted BM25)", () => {
    const articles = [
      { title: "Delete your account", chunks: ["Open settings and choose the last option."] },
      { title: "Settings", chunks: ["Your account settings hold your name and email."] },
    ];
    expect(rank(articles, "delete account")[0]).toBe("Delete your account");
    expect(rank(articles, "delete account", { titleWeight: 0 })[0]).toBe("Settings");
  });

  it("corrects a misspelt word to a known word one edit away", () => {
    expect(rank(HELP, "pasword reset")[0]).toBe("Passwords");
    expect(rank(HELP, "pasword reset", { typos: false, titleWeight: 0 })[0]).toBe("Passwords");
    expect(rank(HELP, "refnuds", { typos: false })).toEqual([]);
    expect(rank(HELP, "refnuds")[0]).toBe("Refunds");
  });

  it("reaches an article through WordNet relatives of everyday words", () => {
    expect(rank(HELP, "get my money back")[0]).toBe("Refunds");
    expect(rank(HELP, "get my money back", { synonyms: null })).toEqual([]);
  });

  it("pools the evidence of an article's chunks", () => {
    const index = new LexicalIndex();
    const a = index.add("The plan costs nine dollars.", "Pricing", 0, 0);
    index.add("Students get a discount on the plan.", "Pricing", 0, 0);
    const b = index.add("The plan costs nine dollars.", "Other", 0, 1);
    const features = new Map(
      index.search("student plan costs", new Set([0])).map((c) => [c.slot, c.features]),
    );
    expect(features.get(a)?.docCoverage).toBe(1);
    expect(features.get(b)?.docCoverage).toBeLessThan(1);
    expect(features.get(a)?.docRel).toBe(1);
  });
});

describe("lexical index on compounds and inflections", () => {
  const GERMAN = [
    { title: "A", chunks: ["Der Bericht steht im Archiv der Gemeinde."] },
    { title: "B", chunks: ["Die Lieferung kommt per Post an die Adresse."] },
    { title: "C", chunks: ["Die Spielzeit beginnt im September."] },
  ];

  it("finds the word a compound of the question ends with, and compounds ending with a word of the question", () => {
    expect(rank(GERMAN, "Jahresbericht")).toEqual(["A"]);
    expect(rank(GERMAN, "Jahresbericht", { variants: 0 })).toEqual([]);
    expect(rank(GERMAN, "Zeit")[0]).toBe("C");
    expect(rank(GERMAN, "Zeit", { variants: 0 })).toEqual([]);
  });

  it("finds variants in an index loaded from a snapshot", () => {
    const index = new LexicalIndex();
    GERMAN.forEach((article, group) => {
      index.add(article.chunks[0] ?? "", article.title, 0, group);
    });
    const loaded = LexicalIndex.fromState(defaultLexicalParams, index.captureState());
    expect(loaded.search("Jahresbericht", new Set([0])).map((c) => c.slot)).toEqual([0]);
  });

  it("leaves English questions to the English stemmer", () => {
    const articles = [{ title: "Guide", chunks: ["The zorpfield guide lists every level."] }];
    expect(rank(articles, "how do I zorp")).toEqual([]);
    expect(rank(articles, "Spieler zorp")).toEqual(["Guide"]);
  });

  it("ranks an exact word above its variant", () => {
    const articles = [
      { title: "Compound", chunks: ["Der Jahresbericht steht im Archiv."] },
      { title: "Exact", chunks: ["Der Bericht steht im Archiv."] },
    ];
    expect(rank(articles, "Bericht")).toEqual(["Exact", "Compound"]);
  });
});

describe("lexical search over most of the index", () => {
  /** The index of `texts`, and the same with `dead` more chunks added and removed after them. */
  function twins(texts: string[], dead: number): [LexicalIndex, LexicalIndex] {
    const small = new LexicalIndex();
    const large = new LexicalIndex();
    for (const text of texts) {
      small.add(text, "", 0);
      large.add(text, "", 0);
    }
    // Removed again: the same statistics (so the same scores), but ten times the slots, so a
    // question touches a small share of them.
    const added = Array.from({ length: dead }, (_, i) => large.add(`alpha beta filler${i}`, "", 0));
    for (const slot of added) large.remove(slot);
    return [small, large];
  }

  it("returns the same chunks, features and order whether a question touches most slots or few", () => {
    const texts = Array.from(
      { length: 400 },
      (_, i) => `alpha ${Array.from({ length: 1 + (i % 50) }, (_, j) => `word${j}`).join(" ")} beta${i % 7}`,
    );
    const [small, large] = twins(texts, 4_000);
    for (const query of ["alpha", "alpha word3 word40", "beta3 alpha"]) {
      const a = small.search(query, new Set([0]));
      const b = large.search(query, new Set([0]));
      expect(a.length).toBeGreaterThan(0);
      expect(a).toEqual(b);
    }
  });

  it("keeps the first-touched of chunks tied at the cut-off, as a search over few slots does", () => {
    // Every chunk scores the same for "alpha beta", and "alpha" (scored first) touches the last 200
    // slots before "beta" touches the first 200: which 100 of the 400 tied chunks stay depends on
    // that order, not on slot numbers.
    const texts = Array.from({ length: 400 }, (_, i) => (i < 200 ? "beta gamma" : "alpha gamma"));
    const [small, large] = twins(texts, 4_000);
    const a = small.search("alpha beta", new Set([0]));
    const b = large.search("alpha beta", new Set([0]));
    expect(a).toHaveLength(100);
    expect(a.map((c) => c.slot)).toEqual(b.map((c) => c.slot));
  });
});

describe("lexical search a block of slots at a time", () => {
  /** The same chunks in an index that searches a list at a time and in one taking 64 slots at a time. */
  function pair(add: (index: LexicalIndex) => void): [LexicalIndex, LexicalIndex] {
    const whole = new LexicalIndex(defaultLexicalParams, 2 ** 30);
    const blocks = new LexicalIndex(defaultLexicalParams, 64);
    add(whole);
    add(blocks);
    return [whole, blocks];
  }

  it("returns the same candidates and features as a search a list at a time", () => {
    const [whole, blocks] = pair(addMixedCorpus);
    const questions = [
      "refund my payment",
      "reset the account password",
      "zorbex",
      "order card invoice shipping",
    ];
    for (const question of questions) {
      for (const allowed of [new Set([0, 1, 2, 3, 4]), new Set([1, 4]), new Set([2])]) {
        const expected = whole.search(question, allowed);
        expect(expected.length).toBeGreaterThan(0);
        expect(blocks.search(question, allowed)).toEqual(expected);
      }
    }
  });

  it("gives the same candidates whether the chunks fill the index or lie among many removed ones", () => {
    // The same live chunks; the second index also has 4,000 removed chunks of other words, so its
    // blocks of slots hold few of them, and the tie at the cut-off is decided over 69 blocks, not 7.
    const texts = Array.from({ length: 400 }, (_, i) => (i < 200 ? "beta gamma" : "alpha gamma"));
    const few = new LexicalIndex(defaultLexicalParams, 64);
    const many = new LexicalIndex(defaultLexicalParams, 64);
    for (const text of texts) few.add(text, "", 0);
    for (const text of texts) many.add(text, "", 0);
    const removed = Array.from({ length: 4_000 }, (_, i) => many.add(`filler${i} padding`, "", 0));
    for (const slot of removed) many.remove(slot);
    for (const question of ["alpha beta", "beta gamma", "gamma"]) {
      const expected = few.search(question, new Set([0]));
      expect(expected).toHaveLength(100);
      expect(many.search(question, new Set([0]))).toEqual(expected);
    }
  });

  it("skips the blocks where another source's chunks lie, ties at the cut-off included", () => {
    // Source 0 holds the first and the last 200 slots, source 1 the 3,600 between (56 blocks of 64
    // slots that a question scoped to source 0 has no entry in, and passes over).
    const [whole, blocks] = pair((index) => {
      for (let i = 0; i < 4_000; i++) {
        const mine = i < 200 || i >= 3_800;
        index.add(
          mine ? (i < 200 ? "beta gamma" : "alpha gamma") : "alpha beta gamma delta",
          "",
          mine ? 0 : 1,
        );
      }
    });
    for (const question of ["alpha beta", "gamma", "delta"]) {
      const expected = whole.search(question, new Set([0]));
      expect(blocks.search(question, new Set([0]))).toEqual(expected);
      expect(blocks.search(question, new Set([0, 1]))).toEqual(whole.search(question, new Set([0, 1])));
    }
    const tied = whole.search("alpha beta", new Set([0]));
    expect(tied).toHaveLength(100);
    expect(tied.every((c) => c.slot >= 3_800)).toBe(true);
  });

  it("keeps the chunks tied at the cut-off that a list at a time touches first", () => {
    // As in "keeps the first-touched of chunks tied at the cut-off": block by block the first 200
    // slots are touched first, a list at a time the last 200 ("alpha" is scored first).
    const texts = Array.from({ length: 400 }, (_, i) => (i < 200 ? "beta gamma" : "alpha gamma"));
    const [whole, blocks] = pair((index) => {
      for (const text of texts) index.add(text, "", 0);
    });
    const expected = whole.search("alpha beta", new Set([0]));
    expect(expected).toHaveLength(100);
    expect(expected.every((c) => c.slot >= 200)).toBe(true);
    expect(blocks.search("alpha beta", new Set([0]))).toEqual(expected);
  });
});

describe("lexical index with its postings packed (after a rebuild)", () => {
  it("searches as before packing, and after more chunks are added and removed", () => {
    let seed = 5;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const words = ["payment", "refund", "invoice", "account", "password", "shipping", "order", "card"];
    const text = () =>
      Array.from(
        { length: 3 + Math.floor(random() * 7) },
        () => words[Math.floor(random() * words.length)],
      ).join(" ");
    const texts = Array.from({ length: 2_400 }, text);
    const grown = new LexicalIndex(defaultLexicalParams, 64);
    const packed = new LexicalIndex(defaultLexicalParams, 64);
    for (const index of [grown, packed])
      texts.forEach((t, i) => {
        index.add(t, i % 7 === 0 ? "Refund policy" : "", i % 3, Math.floor(i / 4));
      });
    packed.packPostings();
    const questions = ["refund my payment", "reset the account password", "order card invoice shipping"];
    const same = () => {
      for (const question of questions)
        for (const allowed of [new Set([0, 1, 2]), new Set([1])]) {
          const expected = grown.search(question, allowed);
          expect(expected.length).toBeGreaterThan(0);
          expect(packed.search(question, allowed)).toEqual(expected);
        }
    };
    same();
    // Appends move a packed list out of its page; removals leave dead slots in it.
    const more = Array.from({ length: 600 }, text);
    for (const index of [grown, packed]) {
      more.forEach((t, i) => {
        index.add(t, "", (i % 2) + 1, 1_000 + i);
      });
      for (let slot = 0; slot < 300; slot += 3) index.remove(slot);
    }
    same();
    const saved = packed.captureState();
    expect(
      LexicalIndex.fromState(defaultLexicalParams, saved).search(questions[0] ?? "", new Set([0, 1, 2])),
    ).toEqual(grown.search(questions[0] ?? "", new Set([0, 1, 2])));
    saved.release();
  });
});

describe("lexical search after the index changes", () => {
  it("scores as an index that never searched does, once chunks are added, removed or compacted", () => {
    // The length norms a search computes stay for the next one; every change must renew them (each
    // changes the average length, and a removed chunk scores nothing).
    const texts = helpTexts(23, 1_500);
    const questions = ["refund my payment", "card shipping order zorbex", "account password invoice"];
    const allowed = new Set([0, 1]);
    const searched = new LexicalIndex(defaultLexicalParams, 64);
    const search = (index: LexicalIndex) => questions.map((q) => index.search(q, allowed));
    const fresh = (steps: number) => {
      const index = new LexicalIndex(defaultLexicalParams, 64);
      changes.slice(0, steps).forEach((change) => {
        change(index);
      });
      return index;
    };
    const changes = [
      (index: LexicalIndex) => {
        texts.slice(0, 1_000).forEach((t, i) => {
          index.add(t, "", i % 2, Math.floor(i / 3));
        });
      },
      (index: LexicalIndex) => {
        texts.slice(1_000).forEach((t, i) => {
          index.add(`${t} ${t}`, "", i % 2, 400 + i);
        });
      },
      (index: LexicalIndex) => {
        for (let slot = 0; slot < 1_500; slot += 4) index.remove(slot);
      },
      (index: LexicalIndex) => {
        index.compact();
      },
    ];
    changes.forEach((change, i) => {
      change(searched);
      const expected = search(fresh(i + 1));
      expect(expected.every((found) => found.length > 0)).toBe(true);
      expect(search(searched)).toEqual(expected);
    });
  });
});

describe("a document's evidence", () => {
  // Made-up words: no WordNet relatives and no variants of one another, so only these words score.
  const words = ["zorbex", "quilmat", "frandish", "plovert", "gastrine", "morbleck", "yundra", "wexipol"];
  /** A fixed sequence of numbers in [0, 1) from `seed`, and `n` of the words picked by it. */
  const generator = (seed: number) => {
    let state = seed;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    const pick = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]);
    return { random, pick };
  };

  it("counts the words any of a document's chunks holds, wherever its chunks lie and after removals", () => {
    const { random, pick } = generator(7);
    const index = new LexicalIndex();
    const documents = 40;
    const sourceOf = (group: number) => group % 3;
    const add = (group: number) =>
      index.add(`${pick(3).join(" ")} filler text`, `Title ${pick(1).join("")}`, sourceOf(group), group);
    // The documents' chunks interleaved, some removed, and more added to them later: chains with gaps.
    const live = new Set<number>();
    for (let i = 0; i < 400; i++) live.add(add(Math.floor(random() * documents)));
    for (const slot of [...live]) {
      if (random() < 0.25) {
        index.remove(slot);
        live.delete(slot);
      }
    }
    for (let i = 0; i < 100; i++) live.add(add(Math.floor(random() * documents)));
    let compared = 0;
    const check = (searched: LexicalIndex, slots: number[]) => {
      for (const allowed of [new Set([0, 1, 2]), new Set([1])]) {
        for (let q = 0; q < 20; q++) {
          const query = pick(2).join(" ");
          // featuresFor pools a document's evidence over the chunks it is given, from the forward index.
          const reference = searched.featuresFor(query, slots);
          for (const candidate of searched.search(query, allowed)) {
            expect(candidate.features.docCoverage).toBe(reference.get(candidate.slot)?.docCoverage);
            compared++;
          }
        }
      }
    };
    check(index, [...live]);
    // Compaction renumbers the slots; a snapshot rebuilds the chains from the slots' documents.
    const remap = index.compact();
    const compacted = [...live].map((slot) => remap[slot] ?? -1);
    for (let i = 0; i < 150; i++) compacted.push(add(Math.floor(random() * documents)));
    check(index, compacted);
    check(LexicalIndex.fromState(defaultLexicalParams, index.captureState()), compacted);
    expect(compared).toBeGreaterThan(1_500);
  });

  it("weighs each candidate's document against the best document of all the chunks reached", () => {
    const { random, pick } = generator(23);
    const index = new LexicalIndex();
    // 400 documents of 1 to 12 chunks, added in runs and interleaved, some chunks removed: far more
    // chunks reached than the 10 candidates asked for, so most documents' chunks are not candidates.
    const documents = 400;
    const sizes = Array.from({ length: documents }, () => 1 + Math.floor(random() * 12));
    const order = sizes.flatMap((size, group) => Array.from({ length: size }, () => group));
    for (let i = 0; i < order.length; i++) {
      if (random() < 0.3) {
        const j = i + Math.floor(random() * (order.length - i));
        [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
      }
    }
    const groupOf = new Map<number, number>();
    for (const group of order) {
      const slot = index.add(`${pick(1 + Math.floor(random() * 4)).join(" ")} filler`, "", group % 2, group);
      groupOf.set(slot, group);
      if (random() < 0.1) index.remove(slot);
    }
    let elsewhere = 0;
    for (let q = 0; q < 120; q++) {
      const query = pick(1 + (q % 3)).join(" ");
      const allowed = q % 4 === 0 ? new Set([1]) : new Set([0, 1]);
      // Every chunk reached, with its score: each document's best and second-best chunk scores.
      const all = index.search(query, allowed, 1_000_000);
      const top = new Map<number, [number, number]>();
      for (const { slot, features } of all) {
        const group = groupOf.get(slot) ?? -1;
        const [best, second] = top.get(group) ?? [0, 0];
        const score = features.bm25;
        top.set(group, score > best ? [score, best] : [best, Math.max(second, score)]);
      }
      const evidence = (group: number) => {
        const [best, second] = top.get(group) ?? [0, 0];
        return best + 0.5 * second;
      };
      const strongest = Math.max(...[...top.keys()].map(evidence));
      const candidates = index.search(query, allowed, 10);
      expect(candidates).toHaveLength(10);
      for (const { slot, features } of candidates)
        expect(features.docRel).toBe(evidence(groupOf.get(slot) ?? -1) / strongest);
      // The strongest document has no chunk among the candidates: its evidence came from elsewhere.
      if (candidates.every(({ slot }) => evidence(groupOf.get(slot) ?? -1) < strongest)) elsewhere++;
    }
    expect(elsewhere).toBeGreaterThan(3);
  });
});
