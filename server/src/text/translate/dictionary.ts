import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { latinStemmer, stemArabic, stemRussian } from "../analyzers.ts";
import type { Language } from "../language.ts";
import { foldText } from "../segment.ts";

/** A compiled dictionary file (`scripts/compile-dictionaries.mjs`): headword → English senses, first senses first. */
interface DictionaryFile {
  language: string;
  source: string;
  licence: string;
  entries: [string, string[]][];
}

/** The stemmer a language's headwords are also looked up by, so an inflected word finds its entry. */
function stemmerOf(language: Language): ((word: string) => string) | null {
  if (language === "ru") return stemRussian;
  if (language === "ar") return stemArabic;
  return latinStemmer(language);
}

/** Languages whose stems need not begin a word's headword: every headword is stemmed at load. */
const prefixStripping: ReadonlySet<Language> = new Set(["ar"]);

/** Headwords starting with a stem that are stemmed to find one of that stem. */
const MAX_STEM_CANDIDATES = 64;

/** What a question is translated with: a dictionary, or the part of one a question looked up (see dictionary-thread.ts). */
export interface DictionaryTable {
  readonly language: Language;
  /** Letters of the longest headword: how far a lookup in unspaced text (Chinese) reaches. */
  readonly longest: number;
  /** The English senses of a folded word or two-word phrase, first senses first; empty when unknown. */
  lookup(folded: string): readonly string[];
  /** Whether the dictionary has the folded headword itself (no stemming): unspaced text's longest match. */
  has(folded: string): boolean;
}

/** One language's bilingual dictionary into English: exact (folded) headwords, then their stems. */
export class Dictionary implements DictionaryTable {
  private readonly exact = new Map<string, readonly string[]>();
  /** The one-word headwords, sorted: those sharing a stem sit together (stemming them all took seconds). */
  private readonly words: string[] = [];
  /** Stem → senses, for a language whose stemmer also strips prefixes (Arabic's article and clitics). */
  private readonly byStem = new Map<string, readonly string[]>();
  /** Letters of the longest headword: how far a lookup in unspaced text (Chinese) reaches. */
  readonly longest: number;

  constructor(
    readonly language: Language,
    readonly source: string,
    readonly licence: string,
    entries: readonly (readonly [string, readonly string[]])[],
  ) {
    let longest = 1;
    for (const [headword, senses] of entries) {
      const key = foldText(headword);
      if (this.exact.has(key)) continue;
      this.exact.set(key, senses);
      longest = Math.max(longest, key.length);
      if (!key.includes(" ")) this.words.push(key);
    }
    this.words.sort();
    this.longest = longest;
    this.stem = stemmerOf(language);
    if (this.stem && prefixStripping.has(language))
      for (const word of this.words) {
        const stemmed = this.stem(word);
        if (!this.byStem.has(stemmed)) this.byStem.set(stemmed, this.exact.get(word) ?? []);
      }
  }

  private readonly stem: ((word: string) => string) | null;

  /** The English senses of a folded word or two-word phrase, first senses first; empty when unknown. */
  lookup(folded: string): readonly string[] {
    const exact = this.exact.get(folded);
    if (exact) return exact;
    if (!this.stem || folded.includes(" ")) return [];
    if (prefixStripping.has(this.language)) return this.byStem.get(this.stem(folded)) ?? [];
    return this.byStemOf(folded, this.stem) ?? [];
  }

  /** The senses of the shortest headword with the word's stem: headwords starting with the stem, stemmed. */
  private byStemOf(folded: string, stem: (word: string) => string): readonly string[] | undefined {
    const target = stem(folded);
    if (target.length < 3) return undefined;
    let low = 0;
    let high = this.words.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.words[middle] as string) < target) low = middle + 1;
      else high = middle;
    }
    let best: string | undefined;
    for (let i = low, seen = 0; i < this.words.length && seen < MAX_STEM_CANDIDATES; i++, seen++) {
      const word = this.words[i] as string;
      if (!word.startsWith(target)) break;
      if ((best === undefined || word.length < best.length) && stem(word) === target) best = word;
    }
    return best === undefined ? undefined : this.exact.get(best);
  }

  /** Whether the dictionary has the folded headword itself (no stemming): unspaced text's longest match. */
  has(folded: string): boolean {
    return this.exact.has(folded);
  }

  get size(): number {
    return this.exact.size;
  }
}

/** Reads `<dir>/<language>.json`; null when it was not compiled (its dictionary is not installed). */
export function readDictionary(dir: string, language: Language): Dictionary | null {
  const file = join(dir, `${language}.json`);
  if (!existsSync(file)) return null;
  const data = JSON.parse(readFileSync(file, "utf8")) as DictionaryFile;
  return new Dictionary(language, data.source, data.licence, data.entries);
}
