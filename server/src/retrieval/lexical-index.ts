import { TermVectors } from "./term-vectors.ts";
import { analyze, analyzeDetailed, stopWords, tokenize } from "./text-analysis.ts";

/** BM25 parameters and the proximity window, measured by bench/src/retrieval-quality.ts (see docs in calibration.ts). */
export interface LexicalParams {
  k1: number;
  b: number;
  /** Width, in index terms, of the sliding window for the proximity feature. */
  window: number;
  /** How many BM25 candidates the reranker looks at. */
  candidates: number;
}

// k1, b and window chosen by the grid in `bench/src/retrieval-quality.ts --fit` on the tuning slice.
export const defaultLexicalParams: LexicalParams = { k1: 1.2, b: 0.4, window: 8, candidates: 100 };

/** Per-candidate lexical evidence; every feature but `bm25` lies in 0..1. */
export interface LexicalFeatures {
  bm25: number;
  /** BM25 divided by the query's largest possible BM25 (every term with tf → ∞). */
  bm25Norm: number;
  /** BM25 relative to the best candidate of this query. */
  bm25Rel: number;
  /** IDF-weighted share of the query's terms found in the chunk. */
  coverage: number;
  /** IDF-weighted share of the query's terms found together inside one window of the chunk. */
  proximity: number;
  /** IDF-weighted share of the query's adjacent term pairs found adjacent in the chunk. */
  bigram: number;
  /** IDF-weighted share of the query's terms found in the title or heading path. */
  title: number;
  /** IDF-weighted share of the query's terms found in the chunk's best-matching sentence. */
  sentence: number;
  /** 1 when the question asks for a quantity or date and the best sentence holds a number it does not. */
  numberMatch: number;
  /** 1 when the question asks for a quantity or date and the chunk holds no number at all. */
  numberMissing: number;
  /** IDF-weighted share of the query's terms found inside two adjacent sentences. */
  sentencePair: number;
  /** BM25 of the best sentence (sentence-length normalisation) over the query's largest possible BM25. */
  sentenceBm25: number;
  localSentenceBm25: number;
  /**
   * The same evidence with terms weighted by how rare they are among this query's candidates, not the
   * whole corpus: a word every candidate shares (the topic) says little about which one answers.
   */
  localCoverage: number;
  localProximity: number;
  localSentence: number;
  localSentencePair: number;
  /** BM25 with candidate-local IDF, relative to the best candidate. */
  localBm25Rel: number;
  /** Share of the query's capitalised terms (names) found in the chunk; 1 when the query names none. */
  entityCoverage: number;
  /** 1 when the question asks who/where and the best sentence holds a capitalised word the query lacks. */
  entityMatch: number;
  /** IDF-weighted share of query terms found exactly or as a word sharing their first five letters. */
  prefixCoverage: number;
  /** Coverage where an absent query term counts by its best corpus-vector similarity to a chunk term. */
  softCoverage: number;
  /** The same, within the best sentence. */
  softSentence: number;
}

export interface LexicalCandidate {
  slot: number;
  features: LexicalFeatures;
}

class Postings {
  docs = new Int32Array(4);
  tfs = new Uint16Array(4);
  length = 0;

