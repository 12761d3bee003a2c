import { countTokens } from "gpt-tokenizer";
import { describe, expect, it, vi } from "vitest";
import { detectLanguage } from "../../text/language.ts";
import type { ParsedDocument, ParsedSection } from "../documents.ts";
import { chunkDocument, DEFAULT_MAX_TOKENS, languageBudgetFactor } from "./chunk-document.ts";

// The real detector, watched: it is the slow part of chunking and runs only when its answer matters.
vi.mock("../../text/language.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../text/language.ts")>();
  return { ...original, detectLanguage: vi.fn(original.detectLanguage) };
});

const sentence = (i: number) => `Sentence number ${i} talks about topic ${i % 7} in some detail.`;
const paragraph = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => sentence(from + i)).join(" ");
const doc = (sections: ParsedSection[]): ParsedDocument => ({
  title: "T",
  kind: "text",
  sections,
  pageCount: null,
});

describe("chunkDocument", () => {
  it("keeps a short section whole with its heading path as a context line", () => {
    const chunks = chunkDocument(
      doc([{ headingPath: ["Billing", "Refunds"], text: "Refunds take 30 days.", page: 3 }]),
    );
    expect(chunks).toEqual([
      {
        ordinal: 0,
        text: "Billing > Refunds\n\nRefunds take 30 days.",
        body: "Refunds take 30 days.",
        headingPath: ["Billing", "Refunds"],
        page: 3,
        tokenCount: countTokens("Billing > Refunds\n\nRefunds take 30 days."),
      },
    ]);
  });

  it("splits long sections within the token limit, at sentence ends, with overlap", () => {
    const text = [paragraph(0, 30), paragraph(30, 30), paragraph(60, 30)].join("\n\n");
    const chunks = chunkDocument(doc([{ headingPath: ["Long"], text, page: null }]), {
      maxTokens: 128,
      overlapTokens: 30,
    });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(128);
      expect(c.tokenCount).toBe(countTokens(c.text));
      expect(c.body).toMatch(/^Sentence number \d+ .*detail\.$/s); // starts and ends on sentence boundaries
      expect(c.headingPath).toEqual(["Long"]);
    }
    // Consecutive chunks overlap: the next repeats the previous one's last sentence, and starts inside it.
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1]?.body ?? "";
      const lastSentence = /Sentence number \d+ [^.]*\.$/.exec(previous)?.[0] ?? "-";
      const firstSentence = /^Sentence number \d+ [^.]*\./.exec(chunks[i]?.body ?? "")?.[0] ?? "-";
      expect(chunks[i]?.body).toContain(lastSentence);
      expect(previous).toContain(firstSentence);
      expect(countTokens(previous.slice(previous.indexOf(firstSentence)))).toBeLessThanOrEqual(30);
    }
    // Nothing is lost.
    for (let i = 0; i < 90; i++) expect(chunks.some((c) => c.body.includes(sentence(i)))).toBe(true);
    expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i));
  });

  it("marks an overlap that starts inside a long sentence with an ellipsis", () => {
    const long = `We recognize ${Array.from({ length: 20 }, (_, i) => `reason ${i}`).join(", ")} and more.`;
    const text = [paragraph(0, 3), long, paragraph(12, 12)].join(" ");
    const chunks = chunkDocument(doc([{ headingPath: [], text, page: null }]), {
      maxTokens: 128,
      overlapTokens: 30,
    });
    // The chunk after the long sentence opens with its tail, never with a bare "reason 57, …".
    const next = chunks.find((c) => /^…reason \d+/.test(c.body));
    expect(next).toBeDefined();
    for (const c of chunks) expect(c.body).toMatch(/^(?:…|Sentence|We recognize)/);
  });

  it("never merges across pages or top-level sections but merges tiny neighbours", () => {
    const chunks = chunkDocument(
      doc([
        { headingPath: ["A"], text: "alpha one", page: 1 },
        { headingPath: ["A", "A.1"], text: "alpha two", page: 1 },
        { headingPath: ["A", "A.2"], text: "alpha three", page: 2 },
        { headingPath: ["B"], text: "beta", page: 2 },
      ]),
    );
    expect(chunks.map((c) => [c.page, c.headingPath, c.body])).toEqual([
      [1, ["A"], "alpha one\n\nA.1\nalpha two"],
      [2, ["A", "A.2"], "alpha three"],
      [2, ["B"], "beta"],
    ]);
  });

  it("never cuts a table row and repeats no rows", () => {
    const rows = Array.from(
      { length: 200 },
      (_, i) => `Name: Person ${i}; City: Town ${i}; Role: Engineer level ${i % 5}`,
    );
    const chunks = chunkDocument(
      doc([{ headingPath: ["Staff"], text: rows.join("\n"), page: null, isTable: true }]),
    );
    const seen = chunks.flatMap((c) => c.body.split("\n"));
    expect(seen).toEqual(rows);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(DEFAULT_MAX_TOKENS);
  });

  it("hard-splits a single endless sentence without losing words", () => {
    const words = Array.from({ length: 1000 }, (_, i) => `w${i}`);
    const chunks = chunkDocument(doc([{ headingPath: [], text: words.join(" "), page: null }]), {
      overlapTokens: 0,
    });
    expect(chunks.flatMap((c) => c.body.split(" "))).toEqual(words);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(DEFAULT_MAX_TOKENS);
  });

  it("cuts a megabyte without whitespace into chunks within the limit that rebuild it", () => {
    const blob = "x".repeat(1_000_000);
    const chunks = chunkDocument(doc([{ headingPath: [], text: blob, page: null }]), { overlapTokens: 0 });
    expect(chunks.map((c) => c.body).join("")).toBe(blob);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(DEFAULT_MAX_TOKENS);
  });

  it("keeps a long URL inside a sentence whole when it fits", () => {
    const url = `https://example.com/${"segment/".repeat(30)}index.html`;
    const chunks = chunkDocument(doc([{ headingPath: [], text: `See ${url} for details.`, page: null }]));
    expect(chunks.map((c) => c.body)).toEqual([`See ${url} for details.`]);
  });

  it("chunks 1,000 pages of text in well under a second", () => {
    const sections = Array.from({ length: 1000 }, (_, p) => ({
      headingPath: [`Chapter ${Math.floor(p / 50)}`],
      text: Array.from({ length: 6 }, (_, i) => paragraph(p * 100 + i * 8, 8)).join("\n\n"),
      page: p + 1,
    }));
    const t0 = performance.now();
    const chunks = chunkDocument({ title: "Big", kind: "pdf", sections, pageCount: 1000 });
    const ms = performance.now() - t0;
    expect(chunks.length).toBeGreaterThan(2000);
    expect(ms).toBeLessThan(5000);
  });
});

