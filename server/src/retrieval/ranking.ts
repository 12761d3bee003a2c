import type { RetrievalMode } from "@lore/shared";
import {
  applyModel,
  hybridFeatures,
  hybridModel,
  keywordFeatures,
  keywordLexicalModel,
  keywordModel,
  type LogisticModel,
  semanticFeatures,
  semanticModel,
} from "./calibration.ts";
import type { StoredChunk } from "./chunk-store.ts";
import type { LexicalFeatures } from "./lexical-index.ts";
import type { MemoryIndex } from "./memory-index.ts";
import { jaccard } from "./text-analysis.ts";
import { meaningEvidence, type WordVectors } from "./word-vectors.ts";

export interface SearchParams {
  query: string;
  /** Required, non-empty: the agent's sources ∩ the request's. */
  dataSourceIds: string[];
  /**
   * The workspace the sources belong to: with LORE_INDEX_MAX_CHUNKS, the partition a search loads
   * (looked up from the sources when absent). Ignored otherwise.
   */
  workspaceId?: string;
  topK: number;
  minScore: number;
  mode: RetrievalMode;
  signal?: AbortSignal;
}

export interface SearchHit {
  chunk: StoredChunk;
  /** Estimated probability (0..1) that the chunk answers the query; same meaning in every mode. */
  score: number;
}

/** A candidate slot with the feature vector its mode's calibration model reads. */
export interface Candidate {
  slot: number;
  features: number[];
}

/** Live slot → cosine similarity of the `limit` nearest vectors (empty without an embedder). */
export type VectorCandidates = (limit: number) => Promise<Map<number, number>>;

/**
 * The best lexical candidates that get meaning evidence (word-vectors.ts), measured against each
 * other; the rest get none. Chosen on the help-center tuning half (20, 30, 40, 100 tried).
 */
const MEANING_CANDIDATES = 30;

const modelByMode: Record<RetrievalMode, LogisticModel> = {
  keyword: keywordModel,
  semantic: semanticModel,
  hybrid: hybridModel,
};

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
}

/**
 * The candidates of a query with their features: BM25 candidates for `keyword`, the nearest vectors
 * for `semantic`, and for `hybrid` both lists, each candidate with the other retriever's evidence too.
 */
export async function candidateFeatures(
  memory: MemoryIndex,
  params: SearchParams,
  mode: RetrievalMode,
  allowed: ReadonlySet<number>,
  vectorCandidates: VectorCandidates,
  wordVectors: WordVectors | null = null,
): Promise<Candidate[]> {
  const lexical = memory.lexical;
  const candidates = lexical.params.candidates;
  if (mode === "keyword") {
    const hits = lexical.search(params.query, allowed, candidates);
    const meaning = meaningEvidence(
      params.query,
      hits
        .slice(0, MEANING_CANDIDATES)
        .map((c) => memory.chunkAt(c.slot) ?? { title: "", headingPath: [], text: "" }),
      wordVectors,
    );
    return hits.map((c, i) => ({ slot: c.slot, features: keywordFeatures(c.features, meaning[i] ?? 0) }));
  }
  const vectorHits = await vectorCandidates(candidates);
  throwIfAborted(params.signal);
  const bestCosine = Math.max(1e-6, ...vectorHits.values());
  if (mode === "semantic") {
    return [...vectorHits].map(([slot, cosine]) => ({
      slot,
      features: semanticFeatures(cosine, cosine / bestCosine),
    }));
  }
  const lexicalHits = lexical.search(params.query, allowed, candidates);
  const features = new Map<number, LexicalFeatures>(lexicalHits.map((c) => [c.slot, c.features]));
  const bestBm25 = lexicalHits[0]?.features.bm25 ?? 0;
  const missing = [...vectorHits.keys()].filter((slot) => !features.has(slot));
  for (const [slot, f] of lexical.featuresFor(params.query, missing)) {
    features.set(slot, { ...f, bm25Rel: bestBm25 > 0 ? Math.min(1, f.bm25 / bestBm25) : 0 });
  }
  // A lexical candidate beyond the vector list is at most as similar as the list's last entry.
  const floorCosine = vectorHits.size > 0 ? Math.min(...vectorHits.values()) : 0;
  return [...features].map(([slot, f]) => {
    const cosine = vectorHits.get(slot) ?? floorCosine;
    return { slot, features: hybridFeatures(f, cosine, cosine / bestCosine) };
  });
}

/** Calibrated scores of the candidates by the mode's model, best first (ties by slot). */
export function scoreCandidates(
  candidates: readonly Candidate[],
  mode: RetrievalMode,
): { slot: number; score: number }[] {
  const model = modelByMode[mode];
  const scored = candidates.map(({ slot, features }) => ({ slot, score: applyModel(model, features) }));
  if (mode === "keyword") keepWordsBest(scored, candidates);
  return scored.sort((a, b) => b.score - a.score || a.slot - b.slot);
}

/**
 * Meaning evidence reorders the keyword candidates but does not make the search surer than the
 * words are: the scores are scaled so that the best equals the best the lexical evidence alone
 * gives. A question nothing answers still finds chunks near it in meaning, and the answer's
 * confidence reads the best score (confidence-features.ts).
 */
function keepWordsBest(scored: { score: number }[], candidates: readonly Candidate[]): void {
  const best = Math.max(0, ...scored.map((s) => s.score));
  const wordsBest = Math.max(0, ...candidates.map((c) => applyModel(keywordLexicalModel, c.features)));
  if (best <= 0) return;
  for (const s of scored) s.score *= wordsBest / best;
}

/** The best `topK` hits scoring at least `minScore`, near-duplicates of a better hit left out. */
export function pickTop(
  memory: MemoryIndex,
  scored: readonly { slot: number; score: number }[],
  limits: { topK: number; minScore: number; nearDuplicateThreshold: number },
): SearchHit[] {
  const hits: SearchHit[] = [];
  const kept: { exact: number; shingles: Set<number> }[] = [];
  for (const { slot, score } of scored) {
    if (hits.length >= limits.topK || score < limits.minScore) break;
    const chunk = memory.chunkAt(slot);
    if (!chunk) continue;
    // Same analysed text, or most word 3-shingles shared (Jaccard), counts as a near-duplicate.
    const signature = memory.lexical.signature(slot);
    const duplicate = kept.some(
      (k) =>
        k.exact === signature.exact ||
        jaccard(k.shingles, signature.shingles) >= limits.nearDuplicateThreshold,
    );
    if (duplicate) continue;
    kept.push(signature);
    hits.push({ chunk, score });
  }
  return hits;
}
