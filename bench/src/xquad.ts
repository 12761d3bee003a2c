/**
 * XQuAD through the product's HTTP API: the same 240 SQuAD paragraphs and 1,190 questions in each
 * language, one server, one `text` source and agent per language, raw LanceDB FTS on the same chunks.
 *
 *   node_modules/.bin/tsx bench/src/xquad.ts [--langs en,zh] [--every N] [--no-answers] [--no-peers]
 *
 * - Ingest: one entry per paragraph, titled `P<n>` (a title that no question shares, so every language
 *   is judged on its text alone).
 * - Retrieval: `POST /agents/{id}/search/` (keyword) topK 20; a hit = the chunk's text contains a
 *   SQuAD-normalised gold answer; top-1/5/20.
 * - Answers: `POST /query/` (extractive answerer); answer = the response contains a gold answer,
 *   fallback = a response without sources.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { containsAnswer, datasetPath } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { type PeerChunk, rawLanceFts, readProductChunks } from "./lib/peers.ts";
import { evalPeer, type RecallRow, rankAll, recallRow } from "./lib/recall.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { everyNth, round, summarize } from "./lib/stats.ts";

/** The languages of the shared XQuAD dataset folder: the default run. */
export const xquadLanguages = ["en", "es", "de", "ru", "ar", "hi", "zh"] as const;
/**
 * The public repository's other languages (not in the shared copy): measured with `--langs` and
 * `LORE_DATASETS_DIR` pointing at a folder holding their `xquad.<lang>.json` (bench/README.md).
 */
export const moreXquadLanguages = ["el", "tr", "th", "vi", "ro"] as const;
export type XquadLanguage = (typeof xquadLanguages)[number];
/** Any language of the public XQuAD repository. */
export type AnyXquadLanguage = XquadLanguage | (typeof moreXquadLanguages)[number];

/** `--langs en,el`: each a known XQuAD language, or an error naming the unknown one. */
export function parseXquadLanguages(list: string | undefined): AnyXquadLanguage[] | undefined {
  if (list === undefined) return undefined;
  const known: readonly string[] = [...xquadLanguages, ...moreXquadLanguages];
  return list.split(",").map((code) => {
    if (!known.includes(code))
      throw new Error(`--langs: unknown XQuAD language ${code} (known: ${known.join(", ")})`);
    return code as AnyXquadLanguage;
  });
}

const ks = [1, 5, 20] as const;

export interface XquadData {
  paragraphs: string[];
  questions: { id: string; question: string; answers: string[]; paragraph: number }[];
}

interface XquadFile {
  data: {
    title: string;
    paragraphs: { context: string; qas: { id: string; question: string; answers: { text: string }[] }[] }[];
  }[];
}

/** One language's file: paragraphs in file order, questions pointing at them. */
export function loadXquad(language: AnyXquadLanguage, dir: string = datasetPath("xquad")): XquadData {
  const file = JSON.parse(readFileSync(join(dir, `xquad.${language}.json`), "utf8")) as XquadFile;
  const out: XquadData = { paragraphs: [], questions: [] };
  for (const article of file.data) {
    for (const paragraph of article.paragraphs) {
      const index = out.paragraphs.length;
      out.paragraphs.push(paragraph.context);
      for (const qa of paragraph.qas)
        out.questions.push({
          id: qa.id,
          question: qa.question,
          answers: qa.answers.map((a) => a.text),
          paragraph: index,
        });
    }
  }
  return out;
}

export interface XquadRow {
  language: AnyXquadLanguage;
  questions: number;
  chunks: number;
  /** Lore's `/search/` recall at 1/5/20. */
  lore: Record<string, number>;
  /** Raw LanceDB FTS (stemming and stop words on, its defaults) over the same chunks. */
  rawFts: Record<string, number> | null;
  /** Share of `/query/` responses containing a gold answer, null when answers were skipped. */
  answer: number | null;
  fallbackRate: number | null;
  searchP95Ms: number;
  queryP95Ms: number | null;
  ingestSeconds: number;
}

export interface XquadResult {
  rows: XquadRow[];
  recallRows: RecallRow[];
  path: string;
}

export interface XquadOptions {
  languages?: readonly AnyXquadLanguage[];
  /** Ask every N-th question only (1 = all 1,190). */
  every?: number;
  answers?: boolean;
  peers?: boolean;
  resultsDir?: string;
}

