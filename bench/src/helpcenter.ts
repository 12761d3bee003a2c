/**
 * A help center through the product's HTTP API: the DuckDuckGo help pages (202 articles) and 201
 * support-chat questions (answerable, unanswerable, follow-ups), reported per half, peers side by side.
 *
 *   node_modules/.bin/tsx bench/src/helpcenter.ts [--no-peers] [--half tuning|test|all] [--dir DIR]
 *
 * `--dir` runs another help center in the same format (`articles.json`, `questions.json`) and writes
 * `helpcenter.json` into that directory, not into bench/results/.
 *
 * Run twice, each on a fresh server: the articles as entries of one `text` source, and as `.md` files
 * (YAML front matter with the title) uploaded to one `file` source. One agent per source with the
 * default settings (keyword retrieval on the default server, extractive answerer).
 * - Retrieval: `POST /agents/{id}/search/` topK 10 on answerable items; hit@k = one of the top k chunks
 *   belongs to a gold article (matched by title), MRR = 1 / rank of the first gold chunk (0 past 10).
 * - Answers: `POST /agents/{id}/query/` on answerable items: answered (not the agent's fallback and at
 *   least one source), fact containment (every fact in `response`), first citation correct, words.
 * - Unanswerable items: fallback rate. Follow-ups: `second` after `first` in one conversation vs alone.
 * - Outcomes (issue #29): answerable items *right* (outcome `answered`, every fact in `response`),
 *   *helped* (`uncertain`, and every fact in `response` or a gold article among the first three
 *   distinct source titles), *wrong* (`answered`, a fact missing); unanswerable items *honest*
 *   (`uncertain` or `fallback`) and *wrong* (`answered`). Calibration: answerable and unanswerable
 *   items by `confidence` in tenths vs the share right. Trade-off: the same counts under each answer
 *   policy's thresholds (confidence-weights.generated.ts), from each item's confidence.
 * - Peers on the same questions: raw LanceDB FTS and wink BM25 over Lore's chunks, LangChain.js over
 *   the documents as ingested.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AnswerOutcome, type AnswerPolicy, answerPolicies, type QueryResponse } from "@lore/shared";
import { outcomeFor } from "../../server/src/generation/confidence.ts";
import { fittedConfidence } from "../../server/src/generation/confidence-weights.generated.ts";
import {
  containsFact,
  type HelpArticle,
  type HelpCenterData,
  type HelpQuestion,
  loadHelpCenter,
} from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import {
  langchainBm25,
  type PeerChunk,
  type Retriever,
  rawLanceFts,
  readProductChunks,
  winkBm25,
} from "./lib/peers.ts";
import { type RecallRow, rankAll, recallRow } from "./lib/recall.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { type LatencySummary, percentile, round, summarize } from "./lib/stats.ts";

export type IngestMode = "text" | "md";
export type Half = HelpQuestion["half"];

const ks = [1, 3, 5, 10] as const;
const halves = ["tuning", "test"] as const satisfies readonly Half[];
const ingestModes = ["text", "md"] as const satisfies readonly IngestMode[];
const ingestLabel: Record<IngestMode, string> = {
  text: "`text` entries",
  md: "`.md` files",
};

export interface HelpCenterOptions {
  /**
   * Article paths to ingest, or N: the selected items' gold articles first, then the others in file
   * order, N in all. Every article by default. Items with no gold article ingested are left out.
   */
  articles?: string[] | number;
  /** Only the first N items of each kind (answerable, unanswerable, followup). */
  questions?: number;
  /** The half to ask; both by default. */
  half?: Half | "all";
  /** Ingest modes to run; both by default. */
  modes?: readonly IngestMode[];
  peers?: boolean;
  resultsDir?: string;
  data?: HelpCenterData;
}

/** A retrieval row: hit@k under `recall`, plus MRR, the ingest mode and the half. */
export interface HitRow extends RecallRow {
  ingest: IngestMode;
  half: Half;
  mrr: number;
}

