import { citationSchema } from "@lore/shared";
import { describe, expect, it } from "vitest";
import {
  buildSources,
  citedNumbers,
  createCitationRenumberer,
  renumberCitations,
  sectionLink,
  snippetAround,
} from "./citations.ts";
import { HANDBOOK, makeChunk } from "./test-chunks.ts";

describe("citedNumbers", () => {
  it("reads single, grouped, adjacent and range markers in order of first citation", () => {
    expect(citedNumbers("A [2]. B [1, 3]. C [2][4]. D [5-6].", 6)).toEqual([2, 1, 3, 4, 5, 6]);
  });

  it("ignores numbers outside the sources and brackets that are not citations", () => {
    expect(citedNumbers("See [7] and [0] and [citation needed] and [a1] but [2].", 3)).toEqual([2]);
  });
});

describe("renumberCitations", () => {
  it("renumbers to ranks in order of first citation", () => {
    expect(renumberCitations("X [3]. Y [1, 3]. Z [3][1].", 3)).toEqual({
      answer: "X [1]. Y [2, 1]. Z [1][2].",
      order: [3, 1],
    });
  });

  it("keeps bracketed numbers that cite nothing, like years", () => {
    expect(renumberCitations("Founded [1998] as noted [2].", 3).answer).toBe("Founded [1998] as noted [1].");
  });
});

describe("createCitationRenumberer", () => {
  it("streams the same text as renumbering the whole answer, even with markers split across tokens", () => {
    const answer = "First [3]. Then [2, 3] and [x] or [1998] [1";
    const tokens = ["First [", "3]. Then [2", ",", " 3] and [x] or", " [1998] [1"];
    const stream = createCitationRenumberer(3);
    const streamed = tokens.map((t) => stream.push(t)).join("") + stream.flush();
    const whole = renumberCitations(answer, 3);
    expect(streamed).toBe(whole.answer);
    expect(stream.order).toEqual(whole.order);
  });

  it("holds back only an unfinished marker", () => {
    const stream = createCitationRenumberer(2);
    expect(stream.push("Refunds take 30 days [")).toBe("Refunds take 30 days ");
    expect(stream.push("2]")).toBe("[1]");
  });
});

describe("buildSources", () => {
  it("lists the cited chunks ranked by first citation with every contract field", () => {
    const { answer, sources } = buildSources(
      "Acme was founded in 1998. [3] Refunds within 30 days. [1]",
      HANDBOOK,
      {
        isFallback: false,
      },
    );
    expect(answer).toBe("Acme was founded in 1998. [1] Refunds within 30 days. [2]");
    expect(sources.map((s) => [s.rank, s.chunkId])).toEqual([
      [1, "chunk-2"],
      [2, "chunk-0"],
    ]);
    const [first] = sources;
    expect(first).toEqual({
      rank: 1,
      documentId: "doc-2",
      chunkId: "chunk-2",
      title: "Company",
      dataSourceName: "Handbook",
      dataSourceType: "markdown",
      sourceUrl: "",
      content: HANDBOOK[2]?.text,
      score: 0.7,
      displayMode: "expandable",
      dataSourceId: "source-1",
      page: null,
      headingPath: [],
    });
    for (const source of sources) expect(citationSchema.safeParse(source).success).toBe(true);
  });

  it("lists the top retrieved chunks when the answer cites none", () => {
    const { answer, sources } = buildSources("Refunds take 30 days.", HANDBOOK, {
      isFallback: false,
      uncitedCount: 2,
    });
    expect(answer).toBe("Refunds take 30 days.");
    expect(sources.map((s) => [s.rank, s.chunkId])).toEqual([
      [1, "chunk-0"],
      [2, "chunk-1"],
    ]);
  });

  it("lists nothing for the fallback message", () => {
    expect(buildSources("Sorry, I don't know.", HANDBOOK, { isFallback: true }).sources).toEqual([]);
  });
});

describe("snippetAround", () => {
  it("keeps at most ~500 characters around the sentence that matches", () => {
    const filler = "Unrelated words fill this sentence about nothing in particular. ".repeat(20);
    const text = `${filler}The warranty covers water damage for two years. ${filler}`;
    const snippet = snippetAround(text, "Does the warranty cover water damage?");
    expect(snippet).toContain("The warranty covers water damage for two years.");
    expect(snippet.length).toBeLessThanOrEqual(505);
    expect(snippet.startsWith("…")).toBe(true);
    expect(snippetAround("Short text.", "anything")).toBe("Short text.");
  });

  it("cuts a single over-long sentence at a word", () => {
    const long = makeChunk(0, "Long", `${"word ".repeat(200)}end.`).text;
    const snippet = snippetAround(long, "word");
    expect(snippet.length).toBeLessThanOrEqual(501);
    expect(snippet.endsWith("word…")).toBe(true);
  });
});

describe("section links (issue #50)", () => {
  it("points a cited web page at its section's heading with a text fragment", () => {
    expect(sectionLink("https://help.example.com/billing", ["Billing", "Refunds & returns"])).toBe(
      "https://help.example.com/billing#:~:text=Refunds%20%26%20returns",
    );
    expect(sectionLink("https://help.example.com/a", ["Sign-in"])).toBe(
      "https://help.example.com/a#:~:text=Sign%2Din",
    );
  });

  it("leaves a link with no heading, a fragment already, or no web address as it is", () => {
    expect(sectionLink("https://help.example.com/billing", [])).toBe("https://help.example.com/billing");
    expect(sectionLink("https://help.example.com/billing#top", ["Refunds"])).toBe(
      "https://help.example.com/billing#top",
    );
    expect(sectionLink("", ["Refunds"])).toBe("");
    // The page's top: its title is its only heading.
    expect(sectionLink("https://help.example.com/install", ["Install"], "Install")).toBe(
      "https://help.example.com/install",
    );
  });
});

describe("a citation of a chunk holding several small sections (issue #50)", () => {
  const page = makeChunk(
    1,
    "Staying with pets",
    "Staying with pets\n\nPets\nDogs are welcome in the lobby and the garden. Dogs must stay on a lead indoors.\n\nBreakfast\nBreakfast is served from seven to ten in the conservatory.",
    { kind: "web", sourceUrl: "https://hotel.example/stay", headingPath: ["Staying with pets"] },
  );

  it("names and links the section the answer quotes", () => {
    const { sources } = buildSources("Dogs must stay on a lead indoors. [1]", [page], { isFallback: false });
    expect(sources[0]).toMatchObject({
      headingPath: ["Staying with pets", "Pets"],
      sourceUrl: "https://hotel.example/stay#:~:text=Pets",
    });
  });

  it("keeps the chunk's heading path for an answer in the model's own words", () => {
    const { sources } = buildSources("Dogs need a lead inside [1].", [page], { isFallback: false });
    expect(sources[0]).toMatchObject({
      headingPath: ["Staying with pets"],
      sourceUrl: "https://hotel.example/stay",
    });
  });
});
