import { afterAll, describe, expect, it } from "vitest";
import { makeDocx } from "../../../../test/fixtures/docx.ts";
import { makePdf } from "../../../../test/fixtures/pdf.ts";
import { chunkedDocument } from "../chunking/chunk-document.ts";
import { ParseError } from "../documents.ts";
import { UnsupportedTypeError } from "./detect-kind.ts";
import { parseDocument } from "./parse-document.ts";
import { chunkInWorker, closeParseWorkers, createParseWorkerPool } from "./parse-in-worker.ts";

const pool = createParseWorkerPool({ size: 1 });
afterAll(async () => {
  await pool.close();
  await closeParseWorkers();
});

// Worker start-up (tsx + pdf.js load) takes about a second, more on a busy machine.
describe("the parse worker pool", { timeout: 60_000 }, () => {
  it("parses a PDF in a worker thread with the same result as in-process", async () => {
    const doc = await pool.parse({
      externalId: "a",
      title: "",
      sourceUrl: null,
      kind: null,
      fileName: "a.pdf",
      body: makePdf([["Hello worker"]]),
    });
    expect(doc).toMatchObject({ kind: "pdf", pageCount: 1, sections: [{ text: "Hello worker", page: 1 }] });
  });

  it("brings typed errors back across the thread boundary", async () => {
    const encrypted = makePdf([["Locked"]], { encrypt: { cipher: "rc4-128", userPassword: "openpassword" } });
    await expect(
      pool.parse({ externalId: "e", title: "", sourceUrl: null, kind: null, body: encrypted }),
    ).rejects.toThrow(ParseError);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
    await expect(
      pool.parse({ externalId: "p", title: "", sourceUrl: null, kind: null, body: png }),
    ).rejects.toThrow(UnsupportedTypeError);
  });

  it("kills a parse that exceeds its timeout and keeps serving afterwards", async () => {
    // 120 pages of 40 lines: over a second of pdf.js work, far past the 50 ms allowed.
    const big = makePdf(
      Array.from({ length: 120 }, (_, page) =>
        Array.from({ length: 40 }, (_, line) => `Line ${line} of page ${page}: the boiler holds 1.2 litres.`),
      ),
    );
    const err = await pool
      .parse({ externalId: "g", title: "", sourceUrl: null, kind: null, body: big }, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toMatch(/timed out/);
    const next = await pool.parse({
      externalId: "t",
      title: "",
      sourceUrl: null,
      kind: null,
      fileName: "t.txt",
      body: "still alive",
    });
    expect(next.sections[0]?.text).toBe("still alive");
  });

  it("parses and chunks in a worker exactly as in-process, and brings errors back the same way", async () => {
    const entry = (externalId: string, body: string) => ({
      externalId,
      title: "Refunds",
      sourceUrl: null,
      kind: "text" as const,
      body,
    });
    const plain = entry("p", "Refunds take thirty days.\n\nShipping to Canada is free over $50.");
    const markup = entry(
      "m",
      "## Refunds\n\n- within **30 days**\n- with the receipt\n\n<p>Ask the store.</p>",
    );
    const long = entry("l", "Refunds take thirty days unless the box was opened. ".repeat(400));
    for (const raw of [plain, markup, long]) {
      const inProcess = chunkedDocument(await parseDocument(raw));
      expect(await pool.chunk(raw)).toEqual(inProcess);
      expect(await chunkInWorker(raw)).toEqual(inProcess);
    }
    expect((await pool.chunk(long)).chunks.length).toBeGreaterThan(10);
    await expect(pool.chunk(entry("e", "  \n "))).rejects.toThrow(ParseError);
  });

  it("parses another workspace's small entry while one workspace's slow files hold the thread (issue #49)", async () => {
    // Within every element budget, yet seconds of work each: 4.9 million empty paragraphs in 44 KB.
    const slow = makeDocx("<w:p/>".repeat(4_900_000));
    const fair = createParseWorkerPool({ size: 1 });
    try {
      const settled: string[] = [];
      const hostile = [1, 2, 3].map((n) =>
        fair
          .chunk(
            {
              externalId: `slow-${n}`,
              title: "",
              sourceUrl: null,
              kind: null,
              fileName: "s.docx",
              body: slow,
            },
            { workspaceId: "a" },
          )
          .catch(() => undefined)
          .then(() => settled.push(`a${n}`)),
      );
      const small = await fair.chunk(
        { externalId: "b", title: "Hours", sourceUrl: null, kind: "text", body: "Open from nine to five." },
        { workspaceId: "b" },
      );
      settled.push("b");
      expect(small.chunks[0]?.text).toBe("Open from nine to five.");
      // On one FIFO thread the entry waited for all three files; now none of them came first.
      expect(settled).toEqual(["b"]);
      void hostile;
    } finally {
      await fair.close();
    }
  });

  it("takes the workspaces' queues in turn", async () => {
    const turns = createParseWorkerPool({ size: 1 });
    try {
      const order: string[] = [];
      // A's and b's documents take a thread a while (~170 ms of chunking each), c's entry is tiny: how
      // long a thread was held then decides the order of completion far more than how fast each
      // thread happens to run on a busy machine.
      const long = "The quick brown fox jumps over the lazy dog near the river bank. ".repeat(15_000);
      const entry = (id: string, workspaceId: string, body = long) =>
        turns
          .chunk({ externalId: id, title: "", sourceUrl: null, kind: "text", body }, { workspaceId })
          .then(() => order.push(id));
      // Both threads started first (a thread's start-up takes seconds on a busy machine).
      await Promise.all([entry("w1", "w1", "w1"), entry("w2", "w2", "w2")]);
      order.length = 0;
      // a1 takes the thread and b1 the spare one. The first to end hands its thread to c1, the
      // workspace never served; a3 waits behind a2, so it ends a whole document after c1. Were the
      // queues taken in the order they came (a, b, c), c1 would wait behind b's four documents.
      await Promise.all([
        entry("a1", "a"),
        entry("a2", "a"),
        entry("a3", "a"),
        entry("a4", "a"),
        entry("b1", "b"),
        entry("b2", "b"),
        entry("b3", "b"),
        entry("b4", "b"),
        entry("c1", "c", "c1"),
      ]);
      // Without turns (one queue, first come first served) c1 would end last.
      expect(order.indexOf("c1")).toBeLessThan(order.indexOf("a3"));
    } finally {
      await turns.close();
    }
  });
});