export interface AnswerStats {
  questions: number;
  /** Share of answerable items answered: not the fallback message, at least one source. */
  answered: number;
  /** Share whose `response` contains every fact of the item. */
  factContainment: number;
  /** Share whose first source is a gold article (an unanswered item counts as wrong). */
  firstCitationCorrect: number;
  /** Median length in words of the answered responses. */
  medianAnswerWords: number;
  /** The 90th percentile of answered responses' words (issue #50: no article dumps). */
  p90AnswerWords: number;
  /** Client-side wall clock per `/query/`. */
  latencyMs: LatencySummary;
  /** The response's own `latency` field. */
  serverLatencyMs: LatencySummary;
}

export interface FollowUpSide {
  factContainment: number;
  firstCitationCorrect: number;
}

export interface FollowUpStats {
  pairs: number;
  /** `second` asked after `first` in the same conversation. */
  oneConversation: FollowUpSide;
  /** `second` asked alone in a new conversation. */
  alone: FollowUpSide;
}

/** The issue #29 outcome counts of one half, as shares. */
export interface OutcomeStats {
  /** Answerable: answered with every fact. */
  right: number;
  /** Answerable: uncertain, and a fact-complete response or a gold article among three distinct sources. */
  helped: number;
  /** Answerable: answered with a fact missing. */
  wrong: number;
  /** Unanswerable: uncertain or fallback. */
  honest: number;
  /** Unanswerable: answered. */
  unanswerableWrong: number;
  /** Answerable items per outcome. */
  outcomes: Record<AnswerOutcome, number>;
}

export interface CalibrationRow {
  from: number;
  count: number;
  meanConfidence: number;
  shareRight: number;
}

export interface PolicyRow {
  policy: AnswerPolicy;
  half: Half;
  answer: number;
  doubt: number;
  right: number;
  helped: number;
  wrong: number;
  honest: number;
}

/** One point of the frontier: the counts a pair of thresholds gives on one half (text ingest). */
export type FrontierRow = Omit<PolicyRow, "policy">;

/** The threshold pairs the frontier table walks: every answer threshold with every doubt threshold. */
const FRONTIER_ANSWER = [0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7];
const FRONTIER_DOUBT = [0, 0.075, 0.2, 0.3];

export interface HalfStats {
  ingest: IngestMode;
  half: Half;
  outcomes: OutcomeStats;
  calibration: CalibrationRow[];
  answers: AnswerStats;
  unanswerable: { questions: number; fallbackRate: number };
  followUps: FollowUpStats;
}

export interface IngestRun {
  ingest: IngestMode;
  documents: number;
  chunks: number;
  ingestSeconds: number;
  /** Titles of indexed documents that name no article (they would never count as a hit). */
  unmatchedTitles: string[];
}

/** One item's outcome in one ingest mode, kept in the JSON so failures can be read. */
export interface ItemDetail {
  ingest: IngestMode;
  id: string;
  half: Half;
  kind: HelpQuestion["kind"];
  /** The question asked (`second` for follow-ups). */
  question: string;
  first?: string;
  gold: string[];
  goldTitles: string[];
  facts: string[];
  /** Titles of the `/search/` top-10 chunks (answerable items). */
  topTitles?: string[];
  /** Rank of the first gold chunk in the search top 10, null when none. */
  goldRank?: number | null;
  searchMs?: number;
  response: string;
  sourceTitles: string[];
  answered: boolean;
  factsOk: boolean;
  firstCitationOk: boolean;
  outcome: AnswerOutcome;
  confidence: number;
  /** A gold article is among the first three distinct source titles. */
  goldListed: boolean;
  ms: number;
  serverLatency: number;
  /** Follow-ups: the answer to `first`, and `second` asked alone. */
  firstResponse?: string;
  alone?: ReturnType<typeof judge>;
}

export interface HelpCenterResult {
  articles: number;
  questions: number;
  runs: IngestRun[];
  rows: HitRow[];
  halves: HalfStats[];
  /** Right, helped, wrong and honest under each policy (text ingest), from each item's confidence. */
  policies: PolicyRow[];
  /** The same counts over a grid of thresholds: what any setting of the two thresholds would give. */
  frontier: FrontierRow[];
  items: ItemDetail[];
  notes: string[];
  path: string;
}

interface Item {
  q: HelpQuestion;
  /** What is searched and asked: `question`, or `second` for follow-ups. */
  text: string;
  goldTitles: Set<string>;
}