/** Runs XQuAD per language and writes `xquad.json`. */
export async function runXquad(options: XquadOptions = {}): Promise<XquadResult> {
  const languages = options.languages ?? xquadLanguages;
  const rows: XquadRow[] = [];
  const recallRows: RecallRow[] = [];
  const server = await startBenchServer();
  const chunksByLanguage = new Map<AnyXquadLanguage, PeerChunk[]>();
  try {
    const client = new LoreClient(server.api);
    await client.login();
    for (const language of languages) {
      const data = loadXquad(language);
      const questions = everyNth(data.questions, options.every ?? 1);
      const started = performance.now();
      const source = await client.createTextSource(
        `XQuAD ${language}`,
        data.paragraphs.map((content, i) => ({ title: `P${i + 1}`, content })),
      );
      await client.waitReady(source.id);
      const agent = await client.createAgent(`XQuAD ${language}`, { dataSourceIds: [source.id] });
      const ingestSeconds = round((performance.now() - started) / 1000, 1);
      const chunks = await readProductChunks(server.dataDir, [source.id]);
      chunksByLanguage.set(language, chunks);
      const chunkText = new Map(chunks.map((c) => [c.id, c.text]));
      const hit = (chunkId: string, content: string, answers: readonly string[]) =>
        containsAnswer(chunkText.get(chunkId) ?? content, answers);

      const queries = questions.map((q) => ({ text: q.question, q }));
      for (const q of queries.slice(0, 20)) await client.search(agent.id, q.text, 20, "keyword");
      const { ranks, ms } = await rankAll(
        queries,
        async (q) => (await client.search(agent.id, q.text, 20, "keyword")).results,
        (h, q) => hit(h.chunkId, h.content, q.q.answers),
      );
      const row = recallRow(
        {
          system: "Lore (default server)",
          mode: "keyword",
          data: `XQuAD ${language}`,
          chunks: chunks.length,
          via: "HTTP POST /search/",
        },
        ranks,
        ms,
        ks,
      );
      recallRows.push(row);

      let answer: number | null = null;
      let fallbackRate: number | null = null;
      let queryP95Ms: number | null = null;
      if (options.answers ?? true) {
        let answered = 0;
        let fallbacks = 0;
        const queryMs: number[] = [];
        for (const { q } of queries) {
          const start = performance.now();
          const res = await client.query(agent.id, q.question);
          queryMs.push(performance.now() - start);
          if (containsAnswer(res.response, q.answers)) answered++;
          if (res.sources.length === 0) fallbacks++;
        }
        answer = round(answered / Math.max(1, queries.length), 4);
        fallbackRate = round(fallbacks / Math.max(1, queries.length), 4);
        queryP95Ms = summarize(queryMs).p95;
      }
      rows.push({
        language,
        questions: queries.length,
        chunks: chunks.length,
        lore: row.recall,
        rawFts: null,
        answer,
        fallbackRate,
        searchP95Ms: round(row.p95Ms, 1),
        queryP95Ms,
        ingestSeconds,
      });
      log(`xquad: ${language} ${JSON.stringify(rows.at(-1))}`);
    }
  } finally {
    await server.close();
  }

  if (options.peers ?? true) {
    for (const row of rows) {
      const chunks = chunksByLanguage.get(row.language) ?? [];
      const data = loadXquad(row.language);
      const queries = everyNth(data.questions, options.every ?? 1).map((q) => ({ text: q.question, q }));
      const raw = await rawLanceFts(chunks);
      const peer = await evalPeer(
        raw,
        `XQuAD ${row.language}`,
        queries,
        (h, q) => containsAnswer(h.text, q.q.answers),
        ks,
      );
      await raw.close();
      recallRows.push(peer);
      row.rawFts = peer.recall;
    }
  }

  const path = writeResult("xquad", { rows, recallRows }, options.resultsDir);
  return { rows, recallRows, path };
}

/** Per-language table: Lore's top-k and answers beside raw FTS, with each figure's gap to English. */
export function xquadTable(result: Pick<XquadResult, "rows">): string {
  const en = result.rows.find((r) => r.language === "en");
  const gap = (value: number | null | undefined, english: number | null | undefined) =>
    value == null ? "—" : english == null ? String(value) : `${value} (${round(value - english, 3)})`;
  return markdownTable(
    [
      "lang",
      "questions",
      "chunks",
      ...ks.map((k) => `top-${k}`),
      "answer",
      "fallback",
      ...ks.map((k) => `raw FTS top-${k}`),
      "search p95 ms",
      "query p95 ms",
    ],
    result.rows.map((r) => [
      r.language,
      r.questions,
      r.chunks,
      ...ks.map((k, i) => (i === 0 ? gap(r.lore[`@${k}`], en?.lore[`@${k}`]) : r.lore[`@${k}`])),
      gap(r.answer, en?.answer),
      r.fallbackRate ?? "—",
      ...ks.map((k) => r.rawFts?.[`@${k}`] ?? "—"),
      r.searchP95Ms,
      r.queryP95Ms ?? "—",
    ]),
  );
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runXquad({
    languages: parseXquadLanguages(argValue("--langs")),
    every: Number(argValue("--every") ?? 1),
    answers: !process.argv.includes("--no-answers"),
    peers: !process.argv.includes("--no-peers"),
  });
  console.log(xquadTable(result));
  console.log(`wrote ${result.path}`);
}
