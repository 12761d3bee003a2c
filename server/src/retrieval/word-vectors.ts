import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { stopWordsOf } from "../text/analyzers.ts";
import { detectLanguage } from "../text/language.ts";
import { cosine } from "./embedder.ts";

/**
 * English word vectors (GloVe, 100 dimensions, the 100,000 most frequent words) as
 * scripts/compile-word-vectors.mjs writes them into the dictionaries directory, and the meaning
 * evidence the keyword ranker reads from them: a visitor's "why is it called …" is near an article on
 * where the name is "from", "price" near "cost", though they share no word.
 */
export interface WordVectors {
  readonly dimensions: number;
  has(word: string): boolean;
  /** Adds `weight` times the word's vector into `into`; false for a word without a vector. */
  add(word: string, weight: number, into: Float32Array): boolean;
}

const MAGIC = "LOREWV1\n";
const FILE = "word-vectors-en.bin";

/** The compiled vectors in `file`, or null when the file is missing or not in this format. */
export function readWordVectors(file: string): WordVectors | null {
  if (!existsSync(file)) return null;
  const bytes = readFileSync(file);
  if (bytes.length < 20 || bytes.toString("latin1", 0, 8) !== MAGIC) return null;
  const count = bytes.readUInt32LE(8);
  const dimensions = bytes.readUInt32LE(12);
  const textBytes = bytes.readUInt32LE(16);
  const valuesAt = 20 + textBytes;
  const scalesAt = valuesAt + count * dimensions;
  if (bytes.length !== scalesAt + count * 4) return null;
  const index = new Map<string, number>();
  const words = bytes.toString("utf8", 20, valuesAt).split("\n");
  for (let i = 0; i < words.length; i++) index.set(words[i] ?? "", i);
  const values = new Int8Array(bytes.buffer, bytes.byteOffset + valuesAt, count * dimensions);
  // The scales sit after the bytes at any alignment: copied out once.
  const scales = new Float32Array(
    bytes.buffer.slice(bytes.byteOffset + scalesAt, bytes.byteOffset + scalesAt + count * 4),
  );
  return {
    dimensions,
    has: (word) => index.has(word),
    add(word, weight, into) {
      const i = index.get(word);
      if (i === undefined) return false;
      const k = weight * (scales[i] ?? 0);
      const at = i * dimensions;
      for (let d = 0; d < dimensions; d++) into[d] = (into[d] ?? 0) + k * (values[at + d] ?? 0);
      return true;
    },
  };
}

const byFile = new Map<string, WordVectors | null>();

/** The compiled file in a dictionaries directory (LORE_DICTIONARIES_DIR); it may be missing. */
export function wordVectorsFile(dir: string): string {
  return join(dir, FILE);
}

/** The vectors compiled into `dir`, read once a process on first use; null without the file. */
export function wordVectorsIn(dir: string): WordVectors | null {
  const file = wordVectorsFile(resolve(dir));
  if (!byFile.has(file)) byFile.set(file, readWordVectors(file));
  return byFile.get(file) ?? null;
}

/** The vectors of `./dictionaries`, where the server's default LORE_DICTIONARIES_DIR points. */
export function defaultWordVectors(): WordVectors | null {
  return wordVectorsIn("dictionaries");
}

export interface MeaningText {
  title: string;
  headingPath: readonly string[];
  text: string;
}

/** How far above the candidates' mean the meaning evidence reaches, in their standard deviations. */
const MEANING_REACH = 3;
/** A title or heading word counts as this many words of the body. */
const TITLE_WEIGHT = 2;
/** A question's meaning needs this many of its words with a vector. */
const MIN_WORDS = 2;
/** Below this many candidates there is no spread to measure a candidate against. */
const MIN_CANDIDATES = 3;

const ENGLISH_STOP = stopWordsOf("en");
const words = (text: string) => text.toLowerCase().match(/[a-z][a-z'-]*/g) ?? [];

/**
 * The meaning evidence of each candidate for an English question: the cosine between the question's
 * and the candidate's mean word vector, each word weighed by how rare it is among the candidates (a
 * word every candidate holds tells them apart from nothing), in standard deviations above the
 * candidates' mean, up to 3. Only nearness counts: a candidate below the mean gets 0, as its words
 * may still hold the answer the question names. Zero for every candidate without vectors, for a
 * question in another language, or when fewer than two (or half) of the question's words have a
 * vector.
 */
export function meaningEvidence(
  question: string,
  candidates: readonly MeaningText[],
  vectors: WordVectors | null,
): number[] {
  const none = candidates.map(() => 0);
  if (!vectors || candidates.length < MIN_CANDIDATES) return none;
  const language = detectLanguage(question);
  if (language !== null && language !== "en") return none;
  const asked = words(question).filter((w) => !ENGLISH_STOP.has(w));
  // Half the question's words without a vector: it is not read as English vectors can. One word
  // alone ("and express?") has no context that says which of its senses is meant.
  const known = asked.filter((w) => vectors.has(w)).length;
  if (known * 2 < asked.length || known < MIN_WORDS) return none;
  // Each text as its distinct words, a title or heading word counting TITLE_WEIGHT times.
  const bags = candidates.map((c) => {
    const bag = new Map<string, number>();
    for (const w of words(c.text)) if (!ENGLISH_STOP.has(w)) bag.set(w, (bag.get(w) ?? 0) + 1);
    for (const w of words(`${c.title} ${c.headingPath.join(" ")}`))
      if (!ENGLISH_STOP.has(w)) bag.set(w, (bag.get(w) ?? 0) + TITLE_WEIGHT);
    return bag;
  });
  const df = new Map<string, number>();
  for (const bag of bags) for (const w of bag.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const vectorOf = (bag: ReadonlyMap<string, number>) => {
    const v = new Float32Array(vectors.dimensions);
    for (const [w, count] of bag)
      vectors.add(w, count * Math.log((candidates.length + 1) / ((df.get(w) ?? 0) + 0.5)), v);
    return v;
  };
  const askedBag = new Map<string, number>();
  for (const w of asked) askedBag.set(w, (askedBag.get(w) ?? 0) + 1);
  const q = vectorOf(askedBag);
  const cosines = bags.map((bag) => cosine(q, vectorOf(bag)));
  const mean = cosines.reduce((sum, c) => sum + c, 0) / cosines.length;
  const sd = Math.sqrt(cosines.reduce((sum, c) => sum + (c - mean) ** 2, 0) / cosines.length);
  if (sd < 1e-6) return none;
  return cosines.map((c) => Math.max(0, Math.min(MEANING_REACH, (c - mean) / sd)));
}
