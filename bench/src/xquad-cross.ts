/**
 * XQuAD across languages: the 240 English paragraphs as one `text` source, the same 1,190 questions
 * asked in each language of the XQuAD dataset (read through datasets.ts) (XQuAD is parallel: a question's id names
 * the same question, and so the same English gold answers, in every language).
 *
 *   node_modules/.bin/tsx bench/src/xquad-cross.ts [--langs es,de] [--every N] [--no-answers] [--no-dictionaries]
 *
 * - Retrieval: `POST /agents/{id}/search/` (keyword) topK 20; a hit = the chunk's text contains a
 *   SQuAD-normalised English gold answer; hit@1/5/20.
 * - Answers: `POST /query/` (extractive answerer, no model); answer = the response contains an
 *   English gold answer, fallback = a response without sources, uncertain = offered with the doubt note.
 * - `--no-dictionaries` starts the server with `LORE_DICTIONARIES_DIR` at an empty folder: the
 *   figures without translation (as before issue #53).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { crossLanguageNotes } from "../../server/src/text/messages.ts";
import { containsAnswer } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { readProductChunks } from "./lib/peers.ts";
import { rankAll, recallRow } from "./lib/recall.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { everyNth, round, summarize } from "./lib/stats.ts";
import { loadXquad, type XquadLanguage, xquadLanguages } from "./xquad.ts";

const ks = [1, 5, 20] as const;

export interface CrossRow {
  /** The questions' language; the paragraphs are English. */
  language: XquadLanguage;
  questions: number;
  /** `/search/` hit@1/5/20 on the English chunks. */
  hits: Record<string, number>;
  answer: number | null;
  fallbackRate: number | null;
  /** The share answered with the doubt note (`uncertain`): offered, not stated. */
  uncertainRate: number | null;
  /** The share of questions whose hit@5 missed: the goal's yardstick for the fallback rate. */
  missAt5: number;
  searchP95Ms: number;
  queryP95Ms: number | null;
}

export interface CrossOptions {
  languages?: readonly XquadLanguage[];
  every?: number;
  answers?: boolean;
  /** False: the server finds no compiled dictionary (an empty `LORE_DICTIONARIES_DIR`). */
  dictionaries?: boolean;
  resultsDir?: string;
}

/** Runs every question language against the English paragraphs and writes `xquad-cross.json`. */
export async function runXquadCross(
  options: CrossOptions = {},
): Promise<{ rows: CrossRow[]; dictionaries: boolean; path: string }> {
  const languages = options.languages ?? xquadLanguages;
  const dictionaries = options.dictionaries ?? true;
  const env: Record<string, string> = dictionaries
    ? {}
    : { LORE_DICTIONARIES_DIR: mkdtempSync(join(tmpdir(), "lore-no-dictionaries-")) };
  const server = await startBenchServer(env);
  const rows: CrossRow[] = [];
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const english = loadXquad("en");
    const source = await client.createTextSource(
      "XQuAD en",
      english.paragraphs.map((content, i) => ({ title: `P${i + 1}`, content })),
    );
    await client.waitReady(source.id);
    const agent = await client.createAgent("XQuAD cross-language", { dataSourceIds: [source.id] });
    const chunks = await readProductChunks(server.dataDir, [source.id]);
    const chunkText = new Map(chunks.map((c) => [c.id, c.text]));
    const goldById = new Map(english.questions.map((q) => [q.id, q.answers]));
    for (const language of languages) {
      const data = loadXquad(language);
      const queries = everyNth(data.questions, options.every ?? 1).map((q) => ({
        text: q.question,
        answers: goldById.get(q.id) ?? [],
      }));
      for (const q of queries.slice(0, 10)) await client.search(agent.id, q.text, 20, "keyword");
      // A language's dictionary is read on a worker thread on its first question, the questions
      // meanwhile searched as written: measured once one is answered translated (at most a minute).
      if (dictionaries && language !== "en")
        for (let i = 0, until = performance.now() + 60_000; performance.now() < until; i++) {
          const warm = queries[i % Math.min(10, queries.length)];
          if (
            !warm ||
            (await client.query(agent.id, warm.text)).response.includes(crossLanguageNotes[language])
          )
            break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      const { ranks, ms } = await rankAll(
        queries,
        async (q) => (await client.search(agent.id, q.text, 20, "keyword")).results,
        (h, q) => containsAnswer(chunkText.get(h.chunkId) ?? h.content, q.answers),
      );
      const row = recallRow(
        { system: "Lore", mode: "keyword", data: `XQuAD ${language}→en`, chunks: chunks.length, via: "HTTP" },
        ranks,
        ms,
        ks,
      );
      let answer: number | null = null;
      let fallbackRate: number | null = null;
      let uncertainRate: number | null = null;
      let queryP95Ms: number | null = null;
      if (options.answers ?? true) {
        let answered = 0;
        let fallbacks = 0;
        let uncertain = 0;
        const queryMs: number[] = [];
        for (const q of queries) {
          const start = performance.now();
          const res = await client.query(agent.id, q.text);
          queryMs.push(performance.now() - start);
          if (containsAnswer(res.response, q.answers)) answered++;
          if (res.sources.length === 0) fallbacks++;
          if (res.outcome === "uncertain") uncertain++;
        }
        answer = round(answered / Math.max(1, queries.length), 4);
        fallbackRate = round(fallbacks / Math.max(1, queries.length), 4);
        uncertainRate = round(uncertain / Math.max(1, queries.length), 4);
        queryP95Ms = summarize(queryMs).p95;
      }
      rows.push({
        language,
        questions: queries.length,
        hits: row.recall,
        answer,
        fallbackRate,
        uncertainRate,
        missAt5: round(1 - (row.recall["@5"] ?? 0), 4),
        searchP95Ms: round(row.p95Ms, 1),
        queryP95Ms,
      });
      log(`xquad-cross: ${language} ${JSON.stringify(rows.at(-1))}`);
    }
  } finally {
    await server.close();
  }
  const path = writeResult(
    dictionaries ? "xquad-cross" : "xquad-cross-no-dictionaries",
    { rows, dictionaries },
    options.resultsDir,
  );
  return { rows, dictionaries, path };
}

/** Per question language: hit@k on the English paragraphs, answers and fallbacks. */
export function xquadCrossTable(result: { rows: readonly CrossRow[] }): string {
  return markdownTable(
    [
      "question language",
      "questions",
      ...ks.map((k) => `hit@${k}`),
      "answer",
      "fallback",
      "uncertain",
      "hit@5 misses",
      "search p95 ms",
      "query p95 ms",
    ],
    result.rows.map((r) => [
      r.language,
      r.questions,
      ...ks.map((k) => r.hits[`@${k}`] ?? "—"),
      r.answer ?? "—",
      r.fallbackRate ?? "—",
      r.uncertainRate ?? "—",
      r.missAt5,
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
  const result = await runXquadCross({
    languages: argValue("--langs")?.split(",") as XquadLanguage[] | undefined,
    every: Number(argValue("--every") ?? 1),
    answers: !process.argv.includes("--no-answers"),
    dictionaries: !process.argv.includes("--no-dictionaries"),
  });
  console.log(xquadCrossTable(result));
  console.log(`wrote ${result.path}`);
}