describe("chunkDocument: lists, tables and code", () => {
  const steps = Array.from(
    { length: 5 },
    (_, i) => `${i + 1}. Step ${i + 1}: open the menu and select option ${i + 1}.`,
  );
  const list = steps.join("\n");

  it("keeps a list whole with its line breaks and the sentence that introduces it", () => {
    const text = [paragraph(0, 8), paragraph(8, 8), `To enable sync:\n\n${list}`, paragraph(16, 8)].join(
      "\n\n",
    );
    const chunks = chunkDocument(doc([{ headingPath: ["Sync"], text, page: null }]), { maxTokens: 160 });
    expect(chunks.length).toBeGreaterThan(2);
    const holder = chunks.filter((c) => c.body.includes("Step 1:"));
    expect(holder).toHaveLength(1);
    expect(holder[0]?.body).toContain(`To enable sync:\n\n${list}`);
  });

  it("splits a list bigger than a chunk between items, one per line, never inside one or twice", () => {
    const items = Array.from({ length: 40 }, (_, i) => `- Item ${i}: ${sentence(i)}`);
    const chunks = chunkDocument(
      doc([{ headingPath: [], text: `Options:\n\n${items.join("\n")}`, page: null }]),
      {
        maxTokens: 128,
      },
    );
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.flatMap((c) => c.body.split("\n")).filter((l) => l.startsWith("- "))).toEqual(items);
    expect(chunks[0]?.body.startsWith("Options:\n\n- Item 0:")).toBe(true);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(128);
  });

  it("keeps the last sentence of a long intro with the list when both do not fit together", () => {
    const intro = `${paragraph(0, 8)} International pricing is as follows:`;
    const prices = Array.from({ length: 8 }, (_, i) => `- Country ${i}: ${i + 9}.99 monthly`);
    const text = `${intro}\n\n${prices.join("\n")}`;
    const chunks = chunkDocument(doc([{ headingPath: [], text, page: null }]), {
      maxTokens: 150,
      overlapTokens: 0,
    });
    expect(chunks.map((c) => c.body)).toEqual([
      paragraph(0, 8),
      `International pricing is as follows:\n\n${prices.join("\n")}`,
    ]);
  });

  it("keeps a small table as a markdown table that starts with its header", () => {
    const table = "| Plan | Price |\n| --- | --- |\n| Team | 5 |\n| Business | 9 |";
    const text = [paragraph(0, 12), `Prices:\n\n${table}`, paragraph(12, 12)].join("\n\n");
    const chunks = chunkDocument(doc([{ headingPath: ["Pricing"], text, page: null }]), { maxTokens: 128 });
    const holder = chunks.filter((c) => c.body.includes("| Team | 5 |"));
    expect(holder).toHaveLength(1);
    expect(holder[0]?.body).toContain(`Prices:\n\n${table}`);
  });

  it("renders a table too big for one chunk as self-contained rows, each row once", () => {
    const rows = Array.from({ length: 60 }, (_, i) => `| Person ${i} | Town ${i} |`);
    const table = `| Name | City |\n| --- | --- |\n${rows.join("\n")}`;
    const chunks = chunkDocument(doc([{ headingPath: ["Staff"], text: table, page: null }]));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flatMap((c) => c.body.split("\n"))).toEqual(
      Array.from({ length: 60 }, (_, i) => `Name: Person ${i}; City: Town ${i}`),
    );
  });

  it("keeps a code block whole, blank lines included, and fences each piece of a code block too big for one chunk", () => {
    const code = "```sh\nnpm install\n\nnpm run build\n```";
    const small = chunkDocument(
      doc([{ headingPath: [], text: [paragraph(0, 20), `Build it:\n\n${code}`].join("\n\n"), page: null }]),
      { maxTokens: 128 },
    );
    expect(small.filter((c) => c.body.includes("npm"))).toHaveLength(1);
    expect(small.find((c) => c.body.includes("npm"))?.body).toContain(`Build it:\n\n${code}`);

    const lines = Array.from({ length: 80 }, (_, i) => `echo "line ${i}"`);
    const big = chunkDocument(
      doc([{ headingPath: [], text: `\`\`\`sh\n${lines.join("\n")}\n\`\`\``, page: null }]),
      {
        maxTokens: 128,
      },
    );
    expect(big.length).toBeGreaterThan(2);
    for (const c of big) {
      expect(c.body).toMatch(/^```sh\n[\s\S]*\n```$/);
      expect(c.tokenCount).toBeLessThanOrEqual(128);
    }
    expect(big.flatMap((c) => c.body.split("\n").slice(1, -1))).toEqual(lines);
  });

  it("starts a chunk that begins inside a nested list at the margin", () => {
    const items = Array.from(
      { length: 30 },
      (_, i) => `1. Group ${i}\n   - Detail ${i}: ${sentence(i)}\n   - More ${i}: ${sentence(i + 1)}`,
    );
    const chunks = chunkDocument(doc([{ headingPath: [], text: items.join("\n"), page: null }]), {
      maxTokens: 64,
    });
    for (const c of chunks) expect(c.body).not.toMatch(/^\s/);
  });

  it("gives text in other languages the same number of words per chunk as English", () => {
    // The same report sentence in English and German; German costs more tokens per word.
    const english = Array.from(
      { length: 16 },
      (_, i) =>
        `The city council publishes a detailed report on public transport every spring of ${2000 + i}.`,
    ).join(" ");
    const german = Array.from(
      { length: 12 },
      (_, i) =>
        `Die Stadtverwaltung veröffentlicht im Frühjahr ${2000 + i} einen ausführlichen Bericht über die Entwicklung der öffentlichen Verkehrsmittel.`,
    ).join(" ");
    expect(countTokens(german)).toBeGreaterThan(DEFAULT_MAX_TOKENS);
    expect(countTokens(english)).toBeGreaterThan(DEFAULT_MAX_TOKENS);
    expect(languageBudgetFactor(english)).toBe(1);
    expect(languageBudgetFactor(german)).toBeGreaterThan(1.1);
    expect(chunkDocument(doc([{ headingPath: [], text: german, page: null }]))).toHaveLength(1);
    expect(chunkDocument(doc([{ headingPath: [], text: english, page: null }])).length).toBeGreaterThan(1);
  });

  it("gives Greek and Thai text, whose language goes undetected, the same words per chunk budget", () => {
    const greek = Array.from(
      { length: 8 },
      (_, i) =>
        `Το δημοτικό συμβούλιο δημοσιεύει κάθε άνοιξη του ${2000 + i} μια λεπτομερή έκθεση για τις δημόσιες συγκοινωνίες της πόλης.`,
    ).join(" ");
    const thai = Array.from(
      { length: 8 },
      (_, i) => `สภาเมืองเผยแพร่รายงานโดยละเอียดเกี่ยวกับระบบขนส่งสาธารณะของเมืองทุกฤดูใบไม้ผลิ ปี ${2000 + i} `,
    ).join(" ");
    expect(languageBudgetFactor(greek)).toBeGreaterThan(1.1);
    expect(languageBudgetFactor(thai)).toBeGreaterThan(1.1);
  });

  it("detects the language only when it can change the chunks", () => {
    const detect = vi.mocked(detectLanguage);
    const german = (n: number) =>
      Array.from(
        { length: n },
        (_, i) =>
          `Die Stadtverwaltung veröffentlicht im Frühjahr ${2000 + i} einen ausführlichen Bericht über die Entwicklung der öffentlichen Verkehrsmittel.`,
      ).join(" ");
    // One section that fits one chunk at the English budget: that chunk, whatever the language.
    detect.mockClear();
    const short = german(3);
    expect(chunkDocument(doc([{ headingPath: ["Bericht"], text: short, page: null }]))).toEqual([
      {
        ordinal: 0,
        text: `Bericht\n\n${short}`,
        body: short,
        headingPath: ["Bericht"],
        page: null,
        tokenCount: countTokens(`Bericht\n\n${short}`),
      },
    ]);
    expect(detect).not.toHaveBeenCalled();
    // English prose at English's tokens per word keeps the budget whatever a detector would say.
    chunkDocument(doc([{ headingPath: [], text: paragraph(0, 60), page: null }]));
    expect(detect).not.toHaveBeenCalled();
    // A long German section is measured and detected, and gets the larger budget.
    expect(chunkDocument(doc([{ headingPath: [], text: german(12), page: null }]))).toHaveLength(1);
    expect(detect).toHaveBeenCalled();
  });
});
