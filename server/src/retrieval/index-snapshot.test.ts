import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Connection, connect } from "@lancedb/lancedb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChunkIndex, type StoredChunk } from "./chunk-index.ts";
import { makeStoredChunk } from "./test-chunks.ts";

let dir: string;
let db: Connection;
let snapshotPath: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lore-index-snapshot-"));
  db = await connect(join(dir, "lance"));
  snapshotPath = join(dir, "index", "chunks.snapshot");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const words = (
  "refund shipping canada warranty battery charger invoice account password reset delivery courier " +
  "parcel tracking customs duty express standard weekend holiday store opening hours returns label " +
  "printer screen cracked repair replacement exchange voucher discount student membership annual " +
  "monthly billing card declined bank transfer receipt tax europe germany france spain italy japan " +
  "1998 2024 fourteen thirty days weeks espresso grinder kettle blender toaster fridge freezer oven"
).split(" ");

/** A deterministic PRNG (mulberry32), so the corpus and queries are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(17);
const pick = () => words[Math.floor(random() * words.length)] ?? "refund";
const sentence = (n: number) => `${Array.from({ length: n }, pick).join(" ")}.`;

const workspaceId = randomUUID();
const source = randomUUID();
const otherSource = randomUUID();

function documentChunks(
  documentId: string,
  dataSourceId: string,
  count: number,
  version = "v1",
): StoredChunk[] {
  return Array.from({ length: count }, (_, ordinal) =>
    makeStoredChunk(
      {
        workspaceId,
        dataSourceId,
        documentId,
        ordinal,
        text: `${sentence(8)} ${sentence(12)}\n${sentence(6)}`,
      },
      {
        documentVersion: version,
        title: `Guide ${sentence(2)}`,
        headingPath: [sentence(2)],
        page: ordinal % 3 === 0 ? null : ordinal,
        sourceUrl: ordinal % 2 === 0 ? null : `https://example.com/${documentId}`,
      },
    ),
  );
}

const queries = Array.from({ length: 40 }, (_, i) => `${pick()} ${pick()}${i % 3 === 0 ? ` ${pick()}` : ""}`);

async function rankings(index: ChunkIndex) {
  const out = [];
  for (const query of queries) {
    const hits = await index.search({
      query,
      dataSourceIds: [source, otherSource],
      topK: 20,
      minScore: 0,
      mode: "keyword",
    });
    out.push(hits.map((h) => ({ id: h.chunk.id, score: h.score, chunk: h.chunk })));
  }
  return out;
}

/** An index with history: replaced and deleted documents leave dead slots behind. */
async function populate(): Promise<ChunkIndex> {
  const index = await ChunkIndex.open(db, { embedder: null, snapshotPath });
  const documents = Array.from({ length: 24 }, () => randomUUID());
  await index.replaceDocuments(
    documents.map((id, i) => ({
      documentId: id,
      chunks: documentChunks(id, i % 4 ? source : otherSource, 12),
    })),
  );
  const replaced = documents[3] ?? "";
  await index.replaceDocument(replaced, documentChunks(replaced, source, 7, "v2"));
  await index.deleteDocuments([documents[5] ?? "", documents[9] ?? ""]);
  return index;
}

describe("the search index snapshot", () => {
  it("a reloaded index ranks every query exactly as the index that was saved and as one rebuilt from the table", async () => {
    const live = await populate();
    await live.saveSnapshot();
    const reloaded = await ChunkIndex.open(db, { embedder: null, snapshotPath });
    expect(reloaded.startup.from).toBe("snapshot");
    const rebuilt = await ChunkIndex.open(db, { embedder: null });
    expect(rebuilt.startup.from).toBe("table");

    const expected = await rankings(live);
    expect(expected.flat().length).toBeGreaterThan(200);
    expect(await rankings(reloaded)).toEqual(expected);
    expect(await rankings(rebuilt)).toEqual(expected);
    expect(reloaded.size).toBe(live.size);
    // Three indexes × 40 queries on LanceDB: 5 s was too little on a loaded shared machine.
  }, 60_000);

  it("keeps indexing after a reload: new, replaced and deleted documents show up in search", async () => {
    const live = await populate();
    await live.saveSnapshot();
    const reloaded = await ChunkIndex.open(db, { embedder: null, snapshotPath });
    expect(reloaded.startup.from).toBe("snapshot");
    const fresh = randomUUID();
    const chunks = documentChunks(fresh, source, 40);
    const marker = chunks[17];
    if (!marker) throw new Error("no chunk");
    marker.text = "The zanzibar lighthouse keeper repairs espresso grinders on weekends.";
    await reloaded.replaceDocument(fresh, chunks);
    const found = await reloaded.search({
      query: "zanzibar lighthouse keeper",
      dataSourceIds: [source],
      topK: 3,
      minScore: 0,
      mode: "keyword",
    });
    expect(found[0]?.chunk.id).toBe(marker.id);
    await reloaded.deleteDocuments([fresh]);
    const gone = await reloaded.search({
      query: "zanzibar lighthouse keeper",
      dataSourceIds: [source],
      topK: 3,
      minScore: 0,
      mode: "keyword",
    });
    expect(gone.map((h) => h.chunk.id)).not.toContain(marker.id);
    // And what it saves next ranks like a rebuild of the table as it now is.
    await reloaded.saveSnapshot();
    const again = await ChunkIndex.open(db, { embedder: null, snapshotPath });
    expect(again.startup.from).toBe("snapshot");
    const rebuilt = await ChunkIndex.open(db, { embedder: null });
    expect(await rankings(again)).toEqual(await rankings(rebuilt));
  });

  it("is not used once the table has moved past it, nor when damaged: the index is rebuilt from the table", async () => {
    const live = await populate();
    await live.saveSnapshot();
    // A write the snapshot does not hold (as after a crash): it is stale.
    const late = randomUUID();
    const lateChunks = documentChunks(late, source, 3);
    await live.replaceDocument(late, lateChunks);
    const afterCrash = await ChunkIndex.open(db, { embedder: null, snapshotPath });
    expect(afterCrash.startup).toMatchObject({
      from: "table",
      reason: "no snapshot for the table's version",
    });
    expect(afterCrash.documentChunks(late).map((c) => c.id)).toEqual(lateChunks.map((c) => c.id));

    await afterCrash.saveSnapshot();
    const bytes = readFileSync(snapshotPath);
    writeFileSync(snapshotPath, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const damaged = await ChunkIndex.open(db, { embedder: null, snapshotPath });
    expect(damaged.startup.from).toBe("table");
    expect(damaged.startup.reason).toMatch(/^damaged snapshot/);
    expect(await rankings(damaged)).toEqual(await rankings(afterCrash));
  });

  it("is rebuilt from the table when a deflated section was damaged in a file of the right size", async () => {
    const live = await populate();
    await live.saveSnapshot();
    const bytes = readFileSync(snapshotPath);
    // Bytes in the middle of the file lie inside some section's deflated stream: its check fails.
    const middle = Math.floor(bytes.length / 2);
    for (let i = middle; i < middle + 64; i++) bytes[i] = (bytes[i] ?? 0) ^ 0xff;
    writeFileSync(snapshotPath, bytes);
    const damaged = await ChunkIndex.open(db, { embedder: null, snapshotPath });
    expect(damaged.startup.from).toBe("table");
    expect(damaged.startup.reason).toMatch(/^damaged snapshot: snapshot section .+ does not inflate/);
    expect(await rankings(damaged)).toEqual(await rankings(live));
  });
});
