import { countTokens } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import type { ParsedDocument, ParsedSection } from "../documents.ts";
import { chunkDocument, DEFAULT_MAX_TOKENS } from "./chunk-document.ts";

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
