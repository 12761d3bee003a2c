import { describe, expect, it } from "vitest";
import { countTokens } from "../text/tokens.ts";
import {
  composeExtractiveAnswer,
  createExtractiveModel,
  defaultExtractiveOptions,
  rankAnswerUnits,
} from "./extractive-model.ts";
import { HANDBOOK, makeChunk } from "./test-chunks.ts";
import type { GenerateInput, GenerationEvent } from "./types.ts";

const FALLBACK = "Sorry, I couldn't find that in the handbook.";

function input(question: string, overrides: Partial<GenerateInput> = {}): GenerateInput {
  return {
    question,
    history: [],
    chunks: HANDBOOK,
    instructions: "",
    fallbackMessage: FALLBACK,
    temperature: 0,
    maxTokens: 500,
    ...overrides,
  };
}

async function collect(events: AsyncIterable<GenerationEvent>) {
  const tokens: string[] = [];
  const usage: Array<{ promptTokens: number; completionTokens: number }> = [];
  for await (const event of events) {
    if (event.type === "token") tokens.push(event.token);
    else usage.push({ promptTokens: event.promptTokens, completionTokens: event.completionTokens });
  }
  return { tokens, answer: tokens.join(""), usage };
}

describe("extractive model", () => {
  const model = createExtractiveModel();

  it.each([
    [
      "How long do I have to request a refund?",
      // A section answer: the lead, then the rest of its section that goes on about refunds (issue #50).
      "Customers can request a refund within 30 days of purchase. Refunds are issued to the original payment method. [1]",
    ],
    ["When was Acme founded?", "Acme Corp. was founded in 1998 by Dr. Jane Smith in Portland, Oregon. [3]"],
    ["How much does shipping to Canada cost?", "Shipping to Canada and Mexico costs $15. [2]"],
    [
      "Where is the headquarters?",
      "The company moved its headquarters to Seattle in 2010. It employs about 1,200 people. [3]",
    ],
    [
      "How many people does Acme employ?",
      // "It employs…" holds too little of the question alone: its short section is read in order, from
      // the sentence that names Acme (issue #50).
      "Acme Corp. was founded in 1998 by Dr. Jane Smith in Portland, Oregon. The company moved its headquarters to Seattle in 2010. It employs about 1,200 people. [3]",
    ],
    ["Are digital downloads refundable?", "Digital downloads are not refundable once opened. [1]"],
  ])("answers %j with the cited best sentences", async (question, expected) => {
    const { answer } = await collect(model.generate(input(question)));
    expect(answer).toBe(expected);
  });

  it("streams word by word and then reports usage counted with the tokenizer", async () => {
    const question = "How long do I have to request a refund?";
    const { tokens, answer, usage } = await collect(model.generate(input(question)));
    expect(tokens.slice(0, 3)).toEqual(["Customers", " can", " request"]);
    expect(tokens.length).toBe(answer.split(" ").length);
    expect(usage).toEqual([
      {
        promptTokens: countTokens(`${question}\n${HANDBOOK[0]?.text}`),
        completionTokens: countTokens(answer),
      },
    ]);
  });

  it("answers with exactly the fallback message when nothing is relevant", async () => {
    expect((await collect(model.generate(input("What is the capital of Mars?")))).answer).toBe(FALLBACK);
    expect((await collect(model.generate(input("How long do refunds take?", { chunks: [] })))).answer).toBe(
      FALLBACK,
    );
  });

  it("gives the same answer every time", async () => {
    const first = await collect(model.generate(input("Who founded Acme?")));
    const second = await collect(model.generate(input("Who founded Acme?")));
    expect(second.answer).toBe(first.answer);
  });

  it("stops emitting once the signal is aborted", async () => {
    const controller = new AbortController();
    const tokens: string[] = [];
    for await (const event of model.generate(
      input("How many people does Acme employ?", { signal: controller.signal }),
    )) {
      if (event.type === "token") tokens.push(event.token);
      if (tokens.length === 2) controller.abort();
    }
    expect(tokens).toEqual(["Acme", " Corp."]);
  });

  it("makes a follow-up standalone with the last question's topic", async () => {
    const history = [
      { role: "user" as const, content: "Tell me about Acme Corp." },
      { role: "assistant" as const, content: "Acme Corp. was founded in 1998. [1]" },
    ];
    expect(await model.condense("Where is its headquarters?", history)).toBe(
      "Where is its headquarters? Acme Corp",
    );
    expect(await model.condense("How much does express shipping cost?", history)).toBe(
      "How much does express shipping cost?",
    );
  });
});

