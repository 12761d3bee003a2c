/**
 * SQuAD v1.1 dev through the product's HTTP API (server in its own process), peers side by side.
 *
 *   node_modules/.bin/tsx bench/src/squad.ts [--articles N] [--questions N] [--no-hashed] [--no-peers]
 *
 * - Ingest: one `text` source, one entry per article (paragraphs joined by blank lines); Lore chunks.
 * - Retrieval: `POST /agents/{id}/search/` topK 20, recall@1/3/5/10/20 = a hit's full text contains a
 *   SQuAD-normalised gold answer. `keyword` on the default server; `keyword`/`semantic`/`hybrid` on a
 *   second server with LORE_EMBEDDING_MODEL=hashed.
 * - Answers: `POST /agents/{id}/query/` (extractive) on every 5th question: answer recall = the
 *   `response` contains a gold answer; citation precision = share of cited chunks (named by an [n] marker) whose full text
 *   (looked up by `chunkId` in the chunks Lore indexed) contains a gold answer.
 * - Follow-ups: questions naming the article's subject are rewritten with "it" and asked after a
 *   generic first question, in the same conversation vs a new one.
 * - Peers on the same chunks (raw LanceDB FTS, wink BM25) and LangChain.js with its own splitter.
 */
import { fileURLToPath } from "node:url";
import { containsAnswer, loadSquad, type SquadData, type SquadQuestion } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { langchainBm25, type PeerChunk, rawLanceFts, readProductChunks, winkBm25 } from "./lib/peers.ts";
import { evalPeer, type RecallRow, rankAll, recallRow, squadKs } from "./lib/recall.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { everyNth, round, summarize } from "./lib/stats.ts";

export interface SquadOptions {
  /** Use only the first N articles (all 48 by default). */
  articles?: number;
  /** Use only the first N questions of those articles. */
  questions?: number;
  /** Run the second server with the hashed embedder for semantic/hybrid. */
  hashed?: boolean;
  peers?: boolean;
  /** Follow-up pairs to ask (0 skips). */
  followUps?: number;
  resultsDir?: string;
  data?: SquadData;
}

export interface AnswerStats {
  questions: number;
  answerRecall: number;
  citationPrecision: number;
  /** Answers whose first cited chunk contains a gold answer. */
  firstCitationPrecision: number;
  answersWithCitations: number;
  fallbacks: number;
  latencyMs: ReturnType<typeof summarize>;
}

export interface FollowUpStats {
  pairs: number;
  standaloneRecall: number;
  withHistoryRecall: number;
  withoutHistoryRecall: number;
  /** Same, judged on the retrieved/cited chunks instead of the response. */
  withHistorySourceRecall: number;
  withoutHistorySourceRecall: number;
}

export interface SquadResult {
  articles: number;
  chunks: number;
  ingestSeconds: number;
  rows: RecallRow[];
  answers: AnswerStats;
  followUps: FollowUpStats | null;
  notes: string[];
  path: string;
}

interface Q {
  text: string;
  q: SquadQuestion;
}

const ks = squadKs;

function articleText(data: SquadData, articleIndex: number): string {
  const article = data.articles[articleIndex];
  if (!article) return "";
  return article.paragraphIndexes.map((i) => data.paragraphs[i]?.context ?? "").join("\n\n");
}

function titleWords(title: string): string {
  return title.replace(/_/g, " ").replace(/\s*\(.*\)$/, "");
}

