/** Recall rows shared by the retrieval benchmarks and the summary table. */
import type { Retriever } from "./peers.ts";
import { firstRank, recallAt, summarize } from "./stats.ts";

export const squadKs = [1, 3, 5, 10, 20] as const;

export interface RecallRow {
  system: string;
  /** Retrieval mode for Lore, `—` for peers. */
  mode: string;
  data: string;
  questions: number;
  chunks: number | null;
  recall: Record<string, number>;
  p50Ms: number;
  p95Ms: number;
  /** How the number was produced (HTTP endpoint or in-process). */
  via: string;
}

export interface EvalQuery {
  text: string;
}

/** Runs each query against a retriever (sequentially, timed) and returns first-relevant ranks. */
export async function rankAll<Q extends EvalQuery, H>(
  queries: readonly Q[],
  search: (q: Q) => Promise<H[]>,
  relevant: (hit: H, q: Q) => boolean,
): Promise<{ ranks: number[]; ms: number[] }> {
  const ranks: number[] = [];
  const ms: number[] = [];
  for (const q of queries) {
    const start = performance.now();
    const hits = await search(q);
    ms.push(performance.now() - start);
    ranks.push(firstRank(hits, (h) => relevant(h, q)));
  }
  return { ranks, ms };
}

export function recallRow(
  base: Omit<RecallRow, "recall" | "p50Ms" | "p95Ms" | "questions">,
  ranks: readonly number[],
  ms: readonly number[],
  ks: readonly number[],
): RecallRow {
  const lat = summarize(ms);
  return { ...base, questions: ranks.length, recall: recallAt(ranks, ks), p50Ms: lat.p50, p95Ms: lat.p95 };
}

/** Evaluates an in-process peer retriever on the same queries. */
export async function evalPeer<Q extends EvalQuery>(
  peer: Retriever,
  data: string,
  queries: readonly Q[],
  relevant: (hit: { text: string; documentId: string; title: string; page: number | null }, q: Q) => boolean,
  ks: readonly number[],
): Promise<RecallRow> {
  const maxK = Math.max(...ks);
  const { ranks, ms } = await rankAll(queries, (q) => peer.search(q.text, maxK), relevant);
  return recallRow(
    { system: peer.name, mode: "—", data, chunks: peer.chunkCount, via: "in-process" },
    ranks,
    ms,
    ks,
  );
}