  push(doc: number, tf: number): void {
    if (this.length === this.docs.length) {
      const docs = new Int32Array(this.docs.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const tfs = new Uint16Array(this.tfs.length * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    this.docs[this.length] = doc;
    this.tfs[this.length] = Math.min(tf, 65_535);
    this.length++;
  }
}

interface PreparedQuery {
  termIds: number[];
  weights: number[];
  totalWeight: number;
  /** Pair keys of adjacent query terms and their weights. */
  bigrams: Map<number, number>;
  bigramWeight: number;
  expectsNumber: boolean;
  expectsEntity: boolean;
  /** Per query term: 1 when the query capitalises it (a name). */
  entity: number[];
  /** Per query term: its five-letter prefix id, −1 when the corpus has none. */
  prefixes: number[];
}

// Questions whose answer is a number or a date (answer-type matching, a classic QA retrieval feature).
const quantityQuestion =
  /\b(when|what year|which year|what decade|which decade|what century|how many|how much|how long|how old|how far|how large|how big|how tall|how often|what percentage|what percent|what date|what time|what number)\b/i;

// Questions whose answer is a name (a person, place or organisation).
const entityQuestion = /\b(who|whom|whose|where)\b/i;

/** Words sharing their first five letters are treated as variants ("Norman", "Normandy"). */
const softFloor = Number(process.env.LORE_SOFT_FLOOR ?? 0.3);
const prefixLength = Number(process.env.LORE_PREFIX ?? 5);
function prefixOf(term: string): string {
  return term.length > prefixLength ? term.slice(0, prefixLength) : term;
}

/** IDF weight of the query terms in a bit set. */
function maskWeight(mask: number, weights: readonly number[]): number {
  let sum = 0;
  for (let m = mask, p = 0; m !== 0; m >>>= 1, p++) if (m & 1) sum += weights[p] as number;
  return sum;
}

const answerTypeWeight = Number(process.env.LORE_ATYPE ?? 1);
const typeFillers = new Set(["kind", "type", "sort", "form", "of", "the", "a", "an"]);

/**
 * The word naming what a what/which question asks for ("What *venue* …", "Which *team* …"): the answer
 * replaces it, so passages rarely repeat it. Returned as an index term, or null.
 */
function answerTypeTerm(query: string): string | null {
  const tokens = tokenize(query);
  const at = tokens.findIndex((t) => t === "what" || t === "which" || t === "whose");
  if (at < 0) return null;
  for (let i = at + 1; i < tokens.length && i <= at + 4; i++) {
    const token = tokens[i] as string;
    if (typeFillers.has(token)) continue;
    if (stopWords.has(token)) return null;
    return analyze(token)[0] ?? null;
  }
  return null;
}

/** Sentence-ish spans: split after . ! ? or line breaks. */
function splitSentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim() !== "");
}

const pairKey = (a: number, b: number): number => a * 16_777_216 + b;

/**
 * An in-memory inverted index (BM25 candidates) with a forward index (term sequences for proximity and
 * phrase features). Slots are append-only; removed slots are skipped and reclaimed by `compact()`.
 */
export class LexicalIndex {
  private readonly termIdByTerm = new Map<string, number>();
  private df: number[] = [];
  private postings: Postings[] = [];
  private docTerms: (Int32Array | null)[] = [];
  private titleTerms: (Int32Array | null)[] = [];
  private sentenceStarts: (Int32Array | null)[] = [];
  private numeric: number[] = [];
  private docCaps: (Uint8Array | null)[] = [];
  private readonly prefixIdByPrefix = new Map<string, number>();
  private prefixOfTerm: number[] = [];
  private docSource: number[] = [];
  private totalLength = 0;
  private sentenceCount = 0;
  private liveCount = 0;
  private deadCount = 0;
  private scratch = new Float64Array(0);
  private termVectors: TermVectors | null = null;

  constructor(readonly params: LexicalParams = defaultLexicalParams) {}

  get size(): number {
    return this.liveCount;
  }

  get slotCount(): number {
    return this.docTerms.length;
  }

  get deadSlots(): number {
    return this.deadCount;
  }

