/**
 * FinanceBench (the 40 PDFs present, the 65 questions they cover) through the HTTP API:
 * upload every PDF through the `file` connector (multipart `POST /data-sources/`, one source per
 * PDF so a hit's `dataSourceId` names its document), ingestion pages/min from the first upload to
 * the last `ready`, then evidence-page recall@1/5/10 through `/search/`: a hit is right when its
 * document is the question's and its `page` (1-based) is an `evidence_page_num` (0-based) + 1.
 * Peers: raw LanceDB FTS over pages (page text from Lore's PDF parser, one row per page), raw FTS
 * and wink BM25 over Lore's chunks, LangChain.js default splitter over pages + BM25Retriever.
 *
 *   node_modules/.bin/tsx bench/src/financebench.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../../server/src/sources/parsing/parse-document.ts";
import { datasetPath } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { langchainBm25, type PeerChunk, rawLanceFts, readProductChunks, winkBm25 } from "./lib/peers.ts";
import { evalPeer, type RecallRow, rankAll, recallRow } from "./lib/recall.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { round } from "./lib/stats.ts";

const ks = [1, 5, 10] as const;

export interface FinanceQuestion {
  id: string;
  question: string;
  docName: string;
  /** 1-based evidence pages in `docName`. */
  pages: number[];
}

/** The questions whose documents are among the PDFs present, with 1-based evidence pages. */
export function loadFinanceBench(
  dir = datasetPath("financebench"),
  pdfDir = join(dir, "pdfs"),
): {
  pdfs: string[];
  questions: FinanceQuestion[];
} {
  const pdfs = readdirSync(pdfDir)
    .filter((f) => f.endsWith(".pdf"))
    .sort()
    .map((f) => join(pdfDir, f));
  const names = new Set(pdfs.map((p) => basename(p, ".pdf")));
  const questions: FinanceQuestion[] = [];
  for (const line of readFileSync(join(dir, "financebench_open_source.jsonl"), "utf8").split("\n")) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as {
      financebench_id: string;
      question: string;
      doc_name: string;
      evidence: { doc_name: string; evidence_page_num: number }[];
    };
    if (!names.has(row.doc_name)) continue;
    const pages = row.evidence.filter((e) => e.doc_name === row.doc_name).map((e) => e.evidence_page_num + 1);
    questions.push({ id: row.financebench_id, question: row.question, docName: row.doc_name, pages });
  }
  return { pdfs, questions };
}

export interface FinanceResult {
  pdfs: number;
  pages: number;
  ingestSeconds: number;
  pagesPerMinute: number;
  chunks: number;
  rows: RecallRow[];
  notes: string[];
  path: string;
}

/** Page texts of a PDF from Lore's parser: one entry per 1-based page. */
async function pageTexts(path: string): Promise<{ page: number; text: string }[]> {
  const parsed = await parseDocument({
    externalId: path,
    title: basename(path, ".pdf"),
    sourceUrl: null,
    kind: "pdf",
    fileName: basename(path),
    body: new Uint8Array(readFileSync(path)),
  });
  const byPage = new Map<number, string[]>();
  for (const s of parsed.sections) {
    const page = s.page ?? 0;
    byPage.set(page, [...(byPage.get(page) ?? []), s.text]);
  }
  return [...byPage.entries()].sort((a, b) => a[0] - b[0]).map(([page, t]) => ({ page, text: t.join("\n") }));
}