/** Items selected by `questions` (first N per kind) and `half`, in file order. */
function selectItems(questions: readonly HelpQuestion[], options: HelpCenterOptions): HelpQuestion[] {
  const perKind = new Map<string, number>();
  return questions.filter((q) => {
    const n = perKind.get(q.kind) ?? 0;
    perKind.set(q.kind, n + 1);
    if (options.questions !== undefined && n >= options.questions) return false;
    return options.half === undefined || options.half === "all" || q.half === options.half;
  });
}

function selectArticles(
  articles: readonly HelpArticle[],
  items: readonly HelpQuestion[],
  wanted: HelpCenterOptions["articles"],
): HelpArticle[] {
  if (wanted === undefined) return [...articles];
  if (Array.isArray(wanted)) {
    const set = new Set(wanted);
    return articles.filter((a) => set.has(a.path));
  }
  const gold = new Set(items.flatMap((q) => q.gold));
  const ordered = [...articles.filter((a) => gold.has(a.path)), ...articles.filter((a) => !gold.has(a.path))];
  return ordered.slice(0, wanted);
}

/** The `.md` file as uploaded: YAML front matter with the title, then the article. */
export function markdownFile(article: HelpArticle): string {
  return `---\ntitle: ${JSON.stringify(article.title)}\n---\n${article.content}`;
}

/** A unique file name for an article: its repository path with `/` replaced by `__`. */
export function markdownFileName(article: HelpArticle): string {
  return article.path.replaceAll("/", "__");
}

const words = (text: string) => text.trim().split(/\s+/).filter(Boolean).length;
const rate = (n: number, of: number) => (of === 0 ? 0 : round(n / of, 4));
const count = <T>(items: readonly T[], ok: (item: T) => boolean) => items.filter(ok).length;

function meanReciprocalRank(ranks: readonly number[]): number {
  if (ranks.length === 0) return 0;
  return round(ranks.reduce((sum, r) => sum + (Number.isFinite(r) ? 1 / r : 0), 0) / ranks.length, 4);
}

function hitRow(
  base: Omit<RecallRow, "recall" | "p50Ms" | "p95Ms" | "questions">,
  ingest: IngestMode,
  half: Half,
  ranks: readonly number[],
  ms: readonly number[],
): HitRow {
  // Ranks past 10 don't count: every system returns its top 10 only.
  const capped = ranks.map((r) => (r <= 10 ? r : Number.POSITIVE_INFINITY));
  return { ...recallRow(base, capped, ms, ks), ingest, half, mrr: meanReciprocalRank(capped) };
}

