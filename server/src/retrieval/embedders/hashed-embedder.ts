import { STOP_WORDS, stemWord, tokenizeWords } from "../../text/normalize.ts";
import type { Embedder } from "../embedder.ts";

/** FNV-1a, 32-bit: stable across runs and platforms. */
function hash32(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/**
 * A local embedder for offline use and tests: stemmed words and character 3-grams hashed into a fixed
 * number of signed buckets, L2-normalised. Captures word overlap and spelling variants, not meaning.
 */
export function createHashedEmbedder(options: { dimensions?: number } = {}): Embedder {
  const dimensions = options.dimensions ?? 256;
  if (!Number.isInteger(dimensions) || dimensions < 8) throw new Error("dimensions must be an integer ≥ 8");

  const add = (vector: Float32Array, feature: string, weight: number) => {
    const h = hash32(feature);
    const index = h % dimensions;
    // A second hash picks the sign, so collisions cancel out on average instead of piling up.
    const sign = hash32(`±${feature}`) & 1 ? 1 : -1;
    vector[index] = (vector[index] ?? 0) + sign * weight;
  };

  const embedOne = (text: string): Float32Array => {
    const vector = new Float32Array(dimensions);
    for (const word of tokenizeWords(text)) {
      const stopWord = STOP_WORDS.has(word);
      const stem = stemWord(word);
      add(vector, `w:${stem}`, stopWord ? 0.2 : 1);
      if (stopWord) continue;
      const padded = `#${stem}#`;
      for (let i = 0; i + 3 <= padded.length; i++) add(vector, `g:${padded.slice(i, i + 3)}`, 0.35);
    }
    let norm = 0;
    for (const v of vector) norm += v * v;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < dimensions; i++) vector[i] = (vector[i] ?? 0) / norm;
    return vector;
  };

  return {
    name: `hashed:${dimensions}`,
    dimensions,
    async embed(texts) {
      return texts.map(embedOne);
    },
  };
}
