/** Synthetic corpora built from real SQuAD sentences: realistic vocabulary, every text unique. */
import type { SquadData } from "../datasets.ts";

/** A small deterministic PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sentencePool(data: SquadData): string[] {
  const out: string[] = [];
  for (const p of data.paragraphs) {
    for (const s of p.context.split(/(?<=[.!?])\s+(?=[A-Z])/)) {
      const t = s.trim();
      if (t.length > 30 && t.length < 400) out.push(t);
    }
  }
  return out;
}

/**
 * `count` unique passages of `sentences` random sentences each (about one chunk each), numbered
 * from `start`; the same seed and start always give the same text.
 */
export function syntheticEntries(
  pool: readonly string[],
  start: number,
  count: number,
  sentences = 4,
): { title: string; content: string }[] {
  const out: { title: string; content: string }[] = [];
  for (let i = start; i < start + count; i++) {
    const rand = seededRandom(i + 1);
    const picked: string[] = [];
    for (let j = 0; j < sentences; j++) picked.push(pool[Math.floor(rand() * pool.length)] ?? "");
    out.push({ title: `Passage ${i}`, content: `Passage ${i}. ${picked.join(" ")}` });
  }
  return out;
}

/**
 * `docs` documents of `passagesPerDoc` synthetic passages each (blank lines between), numbered from
 * `firstDoc`: multi-chunk documents, so corpus size is bound by chunks rather than per-document work.
 */
export function syntheticDocuments(
  pool: readonly string[],
  firstDoc: number,
  docs: number,
  passagesPerDoc = 100,
): { title: string; content: string }[] {
  const out: { title: string; content: string }[] = [];
  for (let d = firstDoc; d < firstDoc + docs; d++) {
    const passages = syntheticEntries(pool, d * passagesPerDoc, passagesPerDoc);
    out.push({ title: `Document ${d}`, content: passages.map((p) => p.content).join("\n\n") });
  }
  return out;
}