async function ingest(client: LoreClient, mode: IngestMode, articles: readonly HelpArticle[]) {
  const started = performance.now();
  const name = `Help center (${mode})`;
  let source: Awaited<ReturnType<LoreClient["createTextSource"]>>;
  if (mode === "text") {
    source = await client.createTextSource(
      name,
      articles.map((a) => ({ title: a.title, content: a.content })),
    );
  } else {
    const dir = mkdtempSync(join(tmpdir(), "lore-bench-helpcenter-"));
    try {
      const paths = articles.map((a) => {
        const path = join(dir, markdownFileName(a));
        writeFileSync(path, markdownFile(a));
        return path;
      });
      source = await client.createFileSource(name, paths, "text/markdown");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const ready = await client.waitReady(source.id);
  const agent = await client.createAgent(name, { dataSourceIds: [source.id] });
  return { source: ready, agent, seconds: round((performance.now() - started) / 1000, 1) };
}

function judge(res: QueryResponse, fallback: string, item: Item) {
  const answered = res.sources.length > 0 && res.response.trim() !== fallback.trim();
  const firstTitle = res.sources[0]?.title;
  const distinctTitles = [...new Set(res.sources.map((s) => s.title))].slice(0, 3);
  return {
    response: res.response,
    sourceTitles: res.sources.map((s) => s.title),
    answered,
    factsOk: item.q.facts.length > 0 && item.q.facts.every((f) => containsFact(res.response, f)),
    firstCitationOk: answered && firstTitle !== undefined && item.goldTitles.has(firstTitle),
    outcome: res.outcome,
    confidence: res.confidence,
    goldListed: distinctTitles.some((t) => item.goldTitles.has(t)),
  };
}

/** The issue #29 counts of answerable and unanswerable items (follow-ups aside). */
export function outcomeStats(
  answerable: readonly Pick<ItemDetail, "outcome" | "factsOk" | "goldListed">[],
  unanswerable: readonly Pick<ItemDetail, "outcome">[],
): OutcomeStats {
  const outcomes = { answered: 0, uncertain: 0, fallback: 0 };
  for (const d of answerable) outcomes[d.outcome]++;
  return {
    right: rate(
      count(answerable, (d) => d.outcome === "answered" && d.factsOk),
      answerable.length,
    ),
    helped: rate(
      count(answerable, (d) => d.outcome === "uncertain" && (d.factsOk || d.goldListed)),
      answerable.length,
    ),
    wrong: rate(
      count(answerable, (d) => d.outcome === "answered" && !d.factsOk),
      answerable.length,
    ),
    honest: rate(
      count(unanswerable, (d) => d.outcome !== "answered"),
      unanswerable.length,
    ),
    unanswerableWrong: rate(
      count(unanswerable, (d) => d.outcome === "answered"),
      unanswerable.length,
    ),
    outcomes,
  };
}

/** Confidence in tenths vs the share of those items answered right (unanswerable items never are). */
export function calibrationTable(
  items: readonly Pick<ItemDetail, "kind" | "confidence" | "factsOk">[],
): CalibrationRow[] {
  const bins = Array.from({ length: 10 }, (_, i) => ({ from: i / 10, count: 0, sum: 0, right: 0 }));
  for (const d of items) {
    const bin = bins[Math.min(9, Math.floor(d.confidence * 10))];
    if (!bin) continue;
    bin.count++;
    bin.sum += d.confidence;
    if (d.kind === "answerable" && d.factsOk) bin.right++;
  }
  return bins.map((b) => ({
    from: b.from,
    count: b.count,
    meanConfidence: rate(b.sum, b.count),
    shareRight: rate(b.right, b.count),
  }));
}

/**
 * The counts each policy's thresholds give, from the confidence every item was answered with: the
 * response holds the same passage whether stated or doubted, so only the outcome changes (an item
 * that fell back with confidence 0, having no passage, falls back under every policy; one that fell
 * back below the doubt threshold is judged as a doubt by its retrieved articles).
 */
function policyRows(details: readonly ItemDetail[], present: readonly Half[]): PolicyRow[] {
  return present.flatMap((half) =>
    answerPolicies.map((policy) => {
      const t = fittedConfidence.policies[policy];
      const counts = thresholdCounts(details, half, (c) => outcomeFor(c, policy));
      return { policy, half, answer: t.answer, doubt: t.doubt, ...counts };
    }),
  );
}

/** {@link policyRows} over every pair of {@link FRONTIER_ANSWER} × {@link FRONTIER_DOUBT} (doubt < answer). */
function frontierRows(details: readonly ItemDetail[], present: readonly Half[]): FrontierRow[] {
  const pairs = FRONTIER_ANSWER.flatMap((answer) =>
    FRONTIER_DOUBT.filter((doubt) => doubt < answer).map((doubt) => ({ answer, doubt })),
  );
  return present.flatMap((half) =>
    pairs.map(({ answer, doubt }) => ({
      half,
      answer,
      doubt,
      ...thresholdCounts(details, half, (c) =>
        c >= answer ? "answered" : c >= doubt ? "uncertain" : "fallback",
      ),
    })),
  );
}

/** Right, helped, wrong and honest on one half (text ingest) when `outcome` decides from the confidence. */
function thresholdCounts(
  details: readonly ItemDetail[],
  half: Half,
  outcome: (confidence: number) => AnswerOutcome,
): Pick<PolicyRow, "right" | "helped" | "wrong" | "honest"> {
  const mine = details
    .filter((d) => d.ingest === "text" && d.half === half)
    .map((d) => {
      // Confidence 0: the answerer had no passage to offer, under any thresholds.
      if (d.outcome === "fallback" && d.confidence === 0) return d;
      const relabelled = outcome(d.confidence);
      if (d.outcome !== "fallback" || relabelled !== "uncertain") return { ...d, outcome: relabelled };
      // A fallback by threshold, offered as a doubt instead: its articles would be the first three
      // distinct ones retrieved, estimated from the /search/ top 10 (its passage is not known: no facts).
      const articles = [...new Set(d.topTitles ?? [])].slice(0, 3);
      return { ...d, outcome: relabelled, goldListed: articles.some((t) => d.goldTitles.includes(t)) };
    });
  const o = outcomeStats(
    mine.filter((d) => d.kind === "answerable"),
    mine.filter((d) => d.kind === "unanswerable"),
  );
  return { right: o.right, helped: o.helped, wrong: o.wrong, honest: o.honest };
}

/** Asks every item through Lore's HTTP API and returns one detail per item. */
async function askLore(
  client: LoreClient,
  agentId: string,
  fallback: string,
  mode: IngestMode,
  items: readonly Item[],
): Promise<ItemDetail[]> {
  const details: ItemDetail[] = [];
  const base = (item: Item) => ({
    ingest: mode,
    id: item.q.id,
    half: item.q.half,
    kind: item.q.kind,
    question: item.text,
    gold: item.q.gold,
    goldTitles: [...item.goldTitles],
    facts: item.q.facts,
  });
  const timedQuery = async (message: string, conversationId?: string) => {
    const start = performance.now();
    const res = await client.query(agentId, message, conversationId);
    return { res, ms: round(performance.now() - start, 1) };
  };
  // Warm-up so the first timed requests don't pay for cold caches.
  for (const item of items.slice(0, 10)) {
    await client.search(agentId, item.text, 10);
    await client.query(agentId, item.text);
  }
  const answerable = items.filter((i) => i.q.kind === "answerable");
  const searched = new Map<string, Pick<ItemDetail, "topTitles" | "goldRank" | "searchMs">>();
  for (const item of answerable) {
    const start = performance.now();
    const { results } = await client.search(agentId, item.text, 10);
    const searchMs = round(performance.now() - start, 1);
    const topTitles = results.map((r) => r.title);
    const i = topTitles.findIndex((t) => item.goldTitles.has(t));
    searched.set(item.q.id, { topTitles, goldRank: i < 0 ? null : i + 1, searchMs });
  }
  for (const item of items) {
    if (item.q.kind === "followup") {
      const opener = await client.query(agentId, item.q.first ?? "");
      const { res, ms } = await timedQuery(item.text, opener.conversationId);
      const alone = await client.query(agentId, item.text);
      details.push({
        ...base(item),
        first: item.q.first,
        ...judge(res, fallback, item),
        ms,
        serverLatency: res.latency,
        firstResponse: opener.response,
        alone: judge(alone, fallback, item),
      });
    } else {
      const { res, ms } = await timedQuery(item.text);
      details.push({
        ...base(item),
        ...searched.get(item.q.id),
        ...judge(res, fallback, item),
        ms,
        serverLatency: res.latency,
      });
    }
  }
  return details;
}

function halfStats(mode: IngestMode, half: Half, details: readonly ItemDetail[]): HalfStats {
  const mine = details.filter((d) => d.ingest === mode && d.half === half);
  const answerable = mine.filter((d) => d.kind === "answerable");
  const unanswerable = mine.filter((d) => d.kind === "unanswerable");
  const followUps = mine.filter((d) => d.kind === "followup");
  const answered = answerable.filter((d) => d.answered);
  return {
    ingest: mode,
    half,
    outcomes: outcomeStats(answerable, unanswerable),
    calibration: calibrationTable([...answerable, ...unanswerable]),
    answers: {
      questions: answerable.length,
      answered: rate(answered.length, answerable.length),
      factContainment: rate(
        count(answerable, (d) => d.factsOk),
        answerable.length,
      ),
      firstCitationCorrect: rate(
        count(answerable, (d) => d.firstCitationOk),
        answerable.length,
      ),
      medianAnswerWords: percentile(
        answered.map((d) => words(d.response)),
        50,
      ),
      p90AnswerWords: percentile(
        answered.map((d) => words(d.response)),
        90,
      ),
      latencyMs: summarize(answerable.map((d) => d.ms)),
      serverLatencyMs: summarize(answerable.map((d) => d.serverLatency)),
    },
    unanswerable: {
      questions: unanswerable.length,
      fallbackRate: rate(
        count(unanswerable, (d) => !d.answered),
        unanswerable.length,
      ),
    },
    followUps: {
      pairs: followUps.length,
      oneConversation: {
        factContainment: rate(
          count(followUps, (d) => d.factsOk),
          followUps.length,
        ),
        firstCitationCorrect: rate(
          count(followUps, (d) => d.firstCitationOk),
          followUps.length,
        ),
      },
      alone: {
        factContainment: rate(
          count(followUps, (d) => d.alone?.factsOk === true),
          followUps.length,
        ),
        firstCitationCorrect: rate(
          count(followUps, (d) => d.alone?.firstCitationOk === true),
          followUps.length,
        ),
      },
    },
  };
}

function loreRows(mode: IngestMode, chunks: number, details: readonly ItemDetail[], present: Half[]) {
  return present.map((half) => {
    const mine = details.filter((d) => d.ingest === mode && d.half === half && d.kind === "answerable");
    return hitRow(
      {
        system: "Lore (default server)",
        mode: "keyword",
        data: `${ingestLabel[mode]}, ${half}`,
        chunks,
        via: "HTTP POST /search/",
      },
      mode,
      half,
      mine.map((d) => d.goldRank ?? Number.POSITIVE_INFINITY),
      mine.map((d) => d.searchMs ?? 0),
    );
  });
}

async function peerRows(
  peer: Retriever,
  mode: IngestMode,
  items: readonly Item[],
  present: Half[],
): Promise<HitRow[]> {
  const rows: HitRow[] = [];
  for (const half of present) {
    const queries = items.filter((i) => i.q.kind === "answerable" && i.q.half === half);
    const { ranks, ms } = await rankAll(
      queries,
      (q) => peer.search(q.text, 10),
      (hit, q) => q.goldTitles.has(hit.title),
    );
    rows.push(
      hitRow(
        {
          system: peer.name,
          mode: "—",
          data: `${ingestLabel[mode]}, ${half}`,
          chunks: peer.chunkCount,
          via: "in-process",
        },
        mode,
        half,
        ranks,
        ms,
      ),
    );
  }
  return rows;
}

/** Runs the help-center benchmark (both ingest modes by default) and writes `helpcenter.json`. */
export async function runHelpCenter(options: HelpCenterOptions = {}): Promise<HelpCenterResult> {
  const data = options.data ?? loadHelpCenter();
  const selected = selectItems(data.questions, options);
  const articles = selectArticles(data.articles, selected, options.articles);
  const titleByPath = new Map(articles.map((a) => [a.path, a.title]));
  const articleTitles = new Set(titleByPath.values());
  const notes: string[] = [];
  const items: Item[] = selected.flatMap((q) => {
    const goldTitles = new Set(q.gold.flatMap((p) => titleByPath.get(p) ?? []));
    if (q.kind !== "unanswerable" && goldTitles.size === 0) return [];
    const text = q.kind === "followup" ? (q.second ?? "") : (q.question ?? "");
    return [{ q, text, goldTitles }];
  });
  if (items.length < selected.length)
    notes.push(`${selected.length - items.length} items left out: none of their gold articles is ingested.`);
  const present = halves.filter((h) => items.some((i) => i.q.half === h));
  const modes = options.modes ?? ingestModes;

  const runs: IngestRun[] = [];
  const rows: HitRow[] = [];
  const details: ItemDetail[] = [];
  log(`helpcenter: ${articles.length} articles, ${items.length} items (${present.join(" + ")})`);
  for (const mode of modes) {
    const server = await startBenchServer();
    let chunks: PeerChunk[];
    try {
      const client = new LoreClient(server.api);
      await client.login();
      const ingested = await ingest(client, mode, articles);
      chunks = await readProductChunks(server.dataDir, [ingested.source.id]);
      const documents = await client.documents(ingested.source.id);
      const unmatchedTitles = documents.map((d) => d.title).filter((t) => !articleTitles.has(t));
      runs.push({
        ingest: mode,
        documents: documents.length,
        chunks: chunks.length,
        ingestSeconds: ingested.seconds,
        unmatchedTitles,
      });
      log(
        `helpcenter: ${mode} ingested in ${ingested.seconds}s → ${documents.length} documents, ${chunks.length} chunks` +
          (unmatchedTitles.length > 0 ? `, ${unmatchedTitles.length} titles naming no article` : ""),
      );
      details.push(
        ...(await askLore(client, ingested.agent.id, ingested.agent.fallbackMessage, mode, items)),
      );
      rows.push(...loreRows(mode, chunks.length, details, present));
    } finally {
      await server.close();
    }
    if (options.peers ?? true) {
      const raw = await rawLanceFts(chunks);
      rows.push(...(await peerRows(raw, mode, items, present)));
      await raw.close();
      rows.push(...(await peerRows(winkBm25(chunks), mode, items, present)));
      try {
        const lc = await langchainBm25(
          articles.map((a) => ({
            id: a.path,
            title: a.title,
            text: mode === "md" ? markdownFile(a) : a.content,
          })),
          10,
        );
        rows.push(...(await peerRows(lc, mode, items, present)));
      } catch (error) {
        notes.push(`LangChain.js peer could not run (${mode}): ${String(error)}`);
      }
    }
    for (const row of rows.filter((r) => r.ingest === mode)) {
      log(`helpcenter: ${row.system} ${row.data} ${JSON.stringify(row.recall)} MRR ${row.mrr}`);
    }
  }
  const stats = modes.flatMap((mode) => present.map((half) => halfStats(mode, half, details)));
  for (const s of stats) log(`helpcenter: ${s.ingest} ${s.half} ${JSON.stringify(s.answers)}`);

  const result = {
    articles: articles.length,
    questions: items.length,
    runs,
    rows,
    halves: stats,
    policies: policyRows(details, present),
    frontier: frontierRows(details, present),
    notes,
    items: details,
  };
  const path = writeResult("helpcenter", result, options.resultsDir);
  return { ...result, path };
}

/** The result as Markdown: retrieval (Lore and peers), answers, unanswerable items and follow-ups. */
export function helpcenterTable(result: Omit<HelpCenterResult, "path" | "items">): string {
  const retrieval = markdownTable(
    [
      "ingest, half",
      "system",
      "mode",
      "questions",
      "chunks",
      ...ks.map((k) => `hit@${k}`),
      "MRR",
      "p50 ms",
      "p95 ms",
      "via",
    ],
    result.rows.map((r) => [
      r.data,
      r.system,
      r.mode,
      r.questions,
      r.chunks,
      ...ks.map((k) => r.recall[`@${k}`]),
      r.mrr,
      round(r.p50Ms, 1),
      round(r.p95Ms, 1),
      r.via,
    ]),
  );
  const answers = markdownTable(
    [
      "POST /query/ (ingest, half)",
      "answerable",
      "answered",
      "fact containment",
      "first citation correct",
      "median / p90 answer words",
      "p50 ms",
      "p95 ms",
      "server latency p50 / p95",
    ],
    result.halves.map((s) => [
      `${ingestLabel[s.ingest]}, ${s.half}`,
      s.answers.questions,
      s.answers.answered,
      s.answers.factContainment,
      s.answers.firstCitationCorrect,
      `${s.answers.medianAnswerWords} / ${s.answers.p90AnswerWords}`,
      s.answers.latencyMs.p50,
      s.answers.latencyMs.p95,
      `${s.answers.serverLatencyMs.p50} / ${s.answers.serverLatencyMs.p95}`,
    ]),
  );
  const others = markdownTable(
    [
      "ingest, half",
      "unanswerable",
      "fallback rate",
      "follow-ups",
      "one conversation: facts",
      "one conversation: first citation",
      "alone: facts",
      "alone: first citation",
    ],
    result.halves.map((s) => [
      `${ingestLabel[s.ingest]}, ${s.half}`,
      s.unanswerable.questions,
      s.unanswerable.fallbackRate,
      s.followUps.pairs,
      s.followUps.oneConversation.factContainment,
      s.followUps.oneConversation.firstCitationCorrect,
      s.followUps.alone.factContainment,
      s.followUps.alone.firstCitationCorrect,
    ]),
  );
  const outcomes = markdownTable(
    [
      "outcomes (ingest, half)",
      "right",
      "helped",
      "wrong",
      "right + helped",
      "answered / uncertain / fallback",
      "unanswerable: honest",
      "unanswerable: wrong",
    ],
    result.halves.map((s) => [
      `${ingestLabel[s.ingest]}, ${s.half}`,
      s.outcomes.right,
      s.outcomes.helped,
      s.outcomes.wrong,
      round(s.outcomes.right + s.outcomes.helped, 4),
      `${s.outcomes.outcomes.answered} / ${s.outcomes.outcomes.uncertain} / ${s.outcomes.outcomes.fallback}`,
      s.outcomes.honest,
      s.outcomes.unanswerableWrong,
    ]),
  );
  const calibration = markdownTable(
    [
      "confidence",
      ...result.halves.map((s) => `${ingestLabel[s.ingest]}, ${s.half}: items, mean conf., share right`),
    ],
    Array.from({ length: 10 }, (_, i) => [
      `${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}`,
      ...result.halves.map((s) => {
        const b = s.calibration[i];
        return b && b.count > 0 ? `${b.count}, ${b.meanConfidence}, ${b.shareRight}` : "0";
      }),
    ]),
  );
  const tradeOff = tradeOffTable(result.policies);
  const frontier = frontierTable(result.frontier);
  const ingested = result.runs
    .map(
      (r) =>
        `${ingestLabel[r.ingest]}: ${r.documents} documents → ${r.chunks} chunks in ${r.ingestSeconds} s` +
        (r.unmatchedTitles.length > 0 ? ` (${r.unmatchedTitles.length} titles naming no article)` : ""),
    )
    .join("; ");
  return [
    retrieval,
    "",
    answers,
    "",
    others,
    "",
    outcomes,
    "",
    calibration,
    "",
    tradeOff,
    "",
    frontier,
    "",
    `${ingested}.`,
    ...result.notes,
  ].join("\n");
}

/** Right, helped, wrong and honest per policy on each half (text ingest). */
export function tradeOffTable(rows: readonly PolicyRow[]): string {
  const policies = [...new Set(rows.map((r) => r.policy))];
  return markdownTable(
    ["policy (answer ≥, doubt ≥)", "right", "helped", "wrong", "unanswerable honest"],
    policies.map((p) => {
      const mine = rows.filter((r) => r.policy === p);
      const cell = (pick: (r: PolicyRow) => number) => mine.map((r) => `${pick(r)} (${r.half})`).join(" / ");
      const first = mine[0];
      return [
        `${p} (${first?.answer}, ${first?.doubt})`,
        cell((r) => r.right),
        cell((r) => r.helped),
        cell((r) => r.wrong),
        cell((r) => r.honest),
      ];
    }),
  );
}

/** Every threshold pair of the frontier, both halves side by side (text ingest). */
export function frontierTable(rows: readonly FrontierRow[]): string {
  const halves = [...new Set(rows.map((r) => r.half))];
  const pairs = rows.filter((r) => r.half === halves[0]);
  const at = (half: Half, p: FrontierRow) =>
    rows.find((r) => r.half === half && r.answer === p.answer && r.doubt === p.doubt);
  return markdownTable(
    [
      "frontier: answer ≥, doubt ≥",
      ...halves.map((h) => `${h}: right, helped, wrong, right + helped, unanswerable honest`),
    ],
    pairs.map((p) => [
      `${p.answer}, ${p.doubt}`,
      ...halves.map((h) => {
        const r = at(h, p);
        return r
          ? `${r.right}, ${r.helped}, ${r.wrong}, ${Math.round((r.right + r.helped) * 1e4) / 1e4}, ${r.honest}`
          : "";
      }),
    ]),
  );
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const half = argValue("--half") ?? "all";
  if (half !== "tuning" && half !== "test" && half !== "all") {
    throw new Error(`--half must be tuning, test or all, not ${half}`);
  }
  const mode = argValue("--mode");
  if (mode !== undefined && mode !== "text" && mode !== "md") {
    throw new Error(`--mode must be text or md, not ${mode}`);
  }
  const dir = argValue("--dir");
  const result = await runHelpCenter({
    half,
    peers: !process.argv.includes("--no-peers"),
    ...(mode ? { modes: [mode] } : {}),
    ...(dir ? { data: loadHelpCenter(dir), resultsDir: dir } : {}),
  });
  console.log(helpcenterTable(result));
  console.log(`wrote ${result.path}`);
}
