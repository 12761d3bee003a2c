import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Connection, connect } from "@lancedb/lancedb";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../errors.ts";
import { ChunkIndex, type StoredChunk } from "./chunk-index.ts";
import type { Embedder } from "./embedder.ts";
import { makeStoredChunk } from "./test-chunks.ts";
import { tokenize } from "./text-analysis.ts";

/** A tiny bag-of-words embedder; `gate` lets a test hold embedding mid-flight. */
class TestEmbedder implements Embedder {
  readonly dimensions = 64;
  calls = 0;
  gate: Promise<void> | null = null;

  constructor(readonly name = "test-bow") {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls += texts.length;
    if (this.gate) await this.gate;
    return texts.map((text) => {
      const v = new Float32Array(this.dimensions);
      for (const token of tokenize(text)) {
        let h = 0;
        for (let i = 0; i < token.length; i++) h = (h * 31 + token.charCodeAt(i)) >>> 0;
        v[h % this.dimensions] = (v[h % this.dimensions] ?? 0) + 1;
      }
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
  }
}

let dir: string;
let db: Connection;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lore-chunk-index-"));
  db = await connect(dir);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const workspaceId = randomUUID();

function chunk(
  dataSourceId: string,
  documentId: string,
  ordinal: number,
  text: string,
  version = "v1",
): StoredChunk {
  return makeStoredChunk(
    { workspaceId, dataSourceId, documentId, ordinal, text },
    { documentVersion: version },
  );
}

const search = (
  index: ChunkIndex,
  query: string,
  dataSourceIds: string[],
  extra: { minScore?: number } = {},
) => index.search({ query, dataSourceIds, topK: 10, minScore: extra.minScore ?? 0, mode: "keyword" });

describe("ChunkIndex", () => {
  it("finds chunks by their words, best first, with scores within 0..1", async () => {
    const index = await ChunkIndex.open(db, { embedder: null });
    const source = randomUUID();
    const doc = randomUUID();
    await index.replaceDocument(doc, [
      chunk(source, doc, 0, "Refunds are issued within 14 days of a return being received at our warehouse."),
      chunk(source, doc, 1, "Shipping to Canada takes five to eight business days with tracked delivery."),
      chunk(source, doc, 2, "Our office dog is called Biscuit and greets visitors at the front desk."),
    ]);
    const hits = await search(index, "How long does shipping to Canada take?", [source]);
    expect(hits[0]?.chunk.text).toContain("Shipping to Canada");
    expect(hits.every((h) => h.score >= 0 && h.score <= 1)).toBe(true);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(hits.some((h) => h.chunk.text.includes("Biscuit"))).toBe(false);
  });

  it("prefers the chunk holding a variant of a query word the stemmer keeps apart", async () => {
    const index = await ChunkIndex.open(db, { embedder: null });
    const source = randomUUID();
    const doc = randomUUID();
    // Same words otherwise; only one holds "Normandy", a variant of the query's "Normans".
    await index.replaceDocument(doc, [
      chunk(source, doc, 0, "The Vikings settled along the coast of Iceland in the ninth century."),
      chunk(source, doc, 1, "The Vikings settled along the coast of Normandy in the tenth century."),
    ]);
    const hits = await search(index, "When did the Vikings who became the Normans settle the coast?", [
      source,
    ]);
    expect(hits[0]?.chunk.text).toContain("Normandy");
  });

  it("keeps serving the old version of a document until its new version is indexed", async () => {
    const embedder = new TestEmbedder();
    const index = await ChunkIndex.open(db, { embedder });
    const source = randomUUID();
    const doc = randomUUID();
    await index.replaceDocument(doc, [
      chunk(source, doc, 0, "The support line opens at nine in the morning."),
    ]);
    let release = () => {};
    embedder.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const embedded = embedder.calls;
    const replacing = index.replaceDocument(doc, [
      chunk(source, doc, 0, "The support line opens at eight in the morning, on weekdays only.", "v2"),
    ]);
    // Mid-replace: the new version waits on the embedder.
    await vi.waitFor(() => expect(embedder.calls).toBeGreaterThan(embedded));
    const during = await search(index, "When does the support line open?", [source]);
    expect(during.map((h) => h.chunk.documentVersion)).toEqual(["v1"]);
    release();
    embedder.gate = null;
    await replacing;
    const after = await search(index, "When does the support line open?", [source]);
    expect(after.map((h) => h.chunk.documentVersion)).toEqual(["v2"]);
    // The store holds only the new version: a fresh process sees the same.
    const reopened = await ChunkIndex.open(db, { embedder });
    expect(await reopened.countByDataSource(source)).toBe(1);
    const fresh = await search(reopened, "support line", [source]);
    expect(fresh.map((h) => h.chunk.text)).toEqual([
      "The support line opens at eight in the morning, on weekdays only.",
    ]);
  });

  it("purges deleted documents and deleted sources from results and from the store", async () => {
    const index = await ChunkIndex.open(db, { embedder: new TestEmbedder() });
    const source = randomUUID();
    const other = randomUUID();
    const [d1, d2, d3] = [randomUUID(), randomUUID(), randomUUID()];
    await index.replaceDocument(d1, [chunk(source, d1, 0, "Invoices are sent by email each month.")]);
    await index.replaceDocument(d2, [
      chunk(source, d2, 0, "Invoices can also be downloaded from the billing page."),
    ]);
    await index.replaceDocument(d3, [chunk(other, d3, 0, "Invoices for enterprise plans are sent by post.")]);
    await index.deleteDocuments([d1]);
    expect((await search(index, "invoices", [source])).map((h) => h.chunk.documentId)).toEqual([d2]);
    await index.deleteDataSources([other]);
    expect(await search(index, "invoices", [other])).toEqual([]);
    const reopened = await ChunkIndex.open(db, { embedder: new TestEmbedder() });
    expect(await reopened.countByDataSource(source)).toBe(1);
    expect(await reopened.countByDataSource(other)).toBe(0);
    const chunks = await db.openTable("retrieval_chunks");
    expect(await chunks.countRows()).toBe(1);
    const vectors = await db.openTable("retrieval_vectors");
    expect(await vectors.countRows()).toBe(1);
  });

  it("never returns a chunk of a data source that was not asked for", async () => {
    const index = await ChunkIndex.open(db, { embedder: null });
    const mine = randomUUID();
    const theirs = randomUUID();
    const [a, b] = [randomUUID(), randomUUID()];
    await index.replaceDocument(a, [
      chunk(mine, a, 0, "Passwords are reset from the account settings page."),
    ]);
    await index.replaceDocument(b, [
      chunk(theirs, b, 0, "How to reset passwords: passwords reset passwords reset, account settings."),
    ]);
    const hits = await search(index, "How do I reset my password?", [mine]);
    expect(hits.map((h) => h.chunk.dataSourceId)).toEqual([mine]);
    expect(await search(index, "reset password", [randomUUID()])).toEqual([]);
  });

  it("drops results below minScore", async () => {
    const index = await ChunkIndex.open(db, { embedder: null });
    const source = randomUUID();
    const doc = randomUUID();
    await index.replaceDocument(doc, [
      chunk(source, doc, 0, "The warranty covers manufacturing defects for two years from purchase."),
      chunk(source, doc, 1, "Gift cards never expire and can be used online."),
    ]);
    const all = await search(index, "warranty defects two years gift", [source]);
    expect(all.length).toBe(2);
    const threshold = ((all[0]?.score ?? 0) + (all[1]?.score ?? 0)) / 2;
    const filtered = await search(index, "warranty defects two years gift", [source], {
      minScore: threshold,
    });
    expect(filtered.map((h) => h.chunk.text)).toEqual([all[0]?.chunk.text]);
    expect(filtered.every((h) => h.score >= threshold)).toBe(true);
  });

  it("returns one of several near-identical chunks", async () => {
    const index = await ChunkIndex.open(db, { embedder: null });
    const source = randomUUID();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const text =
      "Orders placed before noon ship the same day from our Berlin warehouse, except on public holidays. " +
      "Orders placed later ship the next working day. Bulky items such as furniture are handed to a freight " +
      "partner, who calls ahead to agree on a delivery window; they usually arrive within a week.";
    await index.replaceDocument(a, [chunk(source, a, 0, text)]);
    await index.replaceDocument(b, [chunk(source, b, 0, `${text.toUpperCase()}  `)]);
    await index.replaceDocument(c, [chunk(source, c, 0, text.replace("Berlin", "Hamburg"))]);
    const hits = await search(index, "When do orders ship from the warehouse?", [source]);
    expect(hits.length).toBe(1);
  });

  it("falls back to keyword search for semantic and hybrid modes without an embedder, and says so", async () => {
    const index = await ChunkIndex.open(db, { embedder: null });
    const source = randomUUID();
    const doc = randomUUID();
    await index.replaceDocument(doc, [
      chunk(source, doc, 0, "Two-factor authentication is required for admins."),
    ]);
    for (const mode of ["semantic", "hybrid"] as const) {
      const result = await index.searchWithInfo({
        query: "two-factor admins",
        dataSourceIds: [source],
        topK: 5,
        minScore: 0,
        mode,
      });
      expect(result).toMatchObject({ requestedMode: mode, mode: "keyword", fellBack: true });
      expect(result.hits.length).toBe(1);
    }
  });

  it("searches by vectors in semantic and hybrid modes when an embedder is configured", async () => {
    const index = await ChunkIndex.open(db, { embedder: new TestEmbedder() });
    const source = randomUUID();
    const doc = randomUUID();
    await index.replaceDocument(doc, [
      chunk(source, doc, 0, "Annual plans are billed once a year."),
      chunk(source, doc, 1, "Our mascot is a purple owl."),
    ]);
    for (const mode of ["semantic", "hybrid"] as const) {
      const result = await index.searchWithInfo({
        query: "purple owl mascot",
        dataSourceIds: [source],
        topK: 1,
        minScore: 0,
        mode,
      });
      expect(result.fellBack).toBe(false);
      expect(result.hits[0]?.chunk.text).toBe("Our mascot is a purple owl.");
      expect(result.hits[0]?.score).toBeGreaterThanOrEqual(0);
      expect(result.hits[0]?.score).toBeLessThanOrEqual(1);
    }
  });

  it("re-embeds every chunk when the embedding model changes, and only then", async () => {
    const source = randomUUID();
    const doc = randomUUID();
    const first = await ChunkIndex.open(db, { embedder: new TestEmbedder("model-a") });
    await first.replaceDocument(doc, [chunk(source, doc, 0, "alpha"), chunk(source, doc, 1, "beta")]);
    expect(await first.reembedIfModelChanged()).toBe(0);
    const second = await ChunkIndex.open(db, { embedder: new TestEmbedder("model-b") });
    expect(await second.reembedIfModelChanged()).toBe(2);
    expect(await second.reembedIfModelChanged()).toBe(0);
    const vectors = await db.openTable("retrieval_vectors");
    const names = (await vectors.query().select(["embedder"]).toArray()).map(
      (r) => (r as { embedder: string }).embedder,
    );
    expect(names).toEqual(["model-b", "model-b"]);
  });

  it("rejects a search without sources or with ids that are not UUIDs", async () => {
    const index = await ChunkIndex.open(db, { embedder: null });
    const base = { query: "x", topK: 5, minScore: 0, mode: "keyword" as const };
    await expect(index.search({ ...base, dataSourceIds: [] })).rejects.toBeInstanceOf(AppError);
    await expect(index.search({ ...base, dataSourceIds: ["x' OR 1=1 --"] })).rejects.toMatchObject({
      code: "validation_error",
    });
  });

  it("keeps results correct after removals compact the in-memory index", async () => {
    const index = await ChunkIndex.open(db, { embedder: null });
    const source = randomUUID();
    const docs = Array.from({ length: 30 }, () => randomUUID());
    for (const [i, doc] of docs.entries()) {
      await index.replaceDocument(doc, [
        chunk(source, doc, 0, `Topic number ${i} is about item${i} and nothing else.`),
      ]);
    }
    await index.deleteDocuments(docs.slice(0, 25));
    await index.optimize();
    const hits = await search(index, "item27", [source]);
    expect(hits.map((h) => h.chunk.text)).toEqual(["Topic number 27 is about item27 and nothing else."]);
    expect(await index.countByDataSource(source)).toBe(5);
  });
});
