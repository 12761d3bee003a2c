/**
 * Word vectors learned from the indexed corpus itself (no downloaded weights): random indexing of
 * term co-occurrence. Each context term gets a fixed sparse random ±1 signature; a term's vector is the
 * sum of the signatures of the terms around it, each weighted by the context term's IDF (a cheap stand-in
 * for PPMI), then centred and L2-normalised. Terms used in similar contexts ("rusher", "rushing";
 * "held", "hosted") end up close. Building is one pass over the forward index (linear in corpus size);
 * the index rebuilds the vectors when the corpus has changed enough (see `LexicalIndex.refreshTermVectors`).
 */
export interface TermVectorOptions {
  dimensions: number;
  /** Non-zero entries of each random signature. */
  density: number;
  /** Co-occurrence window, in index terms, on each side. */
  window: number;
  /** Terms seen in fewer chunks get no vector. */
  minDf: number;
  /** At most this many terms (the most frequent) get a vector; bounds memory. */
  maxTerms: number;
}

export const defaultTermVectorOptions: TermVectorOptions = {
  dimensions: 256,
  density: 8,
  window: 4,
  minDf: 2,
  maxTerms: 60_000,
};

/** Deterministic 32-bit mixer (signatures must not change between builds). */
function mix(x: number): number {
  let h = x | 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

export class TermVectors {
  private constructor(
    readonly dimensions: number,
    /** term id → row in `data`, −1 without a vector. */
    private readonly rowOf: Int32Array,
    private readonly data: Float32Array,
    /** Live chunk count when built (the owner decides when to rebuild). */
    readonly builtAtSize: number,
  ) {}

  get terms(): number {
    return this.data.length / this.dimensions;
  }

  get bytes(): number {
    return this.data.byteLength + this.rowOf.byteLength;
  }

  /**
   * @param sequences each live chunk's term ids in order
   * @param df document frequency per term id
   * @param liveCount number of live chunks
   */
  static build(
    sequences: Iterable<Int32Array>,
    df: readonly number[],
    liveCount: number,
    options: TermVectorOptions = defaultTermVectorOptions,
  ): TermVectors {
    const { dimensions, density, window, minDf, maxTerms } = options;
    const candidates: number[] = [];
    for (let id = 0; id < df.length; id++) if ((df[id] ?? 0) >= minDf) candidates.push(id);
    if (candidates.length > maxTerms) {
      candidates.sort((a, b) => (df[b] ?? 0) - (df[a] ?? 0) || a - b);
      candidates.length = maxTerms;
    }
    const rowOf = new Int32Array(df.length).fill(-1);
    candidates.forEach((id, row) => {
      rowOf[id] = row;
    });
    const n = Math.max(1, liveCount);
    // Context weight: IDF, so that ubiquitous words say little about a term's meaning.
    const contextWeight = new Float32Array(df.length);
    for (let id = 0; id < df.length; id++) {
      const d = df[id] ?? 0;
      contextWeight[id] = d > 0 ? Math.log(1 + n / d) : 0;
    }
    const slots = new Int32Array(density);
    const signs = new Float32Array(density);
    const signature = (id: number): void => {
      for (let j = 0; j < density; j++) {
        const h = mix(id * 0x9e3779b1 + j * 0x85ebca6b);
        slots[j] = h % dimensions;
        signs[j] = h & 0x80000000 ? 1 : -1;
      }
    };
    const data = new Float32Array(candidates.length * dimensions);
    for (const ids of sequences) {
      for (let i = 0; i < ids.length; i++) {
        const context = ids[i] as number;
        const weight = contextWeight[context] ?? 0;
        if (weight === 0) continue;
        signature(context);
        const from = Math.max(0, i - window);
        const to = Math.min(ids.length - 1, i + window);
        for (let k = from; k <= to; k++) {
          if (k === i) continue;
          const row = rowOf[ids[k] as number] as number;
          if (row < 0) continue;
          const base = row * dimensions;
          for (let j = 0; j < density; j++) {
            const at = base + (slots[j] as number);
            data[at] = (data[at] as number) + weight * (signs[j] as number);
          }
        }
      }
    }
    // Normalise, remove the common direction (frequent-context bias), normalise again.
    const rows = candidates.length;
    normaliseRows(data, rows, dimensions);
    const mean = new Float32Array(dimensions);
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < dimensions; j++) mean[j] = (mean[j] as number) + (data[r * dimensions + j] as number);
    }
    for (let j = 0; j < dimensions; j++) mean[j] = (mean[j] as number) / Math.max(1, rows);
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < dimensions; j++) {
        const at = r * dimensions + j;
        data[at] = (data[at] as number) - (mean[j] as number);
      }
    }
    normaliseRows(data, rows, dimensions);
    return new TermVectors(dimensions, rowOf, data, liveCount);
  }

  has(id: number): boolean {
    return id >= 0 && id < this.rowOf.length && (this.rowOf[id] as number) >= 0;
  }

  /** Cosine similarity of two terms; 0 when either has no vector. */
  similarity(a: number, b: number): number {
    if (a === b) return 1;
    if (!this.has(a) || !this.has(b)) return 0;
    const d = this.dimensions;
    const ra = (this.rowOf[a] as number) * d;
    const rb = (this.rowOf[b] as number) * d;
    let dot = 0;
    for (let j = 0; j < d; j++) dot += (this.data[ra + j] as number) * (this.data[rb + j] as number);
    return dot;
  }
}

function normaliseRows(data: Float32Array, rows: number, dimensions: number): void {
  for (let r = 0; r < rows; r++) {
    const base = r * dimensions;
    let sum = 0;
    for (let j = 0; j < dimensions; j++) sum += (data[base + j] as number) ** 2;
    const norm = Math.sqrt(sum);
    if (norm === 0) continue;
    for (let j = 0; j < dimensions; j++) data[base + j] = (data[base + j] as number) / norm;
  }
}