/** A follow-up with a pronoun: the question with the article's subject replaced by "it", or null. */
export function pronounFollowUp(question: string, articleTitle: string): string | null {
  const subject = titleWords(articleTitle);
  if (subject.length < 3) return null;
  const pattern = new RegExp(`\\b(the )?${subject.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i");
  if (!pattern.test(question)) return null;
  const rewritten = question.replace(pattern, "it");
  return rewritten === question ? null : rewritten;
}

async function ingest(client: LoreClient, data: SquadData, articleIndexes: number[], label: string) {
  const started = performance.now();
  const source = await client.createTextSource(
    `SQuAD ${label}`,
    articleIndexes.map((i) => ({
      title: titleWords(data.articles[i]?.title ?? `Article ${i}`),
      content: articleText(data, i),
    })),
  );
  const ready = await client.waitReady(source.id);
  const agent = await client.createAgent(`SQuAD ${label}`, { dataSourceIds: [source.id] });
  return { source: ready, agent, seconds: round((performance.now() - started) / 1000, 1) };
}

async function loreRows(
  client: LoreClient,
  agentId: string,
  modes: readonly ("keyword" | "semantic" | "hybrid")[],
  sets: { name: string; queries: Q[] }[],
  chunks: number,
  serverLabel: string,
): Promise<RecallRow[]> {
  const rows: RecallRow[] = [];
  // Warm-up so the first timed request doesn't pay for cold caches.
  for (const q of sets[0]?.queries.slice(0, 20) ?? []) await client.search(agentId, q.text, 20, modes[0]);
  for (const mode of modes) {
    for (const set of sets) {
      const { ranks, ms } = await rankAll(
        set.queries,
        async (q) => (await client.search(agentId, q.text, 20, mode)).results,
        (hit, q) => containsAnswer(hit.content, q.q.answers),
      );
      rows.push(
        recallRow(
          { system: `Lore ${serverLabel}`, mode, data: set.name, chunks, via: "HTTP POST /search/" },
          ranks,
          ms,
          ks,
        ),
      );
      log(`squad: Lore ${serverLabel} ${mode} ${set.name} ${JSON.stringify(rows.at(-1)?.recall)}`);
    }
  }
  return rows;
}

async function answerStats(client: LoreClient, agentId: string, sample: Q[], chunkText: Map<string, string>) {
  let answered = 0;
  let cited = 0;
  let citedRight = 0;
  let firstRight = 0;
  let withCitations = 0;
  let fallbacks = 0;
  const ms: number[] = [];
  for (const { q } of sample) {
    const start = performance.now();
    const res = await client.query(agentId, q.question);
    ms.push(performance.now() - start);
    if (containsAnswer(res.response, q.answers)) answered++;
    if (res.sources.length === 0) fallbacks++;
    else withCitations++;
    // Cited = named by an [n] marker of the response: the further articles an uncertain answer lists
    // as "may help" are not citations (an answer that cites nothing counts all its sources, as before).
    const ranks = new Set(
      [...res.response.matchAll(/\[([\d,\s]+)\]/g)].flatMap((m) => (m[1] ?? "").split(",").map(Number)),
    );
    const citedSources = res.sources.filter((s) => ranks.has(s.rank));
    (citedSources.length > 0 ? citedSources : res.sources).forEach((s, i) => {
      const text = chunkText.get(s.chunkId) ?? s.content;
      const ok = containsAnswer(text, q.answers);
      cited++;
      if (ok) citedRight++;
      if (i === 0 && ok) firstRight++;
    });
  }
  return {
    questions: sample.length,
    answerRecall: round(answered / Math.max(1, sample.length), 4),
    citationPrecision: round(citedRight / Math.max(1, cited), 4),
    firstCitationPrecision: round(firstRight / Math.max(1, withCitations), 4),
    answersWithCitations: withCitations,
    fallbacks,
    latencyMs: summarize(ms),
  } satisfies AnswerStats;
}

async function followUpStats(
  client: LoreClient,
  agentId: string,
  data: SquadData,
  questions: SquadQuestion[],
  limit: number,
  chunkText: Map<string, string>,
): Promise<FollowUpStats | null> {
  const pairs: { q: SquadQuestion; followUp: string; opener: string }[] = [];
  for (const q of questions) {
    const article = data.articles[data.paragraphs[q.paragraphIndex]?.articleIndex ?? -1];
    if (!article) continue;
    const followUp = pronounFollowUp(q.question, article.title);
    if (followUp) pairs.push({ q, followUp, opener: `What is ${titleWords(article.title)}?` });
  }
  const step = Math.max(1, Math.floor(pairs.length / limit));
  const sample = everyNth(pairs, step).slice(0, limit);
  if (sample.length === 0) return null;
  let standalone = 0;
  let withHistory = 0;
  let without = 0;
  let withSrc = 0;
  let withoutSrc = 0;
  const sourcesHit = (sources: { chunkId: string; content: string }[], answers: string[]) =>
    sources.some((s) => containsAnswer(chunkText.get(s.chunkId) ?? s.content, answers));
  for (const { q, followUp, opener } of sample) {
    if (containsAnswer((await client.query(agentId, q.question)).response, q.answers)) standalone++;
    const first = await client.query(agentId, opener);
    const second = await client.query(agentId, followUp, first.conversationId);
    if (containsAnswer(second.response, q.answers)) withHistory++;
    if (sourcesHit(second.sources, q.answers)) withSrc++;
    const fresh = await client.query(agentId, followUp);
    if (containsAnswer(fresh.response, q.answers)) without++;
    if (sourcesHit(fresh.sources, q.answers)) withoutSrc++;
  }
  const n = sample.length;
  return {
    pairs: n,
    standaloneRecall: round(standalone / n, 4),
    withHistoryRecall: round(withHistory / n, 4),
    withoutHistoryRecall: round(without / n, 4),
    withHistorySourceRecall: round(withSrc / n, 4),
    withoutHistorySourceRecall: round(withoutSrc / n, 4),
  };
}

/** Runs the whole SQuAD benchmark and writes `squad.json`. */
export async function runSquad(options: SquadOptions = {}): Promise<SquadResult> {
  const data = options.data ?? loadSquad();
  const articleCount = Math.min(options.articles ?? data.articles.length, data.articles.length);
  const articleIndexes = Array.from({ length: articleCount }, (_, i) => i);
  const inArticles = new Set(articleIndexes);
  let questions = data.questions.filter((q) =>
    inArticles.has(data.paragraphs[q.paragraphIndex]?.articleIndex ?? -1),
  );
  if (options.questions !== undefined) questions = questions.slice(0, options.questions);
  const all: Q[] = questions.map((q) => ({ text: q.question, q }));
  // The fixed sample: every 5th question of the combined set (index % 5 == 0), as in GOALS.md.
  const sample = all.filter(({ q }) => q.index % 5 === 0);
  const sets = [
    { name: `SQuAD every 5th (${sample.length} q)`, queries: sample },
    { name: `SQuAD all (${all.length} q)`, queries: all },
  ];
  const notes: string[] = [];
  const rows: RecallRow[] = [];

  log(`squad: ${articleCount} articles, ${all.length} questions, sample ${sample.length}`);
  const server = await startBenchServer();
  let answers: AnswerStats;
  let followUps: FollowUpStats | null = null;
  let chunks: PeerChunk[];
  let ingestSeconds: number;
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const ingested = await ingest(client, data, articleIndexes, "keyword");
    ingestSeconds = ingested.seconds;
    chunks = await readProductChunks(server.dataDir, [ingested.source.id]);
    log(`squad: ingested in ${ingestSeconds}s → ${chunks.length} chunks`);
    rows.push(
      ...(await loreRows(client, ingested.agent.id, ["keyword"], sets, chunks.length, "(default server)")),
    );
    const chunkText = new Map(chunks.map((c) => [c.id, c.text]));
    answers = await answerStats(client, ingested.agent.id, sample, chunkText);
    log(`squad: extractive answers ${JSON.stringify(answers)}`);
    if ((options.followUps ?? 100) > 0) {
      followUps = await followUpStats(
        client,
        ingested.agent.id,
        data,
        questions,
        options.followUps ?? 100,
        chunkText,
      );
      log(`squad: follow-ups ${JSON.stringify(followUps)}`);
    }
  } finally {
    await server.close();
  }

  if (options.hashed ?? true) {
    const hashed = await startBenchServer({ LORE_EMBEDDING_MODEL: "hashed" });
    try {
      const client = new LoreClient(hashed.api);
      await client.login();
      const ingested = await ingest(client, data, articleIndexes, "hashed");
      log(`squad: hashed server ingested in ${ingested.seconds}s`);
      notes.push(`Hashed-embedder server ingest: ${ingested.seconds}s.`);
      rows.push(
        ...(await loreRows(
          client,
          ingested.agent.id,
          ["keyword", "semantic", "hybrid"],
          sets.slice(0, 1),
          ingested.source.chunkCount,
          "(LORE_EMBEDDING_MODEL=hashed)",
        )),
      );
    } finally {
      await hashed.close();
    }
  }

  if (options.peers ?? true) {
    const relevant = (hit: { text: string }, q: Q) => containsAnswer(hit.text, q.q.answers);
    const raw = await rawLanceFts(chunks);
    for (const set of sets) rows.push(await evalPeer(raw, set.name, set.queries, relevant, ks));
    await raw.close();
    const wink = winkBm25(chunks);
    for (const set of sets) rows.push(await evalPeer(wink, set.name, set.queries, relevant, ks));
    try {
      const lc = await langchainBm25(
        articleIndexes.map((i) => ({
          id: String(i),
          title: data.articles[i]?.title ?? "",
          text: articleText(data, i),
        })),
      );
      // BM25Retriever rescores every chunk per query in JS, so it runs on the fixed sample only.
      rows.push(await evalPeer(lc, sets[0]?.name ?? "", sample, relevant, ks));
      notes.push(
        "LangChain.js BM25Retriever rescans every chunk per query; measured on the every-5th sample only.",
      );
    } catch (error) {
      notes.push(`LangChain.js peer could not run: ${String(error)}`);
    }
    for (const row of rows.slice(-5)) log(`squad: ${row.system} ${row.data} ${JSON.stringify(row.recall)}`);
  }

  const path = writeResult(
    "squad",
    { articles: articleCount, chunks: chunks.length, ingestSeconds, rows, answers, followUps, notes },
    options.resultsDir,
  );
  return {
    articles: articleCount,
    chunks: chunks.length,
    ingestSeconds,
    rows,
    answers,
    followUps,
    notes,
    path,
  };
}

export function squadTable(result: SquadResult): string {
  return markdownTable(
    ["system", "mode", "questions", "chunks", ...ks.map((k) => `top-${k}`), "p50 ms", "p95 ms", "via"],
    result.rows.map((r) => [
      r.system,
      r.mode,
      r.questions,
      r.chunks,
      ...ks.map((k) => r.recall[`@${k}`]),
      round(r.p50Ms, 1),
      round(r.p95Ms, 1),
      r.via,
    ]),
  );
}

function argValue(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runSquad({
    articles: argValue("--articles"),
    questions: argValue("--questions"),
    hashed: !process.argv.includes("--no-hashed"),
    peers: !process.argv.includes("--no-peers"),
    followUps: argValue("--follow-ups"),
  });
  console.log(squadTable(result));
  console.log(JSON.stringify({ answers: result.answers, followUps: result.followUps }, null, 2));
  console.log(`wrote ${result.path}`);
}
