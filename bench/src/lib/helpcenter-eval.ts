/**
 * The help-center set scored in-process (no HTTP): the default answerer over the in-process index,
 * with the metrics of `helpcenter.ts`. Shared by `helpcenter-tune.ts` (choosing parameters on the
 * tuning half) and `helpcenter-ceiling.ts` (variants on both halves, and what no parameter can reach).
 */
import type { ChatMessage, ChatModel, RetrievedChunk } from "../../../server/src/generation/types.ts";
import type { StoredChunk } from "../../../server/src/retrieval/chunk-index.ts";
import { containsFact, type HelpQuestion } from "../datasets.ts";
import type { HelpCenterIndex } from "./helpcenter-index.ts";
import { summarize } from "./stats.ts";

export const FALLBACK = "I couldn't find an answer to that in the knowledge base.";

/** The chunks an answer is given for a question (the real retrieval, or an oracle). */
export type Retrieve = (query: string, item: HelpQuestion) => Promise<RetrievedChunk[]>;

export interface Answer {
  text: string;
  chunks: RetrievedChunk[];
  /** The chunk of the first citation marker. */
  first: RetrievedChunk | undefined;
  ms: number;
  fallback: boolean;
  /** The question retrieval ran with (a follow-up condensed with its history). */
  standalone: string;
}

export interface HalfMetrics {
  answerable: number;
  hit1: number;
  hit3: number;
  hit5: number;
  mrr: number;
  facts: number;
  firstCitation: number;
  answered: number;
  unanswerableFallback: number;
  followupFacts: number;
  followupAloneFacts: number;
  followupFirst: number;
  medianWords: number;
  ms: ReturnType<typeof summarize>;
}

/** The index's own keyword search, as `/query/` runs it. */
export function searchRetrieve(hc: HelpCenterIndex, options: { topK: number; minScore: number }): Retrieve {
  return async (query) => {
    const hits = await hc.index.search({
      query,
      dataSourceIds: [hc.sourceId],
      topK: options.topK,
      minScore: options.minScore,
      mode: "keyword",
    });
    return hits.map(({ chunk, score }) => retrievedChunk(chunk, score));
  };
}

/** A stored chunk as the answerer receives it. */
export function retrievedChunk(chunk: StoredChunk, score: number): RetrievedChunk {
  return {
    chunkId: chunk.id,
    documentId: chunk.documentId,
    dataSourceId: chunk.dataSourceId,
    dataSourceName: "hc",
    kind: chunk.kind,
    title: chunk.title,
    sourceUrl: null,
    text: chunk.text,
    score,
    page: null,
    headingPath: chunk.headingPath,
  };
}

export async function answerWith(
  model: ChatModel,
  retrieve: Retrieve,
  item: HelpQuestion,
  question: string,
  history: ChatMessage[],
): Promise<Answer> {
  const standalone = history.length > 0 ? await model.condense(question, history) : question;
  const started = performance.now();
  const chunks = await retrieve(standalone, item);
  let text = "";
  for await (const e of model.generate({
    question: standalone,
    history,
    chunks,
    instructions: "",
    fallbackMessage: FALLBACK,
    temperature: 0,
    maxTokens: 500,
  }))
    if (e.type === "token") text += e.token;
  const ms = performance.now() - started;
  const cited = [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  const first = cited[0] !== undefined ? chunks[cited[0] - 1] : undefined;
  return { text, chunks, first, ms, fallback: text.trim() === FALLBACK, standalone };
}

/** Every metric of one half (or any list of items), and a line per failure for reading. */
export async function evaluate(
  hc: HelpCenterIndex,
  model: ChatModel,
  retrieve: Retrieve,
  items: readonly HelpQuestion[],
): Promise<{ metrics: HalfMetrics; failures: string[] }> {
  const pathOf = (c: RetrievedChunk | undefined) => (c ? hc.pathOf.get(c.documentId) : undefined);
  const m = {
    hit1: 0,
    hit3: 0,
    hit5: 0,
    mrr: 0,
    n: 0,
    facts: 0,
    first: 0,
    answered: 0,
    un: 0,
    unFallback: 0,
  };
  const fu = { n: 0, facts: 0, alone: 0, first: 0 };
  const ms: number[] = [];
  const words: number[] = [];
  const failures: string[] = [];
  for (const q of items) {
    if (q.kind === "followup") {
      const a1 = await answerWith(model, retrieve, q, q.first ?? "", []);
      const history: ChatMessage[] = [
        { role: "user", content: q.first ?? "" },
        { role: "assistant", content: a1.text },
      ];
      const a2 = await answerWith(model, retrieve, q, q.second ?? "", history);
      const alone = await answerWith(model, retrieve, q, q.second ?? "", []);
      fu.n++;
      if (q.facts.every((f) => containsFact(a2.text, f))) fu.facts++;
      else
        failures.push(
          `FU ${q.id} "${q.second}" → [${a2.standalone}] ${pathOf(a2.first)} :: ${a2.text.slice(0, 200)}`,
        );
      if (q.facts.every((f) => containsFact(alone.text, f))) fu.alone++;
      if (q.gold.includes(pathOf(a2.first) ?? "")) fu.first++;
      continue;
    }
    const question = q.question ?? "";
    const a = await answerWith(model, retrieve, q, question, []);
    ms.push(a.ms);
    if (q.kind === "unanswerable") {
      m.un++;
      if (a.fallback) m.unFallback++;
      else failures.push(`UN ${q.id} "${question}" answered: ${a.text.slice(0, 160)}`);
      continue;
    }
    m.n++;
    const top = pathOf(a.chunks[0]);
    const searchHits = await hc.index.search({
      query: question,
      dataSourceIds: [hc.sourceId],
      topK: 10,
      minScore: 0,
      mode: "keyword",
    });
    const rank = searchHits.findIndex((h) => q.gold.includes(hc.pathOf.get(h.chunk.documentId) ?? "")) + 1;
    if (rank === 1) m.hit1++;
    if (rank >= 1 && rank <= 3) m.hit3++;
    if (rank >= 1 && rank <= 5) m.hit5++;
    if (rank >= 1) m.mrr += 1 / rank;
    if (!a.fallback) {
      m.answered++;
      words.push(a.text.split(/\s+/).length);
    }
    const factOk = q.facts.every((f) => containsFact(a.text, f));
    if (factOk) m.facts++;
    if (q.gold.includes(pathOf(a.first) ?? "")) m.first++;
    if (!factOk)
      failures.push(
        `AN ${q.id} r${rank} "${question}" facts=${JSON.stringify(q.facts)} gold=${q.gold[0]?.split("/").pop()} top=${top?.split("/").pop()} :: ${a.text.replace(/\n/g, "⏎").slice(0, 220)}`,
      );
  }
  words.sort((a, b) => a - b);
  const r = (x: number, n: number) => (n ? Math.round((x / n) * 1000) / 1000 : 0);
  return {
    metrics: {
      answerable: m.n,
      hit1: r(m.hit1, m.n),
      hit3: r(m.hit3, m.n),
      hit5: r(m.hit5, m.n),
      mrr: r(m.mrr, m.n),
      facts: r(m.facts, m.n),
      firstCitation: r(m.first, m.n),
      answered: r(m.answered, m.n),
      unanswerableFallback: r(m.unFallback, m.un),
      followupFacts: r(fu.facts, fu.n),
      followupAloneFacts: r(fu.alone, fu.n),
      followupFirst: r(fu.first, fu.n),
      medianWords: words[Math.floor(words.length / 2)] ?? 0,
      ms: summarize(ms),
    },
    failures,
  };
}