  /** Adds one chunk; returns its slot. `source` is a small integer naming its data source. */
  add(text: string, titleText: string, source: number): number {
    const slot = this.docTerms.length;
    const terms: string[] = [];
    const caps: number[] = [];
    const starts: number[] = [];
    for (const sentence of splitSentences(text)) {
      starts.push(terms.length);
      const analyzed = analyzeDetailed(sentence);
      for (let i = 0; i < analyzed.terms.length; i++) {
        terms.push(analyzed.terms[i] as string);
        caps.push(analyzed.capitalized[i] as number);
      }
    }
    const ids = new Int32Array(terms.length);
    const tf = new Map<number, number>();
    for (let i = 0; i < terms.length; i++) {
      const id = this.termId(terms[i] as string);
      ids[i] = id;
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    for (const [id, count] of tf) {
      (this.postings[id] as Postings).push(slot, count);
      this.df[id] = (this.df[id] ?? 0) + 1;
    }
    const titleIds = new Set<number>();
    for (const term of analyze(titleText)) titleIds.add(this.termId(term));
    this.docTerms.push(ids);
    this.docCaps.push(Uint8Array.from(caps));
    this.titleTerms.push(Int32Array.from(titleIds));
    this.sentenceStarts.push(Int32Array.from(starts));
    this.docSource.push(source);
    this.totalLength += ids.length;
    this.sentenceCount += starts.length;
    this.liveCount++;
    return slot;
  }

  remove(slot: number): void {
    const ids = this.docTerms[slot];
    if (!ids) return;
    for (const id of new Set(ids)) this.df[id] = (this.df[id] ?? 1) - 1;
    this.totalLength -= ids.length;
    this.sentenceCount -= this.sentenceStarts[slot]?.length ?? 0;
    this.docTerms[slot] = null;
    this.docCaps[slot] = null;
    this.titleTerms[slot] = null;
    this.sentenceStarts[slot] = null;
    this.liveCount--;
    this.deadCount++;
  }

  /**
   * (Re)builds the corpus-trained term vectors when missing or when the live chunk count moved by more
   * than a quarter since the last build. Returns whether a build ran.
   */
  refreshTermVectors(force = false): boolean {
    const built = this.termVectors?.builtAtSize ?? -1;
    const drift = Math.abs(this.liveCount - built) / Math.max(1, built);
    if (!force && this.termVectors && drift <= 0.25) return false;
    const live = this.docTerms.filter((ids): ids is Int32Array => ids !== null);
    this.termVectors = TermVectors.build(live, this.df, this.liveCount);
    return true;
  }

  /** Nearest terms of a term by the corpus-trained vectors (for tools and tests). */
  relatedTerms(term: string, limit = 10): { term: string; similarity: number }[] {
    const vectors = this.termVectors;
    const id = this.termIdByTerm.get(term);
    if (!vectors || id === undefined) return [];
    const out: { term: string; similarity: number }[] = [];
    for (const [other, otherId] of this.termIdByTerm) {
      if (otherId === id || !vectors.has(otherId)) continue;
      out.push({ term: other, similarity: vectors.similarity(id, otherId) });
    }
    return out.sort((a, b) => b.similarity - a.similarity).slice(0, limit);
  }

  isLive(slot: number): boolean {
    return this.docTerms[slot] != null;
  }

  /**
   * Rebuilds postings without dead slots. Returns the old→new slot map (−1 for removed) so callers can
   * renumber what they keep per slot.
   */
  compact(): Int32Array {
    const remap = new Int32Array(this.docTerms.length).fill(-1);
    const docTerms: Int32Array[] = [];
    const docCaps: Uint8Array[] = [];
    const titleTerms: Int32Array[] = [];
    const sentenceStarts: Int32Array[] = [];
    const docSource: number[] = [];
    for (let slot = 0; slot < this.docTerms.length; slot++) {
      const ids = this.docTerms[slot];
      if (!ids) continue;
      remap[slot] = docTerms.length;
      docTerms.push(ids);
      docCaps.push(this.docCaps[slot] ?? new Uint8Array(ids.length));
      titleTerms.push(this.titleTerms[slot] ?? new Int32Array(0));
      sentenceStarts.push(this.sentenceStarts[slot] ?? new Int32Array(0));
      docSource.push(this.docSource[slot] ?? -1);
    }
    this.postings = this.postings.map(() => new Postings());
    for (let slot = 0; slot < docTerms.length; slot++) {
      const tf = new Map<number, number>();
      for (const id of docTerms[slot] as Int32Array) tf.set(id, (tf.get(id) ?? 0) + 1);
      for (const [id, count] of tf) (this.postings[id] as Postings).push(slot, count);
    }
    this.docTerms = docTerms;
    this.docCaps = docCaps;
    this.titleTerms = titleTerms;
    this.sentenceStarts = sentenceStarts;
    this.docSource = docSource;
    this.deadCount = 0;
    return remap;
  }

  /**
   * Near-duplicate signature of a slot: a hash of its whole term sequence and the hashes of its term
   * 3-shingles (computed from the forward index, so no re-tokenising at query time).
   */
  signature(slot: number): { exact: number; shingles: Set<number> } {
    const ids = this.docTerms[slot] ?? new Int32Array(0);
    let exact = 0x811c9dc5;
    const shingles = new Set<number>();
    for (let i = 0; i < ids.length; i++) {
      exact = Math.imul(exact ^ (ids[i] as number), 0x01000193) >>> 0;
      if (i >= 2) {
        const h =
          Math.imul(ids[i - 2] as number, 73_856_093) ^
          Math.imul(ids[i - 1] as number, 19_349_663) ^
          Math.imul(ids[i] as number, 83_492_791);
        shingles.add(h >>> 0);
      }
    }
    if (ids.length > 0 && ids.length < 3) shingles.add(exact);
    return { exact, shingles };
  }

  /** BM25 candidates among live slots whose source is allowed, with reranking features. */
  search(
    query: string,
    allowedSources: ReadonlySet<number>,
    limit = this.params.candidates,
  ): LexicalCandidate[] {
    const prepared = this.prepare(query);
    if (prepared.termIds.length === 0 || this.liveCount === 0) return [];
    const { k1, b } = this.params;
    const avgLength = this.totalLength / this.liveCount || 1;
    if (this.scratch.length < this.docTerms.length) this.scratch = new Float64Array(this.docTerms.length * 2);
    const acc = this.scratch;
    const touched: number[] = [];
    for (let q = 0; q < prepared.termIds.length; q++) {
      const list = this.postings[prepared.termIds[q] as number];
      if (!list) continue;
      const idf = prepared.weights[q] as number;
      const { docs, tfs } = list;
      for (let i = 0; i < list.length; i++) {
        const slot = docs[i] as number;
        const ids = this.docTerms[slot];
        if (!ids || !allowedSources.has(this.docSource[slot] as number)) continue;
        const tf = tfs[i] as number;
        const current = acc[slot] as number;
        if (current === 0) touched.push(slot);
        acc[slot] = current + (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * ids.length) / avgLength));
      }
    }
    const top = selectTop(touched, acc, limit);
    const scores = top.map((slot) => acc[slot] as number);
    for (const slot of touched) acc[slot] = 0;
    return this.rerankFeatures(prepared, top, scores);
  }