export async function runFinanceBench(
  options: { resultsDir?: string; limitPdfs?: number } = {},
): Promise<FinanceResult> {
  const loaded = loadFinanceBench();
  const pdfs = loaded.pdfs.slice(0, options.limitPdfs ?? loaded.pdfs.length);
  const present = new Set(pdfs.map((p) => basename(p, ".pdf")));
  const questions = loaded.questions.filter((q) => present.has(q.docName));
  const queries = questions.map((q) => ({ ...q, text: q.question }));
  const data = `FinanceBench (${questions.length} q, ${pdfs.length} PDFs)`;
  const rows: RecallRow[] = [];
  const notes: string[] = [];
  const server = await startBenchServer();
  let chunks: PeerChunk[];
  let pages = 0;
  let ingestSeconds: number;
  const docOfSource = new Map<string, string>();
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const started = performance.now();
    const sources = [];
    for (const pdf of pdfs) {
      const source = await client.createFileSource(basename(pdf, ".pdf"), [pdf]);
      docOfSource.set(source.id, basename(pdf, ".pdf"));
      sources.push(source);
    }
    for (const s of sources) await client.waitReady(s.id, 60 * 60_000, 500);
    ingestSeconds = round((performance.now() - started) / 1000, 1);
    for (const s of sources) {
      for (const d of await client.documents(s.id)) pages += d.pageCount ?? 0;
    }
    const agent = await client.createAgent("FinanceBench", { dataSourceIds: sources.map((s) => s.id) });
    chunks = await readProductChunks(server.dataDir, [...docOfSource.keys()]);
    log(`financebench: ${pdfs.length} PDFs, ${pages} pages in ${ingestSeconds}s → ${chunks.length} chunks`);
    for (const q of queries.slice(0, 5)) await client.search(agent.id, q.text, 10, "keyword");
    const { ranks, ms } = await rankAll(
      queries,
      async (q) => (await client.search(agent.id, q.text, 10, "keyword")).results,
      (hit, q) => docOfSource.get(hit.dataSourceId ?? "") === q.docName && q.pages.includes(hit.page ?? -1),
    );
    rows.push(
      recallRow(
        {
          system: "Lore (default server)",
          mode: "keyword",
          data,
          chunks: chunks.length,
          via: "HTTP POST /search/",
        },
        ranks,
        ms,
        ks,
      ),
    );
  } finally {
    await server.close();
  }
  // Peers. Every peer chunk's documentId is the PDF's name, so one relevance test serves all.
  const productChunks: PeerChunk[] = chunks.map((c) => ({
    ...c,
    documentId: docOfSource.get(c.dataSourceId ?? "") ?? "",
  }));
  const pageRows: PeerChunk[] = [];
  for (const pdf of pdfs) {
    const name = basename(pdf, ".pdf");
    for (const p of await pageTexts(pdf)) {
      pageRows.push({ id: `${name}#${p.page}`, documentId: name, title: name, text: p.text, page: p.page });
    }
  }
  const relevant = (hit: { documentId: string; page: number | null }, q: FinanceQuestion) =>
    hit.documentId === q.docName && q.pages.includes(hit.page ?? -1);
  const rawPages = await rawLanceFts(pageRows);
  rows.push(
    await evalPeer({ ...rawPages, name: "LanceDB FTS (raw) over pages" }, data, queries, relevant, ks),
  );
  await rawPages.close();
  const rawChunks = await rawLanceFts(productChunks);
  rows.push(
    await evalPeer(
      { ...rawChunks, name: "LanceDB FTS (raw) over Lore's chunks" },
      data,
      queries,
      relevant,
      ks,
    ),
  );
  await rawChunks.close();
  rows.push(await evalPeer(winkBm25(productChunks), data, queries, relevant, ks));
  try {
    // One LangChain Document per page (as its PDFLoader makes), split with the default splitter.
    const lc = await langchainBm25(pageRows.map((p) => ({ id: p.id, title: p.title, text: p.text })));
    const unpack = (c: PeerChunk): PeerChunk => {
      const [doc = "", page = ""] = c.documentId.split("#");
      return { ...c, documentId: doc, page: Number(page) };
    };
    const wrapped = {
      ...lc,
      search: async (query: string, k: number) => (await lc.search(query, k)).map(unpack),
    };
    rows.push(await evalPeer(wrapped, data, queries, relevant, ks));
  } catch (error) {
    notes.push(`LangChain.js peer could not run: ${String(error)}`);
  }
  for (const r of rows) log(`financebench: ${r.system} ${JSON.stringify(r.recall)}`);
  const pagesPerMinute = round(pages / (ingestSeconds / 60), 1);
  const path = writeResult(
    "financebench",
    { pdfs: pdfs.length, pages, ingestSeconds, pagesPerMinute, chunks: chunks.length, rows, notes },
    options.resultsDir,
  );
  return {
    pdfs: pdfs.length,
    pages,
    ingestSeconds,
    pagesPerMinute,
    chunks: chunks.length,
    rows,
    notes,
    path,
  };
}

export function financeTable(result: FinanceResult): string {
  return markdownTable(
    ["system", "mode", "questions", "chunks", ...ks.map((k) => `R@${k}`), "p50 ms", "via"],
    result.rows.map((r) => [
      r.system,
      r.mode,
      r.questions,
      r.chunks,
      ...ks.map((k) => r.recall[`@${k}`]),
      round(r.p50Ms, 1),
      r.via,
    ]),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runFinanceBench();
  console.log(financeTable(result));
  console.log(
    `ingestion: ${result.pages} pages in ${result.ingestSeconds}s = ${result.pagesPerMinute} pages/min`,
  );
  console.log(`wrote ${result.path}`);
}