describe("topic named only in the title", () => {
  const chunks = [
    makeChunk(
      1,
      "Payment methods",
      "We accept Visa, Mastercard and PayPal. Invoices are available for business plans.",
    ),
    makeChunk(2, "Shipping", "Standard delivery takes 5 business days. Express delivery takes 2 days."),
  ];

  it("answers from the chunk whose title names the topic", () => {
    const { answer } = composeExtractiveAnswer("Which payment methods do you accept?", chunks, "FALLBACK");
    expect(answer).toContain("We accept Visa, Mastercard and PayPal.");
    expect(answer).toContain("[1]");
  });

  it("answers a 'tell me about …' request instead of falling back", () => {
    const { answer } = composeExtractiveAnswer("Tell me about shipping", chunks, "FALLBACK");
    expect(answer).not.toBe("FALLBACK");
    expect(answer).toContain("[2]");
  });
});

describe("answers shaped like help articles", () => {
  const ARTICLES = [
    makeChunk(
      0,
      "How do I deactivate a private address?",
      "How do I deactivate a private address?\n\nYou can turn off any address you no longer want. To deactivate an address:\n1. Open Settings.\n2. Select Addresses.\n3. Tap Deactivate next to the address.",
      { headingPath: ["How do I deactivate a private address?"] },
    ),
    makeChunk(
      1,
      "Can I change my address?",
      "Your personal address is chosen when you sign up. It cannot be changed after sign-up, but you can create a new account.",
    ),
    makeChunk(
      2,
      "Plans and prices",
      "| Plan | Price |\n| --- | --- |\n| Monthly | $9.99 a month |\n| Yearly | $99.99 a year |",
    ),
    makeChunk(
      3,
      "Contact",
      "Questions about billing? Write to billing@example.com and we answer within a day.",
    ),
  ];
  const ask = (question: string) => composeExtractiveAnswer(question, ARTICLES, FALLBACK).answer;

  it("answers 'how do I …' with the procedure's steps, line breaks kept, after its introduction", () => {
    expect(ask("how do i deactivate an address")).toContain(
      "To deactivate an address:\n\n1. Open Settings.\n2. Select Addresses.\n3. Tap Deactivate next to the address. [1]",
    );
  });

  it("answers 'can I …' with the sentence that carries the yes or no", () => {
    expect(ask("can I change my address after signing up?")).toContain("It cannot be changed after sign-up");
  });

  it("answers 'how much …' with the table, kept a table", () => {
    const answer = ask("how much are the plans?");
    expect(answer).toContain("| Monthly | $9.99 a month |\n| Yearly | $99.99 a year |");
  });

  it("answers 'who do I write to' with the contact", () => {
    expect(ask("who do i contact about my bill")).toContain("billing@example.com");
  });

  it("answers 'what information …' with the list, not the sentence around it", () => {
    const crash = [
      makeChunk(
        0,
        "Crash reports",
        "When the browser crashes, information about the crash is sent anonymously so we can fix the problem. Crash information is never linked to you.\n\nThe report includes:\n\n- the browser version\n- your operating system version\n- the time of the crash",
      ),
    ];
    expect(
      composeExtractiveAnswer("what information gets sent when the browser crashes", crash, FALLBACK).answer,
    ).toContain("- your operating system version");
  });

  it("never quotes the heading line the chunker puts first", () => {
    expect(ask("deactivate private address")).not.toMatch(/^How do I deactivate/);
  });

  it("bridges everyday words to the article's through WordNet ('money back' → 'refund')", () => {
    const refunds = [makeChunk(0, "Refunds", "Refunds are issued within 14 days of purchase.")];
    expect(composeExtractiveAnswer("Can I get my money back?", refunds, FALLBACK).answer).toBe(
      "Refunds are issued within 14 days of purchase. [1]",
    );
    expect(
      composeExtractiveAnswer("Can I get my money back?", refunds, FALLBACK, { expansion: null }).answer,
    ).toBe(FALLBACK);
  });

  it("falls back when the best passage holds too little of the question", () => {
    expect(ask("does the app have a reader mode for long articles?")).toBe(FALLBACK);
  });
});