  /** Features of given slots for a query (used when candidates come from another retriever). */
  featuresFor(query: string, slots: number[]): Map<number, LexicalFeatures> {
    const prepared = this.prepare(query);
    const out = new Map<number, LexicalFeatures>();
    if (prepared.termIds.length === 0) return out;
    const live = slots.filter((slot) => this.docTerms[slot]);
    const scores = live.map((slot) => this.bm25Of(slot, prepared.termIds, prepared.weights));
    for (const c of this.rerankFeatures(prepared, live, scores)) out.set(c.slot, c.features);
    return out;
  }

  /** BM25 of one slot computed from its forward index. */
  private bm25Of(slot: number, termIds: readonly number[], weights: readonly number[]): number {
    const ids = this.docTerms[slot];
    if (!ids) return 0;
    const { k1, b } = this.params;
    const avgLength = this.totalLength / Math.max(1, this.liveCount) || 1;
    let score = 0;
    for (let q = 0; q < termIds.length; q++) {
      const id = termIds[q] as number;
      if (id < 0) continue;
      let f = 0;
      for (const t of ids) if (t === id) f++;
      if (f > 0)
        score += ((weights[q] as number) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * ids.length) / avgLength));
    }
    return score;
  }

  /**
   * Reranking features of a candidate set. Besides corpus IDF, every query term also gets a weight from
   * its rarity among the candidates themselves (a "local" IDF), computed here from the forward index.
   */
  private rerankFeatures(prepared: PreparedQuery, slots: number[], scores: number[]): LexicalCandidate[] {
    const { k1, b } = this.params;
    const n = slots.length;
    const avgLength = this.totalLength / Math.max(1, this.liveCount) || 1;
    const position = new Map<number, number>();
    prepared.termIds.forEach((id, i) => {
      if (id >= 0) position.set(id, i);
    });
    const terms = prepared.termIds.length;
    // tf of each query term in each candidate (row-major: candidate × term).
    const tf = new Uint16Array(n * terms);
    const df = new Int32Array(terms);
    for (let c = 0; c < n; c++) {
      const ids = this.docTerms[slots[c] as number] ?? new Int32Array(0);
      for (const id of ids) {
        const p = position.get(id);
        if (p === undefined) continue;
        const k = c * terms + p;
        if (tf[k] === 0) df[p] = (df[p] as number) + 1;
        tf[k] = Math.min(65_535, (tf[k] as number) + 1);
      }
    }
    const localWeights: number[] = [];
    let localTotal = 0;
    for (let p = 0; p < terms; p++) {
      const d = df[p] as number;
      const w = d === 0 ? 0 : Math.log(1 + (n - d + 0.5) / (d + 0.5)) * (prepared.weights[p] as number);
      localWeights.push(w);
      localTotal += w;
    }
    const localBm25 = new Float64Array(n);
    let bestLocal = 1e-9;
    for (let c = 0; c < n; c++) {
      const len = this.docTerms[slots[c] as number]?.length ?? 0;
      let score = 0;
      for (let p = 0; p < terms; p++) {
        const f = tf[c * terms + p] as number;
        if (f > 0)
          score += ((localWeights[p] as number) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * len) / avgLength));
      }
      localBm25[c] = score;
      if (score > bestLocal) bestLocal = score;
    }
    const maxPossible = prepared.totalWeight * (k1 + 1);
    const best = Math.max(1e-9, ...scores);
    const soft = this.softMatcher(prepared);
    const out: LexicalCandidate[] = [];
    for (let c = 0; c < n; c++) {
      const slot = slots[c] as number;
      const bm25 = scores[c] as number;
      const features = this.features(slot, prepared, position, bm25, bm25 / maxPossible, bm25 / best);
      const local = this.evidence(slot, position, localWeights, localTotal);
      features.localCoverage = local.coverage;
      features.localProximity = local.proximity;
      features.localSentence = local.sentence;
      features.localSentencePair = local.pair;
      features.localSentenceBm25 = local.sentenceBm25;
      features.localBm25Rel = (localBm25[c] as number) / bestLocal;
      const softEvidence = soft(slot, position);
      features.softCoverage = softEvidence.coverage;
      features.softSentence = softEvidence.sentence;
      out.push({ slot, features });
    }
    return out;
  }

  /**
   * Soft matching with the corpus-trained vectors: a query term absent from a chunk still counts by its
   * best similarity to a term the chunk (or one sentence of it) does hold.
   */
  private softMatcher(
    q: PreparedQuery,
  ): (slot: number, position: ReadonlyMap<number, number>) => { coverage: number; sentence: number } {
    const vectors = this.termVectors;
    const total = q.totalWeight || 1;
    const usable = q.termIds.map((id) => vectors?.has(id) ?? false);
    const cache = q.termIds.map(() => new Map<number, number>());
    const floor = softFloor;
    const sim = (p: number, id: number): number => {
      const memo = cache[p] as Map<number, number>;
      let v = memo.get(id);
      if (v === undefined) {
        const raw = vectors ? vectors.similarity(q.termIds[p] as number, id) : 0;
        v = raw > floor ? (raw - floor) / (1 - floor) : 0;
        memo.set(id, v);
      }
      return v;
    };
    const terms = q.termIds.length;
    return (slot, position) => {
      const ids = this.docTerms[slot] ?? new Int32Array(0);
      const starts = this.sentenceStarts[slot] ?? new Int32Array(0);
      const chunkBest = new Float64Array(terms);
      const sentenceBest = new Float64Array(terms);
      let bestSentence = 0;
      let si = 0;
      const closeSentence = (): void => {
        let sum = 0;
        for (let p = 0; p < terms; p++) sum += (q.weights[p] as number) * (sentenceBest[p] as number);
        if (sum > bestSentence) bestSentence = sum;
        sentenceBest.fill(0);
      };
      for (let i = 0; i < ids.length; i++) {
        while (si + 1 < starts.length && i >= (starts[si + 1] as number)) {
          closeSentence();
          si++;
        }
        const id = ids[i] as number;
        const exact = position.get(id);
        for (let p = 0; p < terms; p++) {
          const v = exact === p ? 1 : usable[p] && vectors?.has(id) ? sim(p, id) : 0;
          if (v > (chunkBest[p] as number)) chunkBest[p] = v;
          if (v > (sentenceBest[p] as number)) sentenceBest[p] = v;
        }
      }
      closeSentence();
      let coverage = 0;
      for (let p = 0; p < terms; p++) coverage += (q.weights[p] as number) * (chunkBest[p] as number);
      return { coverage: coverage / total, sentence: bestSentence / total };
    };
  }

  private prepare(query: string): PreparedQuery {
    const { terms, capitalized } = analyzeDetailed(query);
    const answerType = answerTypeTerm(query);
    const n = Math.max(1, this.liveCount);
    const idOf = (term: string): number => this.termIdByTerm.get(term) ?? -1;
    const seen = new Map<number, number>();
    const termIds: number[] = [];
    const weights: number[] = [];
    const entity: number[] = [];
    const prefixes: number[] = [];
    let unknown = -2;
    const sequence: number[] = [];
    terms.forEach((term, i) => {
      let id = idOf(term);
      // Unknown terms still weigh in (an unmatched rare word lowers every score); give each its own id.
      if (id < 0) id = unknown--;
      sequence.push(id);
      const index = termIds.indexOf(id);
      if (index >= 0) {
        if (capitalized[i]) entity[index] = 1;
        return;
      }
      const df = id >= 0 ? (this.df[id] ?? 0) : 0;
      let idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      if (term === answerType) idf *= answerTypeWeight;
      seen.set(id, idf);
      termIds.push(id);
      weights.push(idf);
      entity.push(capitalized[i] ? 1 : 0);
      prefixes.push(this.prefixIdByPrefix.get(prefixOf(term)) ?? -1);
    });
    const bigrams = new Map<number, number>();
    let bigramWeight = 0;
    for (let i = 0; i + 1 < sequence.length; i++) {
      const a = sequence[i] as number;
      const c = sequence[i + 1] as number;
      if (a === c) continue;
      const weight = (seen.get(a) ?? 0) + (seen.get(c) ?? 0);
      if (a >= 0 && c >= 0) bigrams.set(pairKey(a, c), weight);
      bigramWeight += weight;
    }
    const totalWeight = weights.reduce((s, w) => s + w, 0);
    // Negative ids (unknown terms) have no postings; they only add to the totals above.
    return {
      termIds,
      weights,
      totalWeight,
      bigrams,
      bigramWeight,
      expectsNumber: quantityQuestion.test(query),
      expectsEntity: entityQuestion.test(query),
      entity,
      prefixes,
    };
  }

  /** Coverage, window proximity, best sentence and best sentence pair of a slot under given term weights. */
  private evidence(
    slot: number,
    position: ReadonlyMap<number, number>,
    weights: readonly number[],
    total: number,
  ): { coverage: number; proximity: number; sentence: number; pair: number; sentenceBm25: number } {
    const ids = this.docTerms[slot] ?? new Int32Array(0);
    const starts = this.sentenceStarts[slot] ?? new Int32Array(0);
    const terms = weights.length;
    const inWindow = new Int32Array(terms);
    const seen = new Uint8Array(terms);
    const windowSize = this.params.window;
    let covered = 0;
    let windowWeight = 0;
    let bestWindow = 0;
    for (let i = 0; i < ids.length; i++) {
      const p = position.get(ids[i] as number);
      if (p !== undefined) {
        if (!seen[p]) {
          seen[p] = 1;
          covered += weights[p] as number;
        }
        const count = inWindow[p] as number;
        inWindow[p] = count + 1;
        if (count === 0) windowWeight += weights[p] as number;
        if (windowWeight > bestWindow) bestWindow = windowWeight;
      }
      if (i >= windowSize) {
        const leaving = position.get(ids[i - windowSize] as number);
        if (leaving !== undefined) {
          const left = (inWindow[leaving] as number) - 1;
          inWindow[leaving] = left;
          if (left === 0) windowWeight -= weights[leaving] as number;
        }
      }
    }
    // Per sentence: which query terms it holds, as a bit set over the first 31 query terms.
    let bestSentence = 0;
    let bestPair = 0;
    let bestSentenceBm25 = 0;
    let previousMask = 0;
    const { k1, b } = this.params;
    const avgSentence = this.totalLength / Math.max(1, this.sentenceCount) || 1;
    const sentenceTf = new Uint16Array(terms);
    for (let si = 0; si < starts.length; si++) {
      const from = starts[si] as number;
      const to = si + 1 < starts.length ? (starts[si + 1] as number) : ids.length;
      let mask = 0;
      sentenceTf.fill(0);
      for (let i = from; i < to; i++) {
        const p = position.get(ids[i] as number);
        if (p !== undefined) sentenceTf[p] = (sentenceTf[p] as number) + 1;
        if (p !== undefined && p < 31) mask |= 1 << p;
      }
      let sentenceScore = 0;
      const norm = k1 * (1 - b + (b * (to - from)) / avgSentence);
      for (let p = 0; p < terms; p++) {
        const f = sentenceTf[p] as number;
        if (f > 0) sentenceScore += ((weights[p] as number) * f * (k1 + 1)) / (f + norm);
      }
      if (sentenceScore > bestSentenceBm25) bestSentenceBm25 = sentenceScore;
      const single = maskWeight(mask, weights);
      if (single > bestSentence) bestSentence = single;
      const pair = maskWeight(mask | previousMask, weights);
      if (pair > bestPair) bestPair = pair;
      previousMask = mask;
    }
    const norm = total || 1;
    return {
      coverage: covered / norm,
      proximity: bestWindow / norm,
      sentence: bestSentence / norm,
      pair: Math.max(bestPair, bestSentence) / norm,
      sentenceBm25: Math.min(1, bestSentenceBm25 / (norm * (k1 + 1))),
    };
  }

  private features(
    slot: number,
    q: PreparedQuery,
    position: ReadonlyMap<number, number>,
    bm25: number,
    bm25Norm: number,
    bm25Rel: number,
  ): LexicalFeatures {
    const ids = this.docTerms[slot] ?? new Int32Array(0);
    const caps = this.docCaps[slot] ?? new Uint8Array(0);
    const total = q.totalWeight || 1;
    const global = this.evidence(slot, position, q.weights, q.totalWeight);
    let bigramHit = 0;
    const matchedPairs = new Set<number>();
    const present = new Uint8Array(q.termIds.length);
    const prefixPresent = new Set<number>();
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      const p = position.get(id);
      if (p !== undefined) present[p] = 1;
      prefixPresent.add(this.prefixOfTerm[id] ?? -1);
      if (i > 0 && q.bigrams.size > 0) {
        const key = pairKey(ids[i - 1] as number, id);
        const weight = q.bigrams.get(key);
        if (weight !== undefined && !matchedPairs.has(key)) {
          matchedPairs.add(key);
          bigramHit += weight;
        }
      }
    }
    // Best sentence (by corpus-IDF coverage): does it hold a number, or a name, the query lacks?
    const starts = this.sentenceStarts[slot] ?? new Int32Array(0);
    let bestSentence = -1;
    let bestHasNumber = false;
    let bestHasName = false;
    let anyNumber = false;
    const inSentence = new Uint8Array(q.termIds.length);
    for (let si = 0; si < starts.length; si++) {
      const from = starts[si] as number;
      const to = si + 1 < starts.length ? (starts[si + 1] as number) : ids.length;
      inSentence.fill(0);
      let weight = 0;
      let hasNumber = false;
      let hasName = false;
      for (let i = from; i < to; i++) {
        const id = ids[i] as number;
        const p = position.get(id);
        if (p !== undefined) {
          if (!inSentence[p]) {
            inSentence[p] = 1;
            weight += q.weights[p] as number;
          }
        } else {
          if (this.numeric[id] === 1) hasNumber = true;
          if (caps[i] === 1) hasName = true;
        }
      }
      if (hasNumber) anyNumber = true;
      if (weight > bestSentence) {
        bestSentence = weight;
        bestHasNumber = hasNumber;
        bestHasName = hasName;
      }
    }
    let titleHit = 0;
    for (const id of this.titleTerms[slot] ?? []) {
      const p = position.get(id);
      if (p !== undefined) titleHit += q.weights[p] as number;
    }
    let entityWeight = 0;
    let entityHit = 0;
    let prefixHit = 0;
    for (let p = 0; p < q.termIds.length; p++) {
      const w = q.weights[p] as number;
      if (q.entity[p]) {
        entityWeight += w;
        if (present[p]) entityHit += w;
      }
      if (present[p] || ((q.prefixes[p] as number) >= 0 && prefixPresent.has(q.prefixes[p] as number)))
        prefixHit += w;
    }
    return {
      bm25,
      bm25Norm: Math.min(1, bm25Norm),
      bm25Rel: Math.min(1, bm25Rel),
      coverage: global.coverage,
      proximity: global.proximity,
      bigram: q.bigramWeight > 0 ? bigramHit / q.bigramWeight : 0,
      title: titleHit / total,
      sentence: global.sentence,
      numberMatch: q.expectsNumber && bestHasNumber ? 1 : 0,
      numberMissing: q.expectsNumber && !anyNumber ? 1 : 0,
      sentencePair: global.pair,
      sentenceBm25: global.sentenceBm25,
      localSentenceBm25: 0,
      localCoverage: 0,
      localProximity: 0,
      localSentence: 0,
      localSentencePair: 0,
      localBm25Rel: 0,
      entityCoverage: entityWeight > 0 ? entityHit / entityWeight : 1,
      entityMatch: q.expectsEntity && bestHasName ? 1 : 0,
      prefixCoverage: prefixHit / total,
      softCoverage: 0,
      softSentence: 0,
    };
  }

  private termId(term: string): number {
    let id = this.termIdByTerm.get(term);
    if (id === undefined) {
      id = this.df.length;
      this.termIdByTerm.set(term, id);
      this.df.push(0);
      this.numeric.push(/^[0-9]/.test(term) ? 1 : 0);
      const prefix = prefixOf(term);
      let prefixId = this.prefixIdByPrefix.get(prefix);
      if (prefixId === undefined) {
        prefixId = this.prefixIdByPrefix.size;
        this.prefixIdByPrefix.set(prefix, prefixId);
      }
      this.prefixOfTerm.push(prefixId);
      this.postings.push(new Postings());
    }
    return id;
  }
}

/** The `limit` slots with the highest scores, best first (a bounded min-heap). */
function selectTop(slots: number[], scores: Float64Array, limit: number): number[] {
  const heap: number[] = [];
  const less = (a: number, b: number): boolean => (scores[a] as number) < (scores[b] as number);
  for (const slot of slots) {
    if (heap.length < limit) {
      heap.push(slot);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!less(heap[i] as number, heap[parent] as number)) break;
        [heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number];
        i = parent;
      }
    } else if (less(heap[0] as number, slot)) {
      heap[0] = slot;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l] as number, heap[m] as number)) m = l;
        if (r < heap.length && less(heap[r] as number, heap[m] as number)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
        i = m;
      }
    }
  }
  return heap.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
}
