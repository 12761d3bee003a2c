import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Connection, connect } from "@lancedb/lancedb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChunkIndex, type StoredChunk } from "./chunk-index.ts";
import { makeStoredChunk } from "./test-chunks.ts";
import { TextFile } from "./text-file.ts";

let dir: string;
let db: Connection;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lore-text-file-"));
  db = await connect(join(dir, "lance"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("the chunk text file", () => {
  it("reads back every text, from its write buffer and from disk, and leaves no file behind", () => {
    const file = new TextFile({ dir, cacheEntries: 2 });
    const texts = ["first", "Ünïcödé — 漢字 🙂", "", "x".repeat(3 * 1024 * 1024), "after the big one"];
    const at = texts.map((t) => ({ ...file.append(bytes(t)), length: bytes(t).byteLength }));
    texts.forEach((text, i) => {
      const where = at[i];
      if (where) expect(file.readText(where.block, where.start, where.length)).toBe(text);
    });
    file.release();
    expect(readdirSync(dir).filter((f) => f.includes("chunk-texts"))).toEqual([]);
  });

  it("keeps at most its cache size of texts decoded, evicting the least recently read", () => {
    const file = new TextFile({ dir, cacheEntries: 2 });
    const at = ["alpha", "bravo", "charlie"].map((t) => file.append(bytes(t)));
    const read = (i: number) => {
      const where = at[i];
      return where ? file.readText(where.block, where.start, 5 + (i === 2 ? 2 : 0)) : "";
    };
    expect([read(0), read(1)]).toEqual(["alpha", "bravo"]);
    expect(file.misses).toBe(2);
    read(0); // cached; now the most recent
    expect(file.misses).toBe(2);
    expect(read(2)).toBe("charlie"); // evicts bravo, the least recently read
    expect(file.misses).toBe(3);
    read(0);
    expect(file.misses).toBe(3);
    expect(read(1)).toBe("bravo");
    expect(file.misses).toBe(4);
    file.release();
  });
});

const workspaceId = randomUUID();
const source = randomUUID();
const words =
  "refund shipping canada warranty battery charger invoice account password reset delivery courier parcel tracking customs duty express weekend holiday store opening hours returns label printer screen repair 1998 2024 fourteen days".split(
    " ",
  );
const word = (i: number) => words[(i * 7 + (i >> 3)) % words.length] ?? "refund";

/** Documents whose chunks share words (near-duplicates included), headings with odd characters. */
function corpus(): { documentId: string; chunks: StoredChunk[] }[] {
  return Array.from({ length: 12 }, (_, d) => {
    const documentId = randomUUID();
    const chunks = Array.from({ length: 6 }, (_, ordinal) => {
      const n = d * 6 + ordinal;
      const body = Array.from({ length: 18 }, (_, w) => word(n + w * (ordinal + 1))).join(" ");
      return makeStoredChunk(
        {
          workspaceId,
          dataSourceId: source,
          documentId,
          ordinal,
          text: `${body}. ${ordinal % 2 === 0 ? body : `Chunk ${n} — “quoted” 🙂`}\nLast line ${n}.`,
        },
        { title: `Guide ${d}`, headingPath: ordinal === 0 ? [] : [`Part ${d}`, `Step ${ordinal}\n"${n}"`] },
      );
    });
    return { documentId, chunks };
  });
}

const queries = Array.from({ length: 30 }, (_, i) => `${word(i)} ${word(i * 3 + 1)} ${word(i * 5 + 2)}`);

async function rankings(index: ChunkIndex) {
  const out = [];
  for (const query of queries) {
    const params = { query, dataSourceIds: [source], topK: 8, minScore: 0, mode: "keyword" as const };
    const hits = await index.search(params);
    const candidates = await index.explain(params);
    out.push({
      hits: hits.map((h) => ({ chunk: h.chunk, score: h.score })),
      candidates: candidates.map((c) => ({ id: c.chunk.id, text: c.chunk.text, features: c.features })),
    });
  }
  return out;
}

describe("chunk texts off the heap", () => {
  it("rank, cite and read exactly alike with a one-text cache as with every text cached", async () => {
    const documents = corpus();
    const open = (name: string, textCacheEntries: number) =>
      ChunkIndex.open(db, {
        embedder: null,
        textCacheEntries,
        chunksTable: `chunks_${name}`,
        vectorsTable: `vectors_${name}`,
      });
    const tiny = await open("tiny", 1);
    const whole = await open("whole", 1_000_000);
    for (const index of [tiny, whole]) {
      await index.replaceDocuments(documents);
      // A replaced document and a deleted one leave dead records behind.
      const first = documents[0];
      if (first) await index.replaceDocument(first.documentId, first.chunks.slice(0, 3));
      await index.deleteDocuments([documents[1]?.documentId ?? ""]);
    }
    const expected = await rankings(whole);
    expect(expected.some((r) => r.hits.length > 3)).toBe(true);
    expect(await rankings(tiny)).toEqual(expected);
    for (const { documentId } of documents)
      expect(tiny.documentChunks(documentId)).toEqual(whole.documentChunks(documentId));
  }, 60_000);

  it("reads the right text and heading path of every chunk after a restart from the snapshot", async () => {
    const snapshotPath = join(dir, "index", "chunks.snapshot");
    const documents = corpus();
    const live = await ChunkIndex.open(db, { embedder: null, snapshotPath, textCacheEntries: 1 });
    await live.replaceDocuments(documents);
    await live.deleteDocuments([documents[2]?.documentId ?? ""]);
    const before = await rankings(live);
    await live.saveSnapshot();
    const reopened = await ChunkIndex.open(db, { embedder: null, snapshotPath, textCacheEntries: 1 });
    expect(reopened.startup.from).toBe("snapshot");
    documents.forEach(({ documentId, chunks }, i) => {
      expect(reopened.documentChunks(documentId)).toEqual(i === 2 ? [] : chunks);
    });
    expect(await rankings(reopened)).toEqual(before);
    // Writes after the restart read back too (texts appended to the restored file).
    const added = corpus()[0];
    if (added) {
      await reopened.replaceDocument(added.documentId, added.chunks);
      expect(reopened.documentChunks(added.documentId)).toEqual(added.chunks);
    }
  }, 60_000);

  it("leaves the last snapshot whole and readable when the process is killed while saving a rebuild", async () => {
    const snapshotPath = join(dir, "index", "chunks.snapshot");
    // Enough chunks that writing the snapshot takes a while (killed inside it, not after it).
    const big = Array.from({ length: 60 }, () => corpus()).flat();
    const first = await ChunkIndex.open(db, { embedder: null, snapshotPath, textCacheEntries: 1 });
    await first.replaceDocuments(big.slice(0, 360));
    await first.saveSnapshot();
    const saved = readFileSync(snapshotPath);
    // The table moves past the snapshot: the next start rebuilds from it and saves a new one.
    await first.replaceDocuments(big.slice(360));

    const script = `
import { connect } from "@lancedb/lancedb";
import { ChunkIndex } from ${JSON.stringify(new URL("./chunk-index.ts", import.meta.url).href)};
const db = await connect(${JSON.stringify(join(dir, "lance"))});
const index = await ChunkIndex.open(db, { embedder: null, snapshotPath: ${JSON.stringify(snapshotPath)}, textCacheEntries: 1 });
process.stderr.write("opened " + index.startup.from + "\\n");
setInterval(() => {}, 1000);
`;
    const tsx = createRequire(import.meta.url).resolve("tsx");
    const child = spawn(process.execPath, ["--import", tsx, "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL(".", import.meta.url)),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const temporary = `chunks.snapshot.tmp-${child.pid}`;
    // Killed the moment its temporary snapshot file appears: mid-write.
    const watcher = watch(join(dir, "index"), (_event, name) => {
      if (name === temporary) child.kill("SIGKILL");
    });
    const giveUp = setTimeout(() => child.kill("SIGKILL"), 90_000);
    const exit = await new Promise<NodeJS.Signals | null>((resolve) =>
      child.once("exit", (_code, signal) => resolve(signal)),
    );
    clearTimeout(giveUp);
    watcher.close();
    expect(stderr).toContain("opened table");
    expect(exit).toBe("SIGKILL");
    expect(existsSync(join(dir, "index", temporary))).toBe(true); // it died inside the write
    expect(readFileSync(snapshotPath).equals(saved)).toBe(true); // the last snapshot, untouched

    // A restart reads every chunk's text right and ranks like a fresh build from the table.
    const restarted = await ChunkIndex.open(db, { embedder: null, snapshotPath, textCacheEntries: 1 });
    expect(restarted.startup.from).toBe("table");
    // The killed process's text file went with the restart.
    expect(readdirSync(join(dir, "index")).filter((f) => f.includes(`chunk-texts-${child.pid}-`))).toEqual(
      [],
    );
    const reference = await ChunkIndex.open(db, { embedder: null, textCacheEntries: 1_000_000 });
    expect(await rankings(restarted)).toEqual(await rankings(reference));
    for (const { documentId, chunks } of big) expect(restarted.documentChunks(documentId)).toEqual(chunks);
    // And the snapshot it saves next is read back whole.
    await restarted.saveSnapshot();
    const again = await ChunkIndex.open(db, { embedder: null, snapshotPath, textCacheEntries: 1 });
    expect(again.startup.from).toBe("snapshot");
    for (const { documentId, chunks } of big) expect(again.documentChunks(documentId)).toEqual(chunks);
  }, 120_000);
});

describe("a damaged chunk-text file", () => {
  it("never quotes a garbled text: the chunk is read again from the table and an error is logged", async () => {
    const snapshotPath = join(dir, "index", "chunks.snapshot");
    const documents = corpus();
    const first = await ChunkIndex.open(db, { embedder: null, snapshotPath, textCacheEntries: 1 });
    await first.replaceDocuments(documents);
    const expected = (await rankings(first)).map((r) => r.hits);
    await first.saveSnapshot();
    const errors: Array<Record<string, unknown>> = [];
    const live = await ChunkIndex.open(db, {
      embedder: null,
      snapshotPath,
      textCacheEntries: 1,
      logError: (_message, fields) => errors.push(fields),
    });
    expect(live.startup.from).toBe("snapshot");
    // The live text file (loaded from the snapshot) overwritten on disk, as a bad sector or a stray write would.
    for (const name of readdirSync(join(dir, "index")).filter((f) => f.startsWith(".chunk-texts-"))) {
      const path = join(dir, "index", name);
      writeFileSync(path, Buffer.alloc(statSync(path).size, "GARBLED "));
    }
    const answered = await rankings(live);
    expect(JSON.stringify(answered)).not.toContain("GARBLED");
    expect(answered.map((r) => r.hits)).toEqual(expected);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ table: "retrieval_chunks" });
    // Repaired: the same searches again read the texts written anew, with nothing more to report.
    const reported = errors.length;
    expect((await rankings(live)).map((r) => r.hits)).toEqual(expected);
    expect(errors.length).toBe(reported);
  }, 60_000);
});
