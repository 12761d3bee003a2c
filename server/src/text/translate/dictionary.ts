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

/** One language's bilingual dictionary into English: exact (folded) headwords, then their stems. */
export class Dictionary {
  private readonly exact = new Map<string, readonly string[]>();
  private readonly byStem = new Map<string, readonly string[]>();
  /** Letters of the longest headword: how far a lookup in unspaced text (Chinese) reaches. */
  readonly longest: number;

  constructor(
    readonly language: Language,
    readonly source: string,
    readonly licence: string,
    entries: readonly (readonly [string, readonly string[]])[],
  ) {
    const stem = stemmerOf(language);
    let longest = 1;
    for (const [headword, senses] of entries) {
      const key = foldText(headword);
      if (!this.exact.has(key)) this.exact.set(key, senses);
      longest = Math.max(longest, key.length);
      if (stem && !key.includes(" ")) {
        const stemmed = stem(key);
        if (!this.byStem.has(stemmed)) this.byStem.set(stemmed, senses);
      }
    }
    this.longest = longest;
    this.stem = stem;
  }

  private readonly stem: ((word: string) => string) | null;

  /** The English senses of a folded word or two-word phrase, first senses first; empty when unknown. */
  lookup(folded: string): readonly string[] {
    const exact = this.exact.get(folded);
    if (exact) return exact;
    if (!this.stem || folded.includes(" ")) return [];
    return this.byStem.get(this.stem(folded)) ?? [];
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