describe("another section of the answer's article", () => {
  // One article, its steps told per platform: the visitor's platform is not one of its headings.
  const steps = (platform: string, heading: string, text: string) =>
    makeChunk(platform === "ios" ? 0 : 1, "How to change your default search engine in Opera", text, {
      documentId: "opera",
      headingPath: [heading],
    });
  const OPERA = [
    steps(
      "ios",
      "iOS",
      "Open the Opera browser on your iPhone or iPad.\n\nOpen the browser menu > Settings.\n\nSelect Default Search Engine and choose one.",
    ),
    steps(
      "desktop",
      "Desktop",
      "Open the Opera browser on your desktop computer.\n\nTo the right of the address bar, select Easy setup.\n\nScroll down and choose the search engine.",
    ),
    makeChunk(2, "Browser extensions", "Our extension blocks trackers on the sites you visit, in Opera too."),
  ];
  const question = "opera on my pc, how do i switch the search engine";

  it("joins the answer when it may hold what the chosen section leaves out, cited on its own", () => {
    const { answer } = composeExtractiveAnswer(question, OPERA, FALLBACK);
    expect(answer).toContain("Select Default Search Engine and choose one. [1]");
    expect(answer).toContain("To the right of the address bar, select Easy setup.");
    expect(answer).toMatch(/choose the search engine\. \[2\]$/);
    // Without it, the visitor on a PC gets only the iPhone's steps.
    const alone = composeExtractiveAnswer(question, OPERA, FALLBACK, { siblingMargin: -1 }).answer;
    expect(alone).not.toContain("Easy setup");
  });

  it("never comes from another article, nor past the section budget", () => {
    const { answer } = composeExtractiveAnswer(question, OPERA, FALLBACK);
    expect(answer).not.toContain("trackers");
    const short = composeExtractiveAnswer(question, OPERA, FALLBACK, { sectionWords: 30 }).answer;
    expect(short).toContain("Default Search Engine");
    expect(short).not.toContain("Easy setup");
  });
});

describe("words the stemmer keeps apart", () => {
  it("matches a compound of the question to the word it is built on (German)", () => {
    const chunks = [
      makeChunk(0, "Preise", "Die Lieferung dauert zwei Wochen. Die Kosten betragen 5 Euro pro Paket."),
    ];
    const { answer } = composeExtractiveAnswer("Was sind die Versandkosten?", chunks, FALLBACK);
    expect(answer).toContain("Die Kosten betragen 5 Euro pro Paket.");
  });
});

describe("a sentence's share of the question", () => {
  /** Each sentence's focus (its own words' share of the question), one sentence a chunk. */
  const focus = (question: string, sentences: string[]) =>
    rankAnswerUnits(
      question,
      sentences.map((text, i) => makeChunk(i + 1, "Doc", text)),
      defaultExtractiveOptions,
    ).scored.map((u) => u.focus);

  it("counts a word the stemmer keeps apart from the question's at 0.4 of it", () => {
    // "Norman" and "Normandy" share their first five letters.
    const [variant, exact, none] = focus("Who ruled Normandy?", [
      "The Norman people lived there.",
      "Normandy is a region.",
      "Bread is baked daily.",
    ]);
    expect(exact).toBeGreaterThan(0);
    expect(variant).toBeCloseTo(0.4 * (exact ?? 0), 12);
    expect(none).toBe(0);
  });

  it("counts a word inside the question's in Chinese or Japanese at 0.7 of it", () => {
    const [near, exact] = focus("東京タワーはどこですか？", [
      "東京は大きい。",
      "東京タワーは港区にあります。",
    ]);
    expect(exact).toBe(1);
    expect(near).toBeCloseTo(0.7, 12);
  });

  it("counts an Arabic word with a letter joined on as a variant (0.4), not a near match (0.7)", () => {
    // "لسلسلة" is "ل" + "سلسلة": one word inside the other at an edge, and a near match too.
    const [variant, exact] = focus("ما هي سلسلة الجبال؟", [
      "ذهبت لسلسلة طويلة من الأيام.",
      "هذه سلسلة مهمة.",
    ]);
    expect(exact).toBeGreaterThan(0);
    expect(variant).toBeCloseTo(0.4 * (exact ?? 0), 12);
  });
});
