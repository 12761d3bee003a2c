import { stopWordsOf } from "../analyzers.ts";
import type { Language } from "../language.ts";
import { unspacedScript } from "../scripts.ts";
import { foldText, segmentWords } from "../segment.ts";
import { cognateCandidates } from "./cognates.ts";
import type { DictionaryTable } from "./dictionary.ts";

/**
 * What the knowledge base knows of one word, as its search index says: a word some chunk holds,
 * one only a longer or shorter word of which some chunk holds (a variant: "cancelar" of "cancel",
 * an Arabic word behind a clitic), one none holds, or a stop word the index drops.
 */
export type WordStatus = "known" | "related" | "unknown" | "stop";

/** A question made searchable in the documents' language (English) by dictionary. */
export interface QuestionTranslation {
  /** The question's language. */
  language: Language;
  /** What retrieval searches: the words the documents know, the others' translations, the rest as written. */
  query: string;
  /** `query` by the question's words: each word's alternatives (one for a word kept, up to MAX_SENSES for one translated). */
  groups: string[][];
  /** Key words (not stop words) the documents did not know that a dictionary translated. */
  translated: number;
  /** Key words neither the documents nor the dictionary knew: kept as written, and they lower confidence. */
  untranslated: number;
  /** Which of `groups` are such words: no passage holds them, so an answer is judged without them. */
  unread: boolean[];
}

/** Senses searched for a word: the first senses the documents know (a dictionary lists the likelier first). */
const MAX_SENSES = 2;
const wordPattern = /[\p{L}\p{N}\p{M}]+/gu;

/** The words of a folded question, unspaced runs (Chinese) cut into dictionary words by ICU. */
export function questionWords(question: string): string[] {
  const tokens = foldText(question).match(wordPattern) ?? [];
  return tokens.flatMap((t) => (unspacedScript.test(t) ? segmentWords(t) : [t]));
}

/** Letters of the longest piece of an unspaced word looked up. */
const MAX_PIECE = 8;

/** The pieces of an unspaced word the dictionary has, longest first from the left (Chinese). */
function dictionaryPieces(word: string, dictionary: DictionaryTable): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < word.length) {
    let size = Math.min(word.length - at, dictionary.longest, MAX_PIECE);
    while (size > 1 && !dictionary.has(word.slice(at, at + size))) size--;
    pieces.push(word.slice(at, at + size));
    at += size;
  }
  return pieces;
}

/** The keys `translateQuestion` may ask a dictionary of: what the question's table must hold. */
export interface DictionaryKeys {
  /** For `lookup`: each key word, each two adjacent key words, each piece of an unspaced word. */
  lookups: string[];
  /** For `has`: each piece (up to MAX_PIECE letters) of an unspaced word. */
  headwords: string[];
}

/**
 * Every key `translateQuestion(question, dictionary of language, …)` can look up, whatever the
 * documents hold: so a dictionary on another thread is asked once, for all of them.
 */
export function dictionaryKeys(question: string, language: Language): DictionaryKeys {
  const stops = stopWordsOf(language);
  const words = questionWords(question).filter((w) => !stops.has(w));
  const lookups = new Set<string>();
  const headwords = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const next = words[i + 1];
    lookups.add(word);
    if (next !== undefined) lookups.add(`${word} ${next}`);
    if (!unspacedScript.test(word)) continue;
    for (let at = 0; at < word.length; at++)
      for (let size = 1; size <= MAX_PIECE && at + size <= word.length; size++) {
        const piece = word.slice(at, at + size);
        lookups.add(piece);
        headwords.add(piece);
      }
  }
  return { lookups: [...lookups], headwords: [...headwords] };
}

/** The first senses whose every key word the documents hold, up to MAX_SENSES. */
function searchableSenses(senses: readonly string[], status: (word: string) => WordStatus): string[] {
  const out: string[] = [];
  for (const sense of senses) {
    const words = sense.toLowerCase().match(wordPattern) ?? [];
    const key = words.filter((w) => status(w) !== "stop");
    if (key.length === 0 || key.some((w) => status(w) === "unknown")) continue;
    const text = key.join(" ");
    if (!out.includes(text)) out.push(text);
    if (out.length >= MAX_SENSES) break;
  }
  return out;
}

/**
 * A question in `dictionary`'s language made searchable in English documents: each key word the
 * documents hold is kept (names, numbers, shared words); each they do not hold is replaced by its
 * first senses the documents do hold (a two-word phrase is looked up before its words); a word
 * with neither stays as written, unknown, so the answer is judged on what was understood.
 */
export function translateQuestion(
  question: string,
  dictionary: DictionaryTable,
  status: (word: string) => WordStatus,
): QuestionTranslation {
  const stops = stopWordsOf(dictionary.language);
  const words = questionWords(question).filter((w) => !stops.has(w));
  const groups: string[][] = [];
  const unread: boolean[] = [];
  let translated = 0;
  let untranslated = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const next = words[i + 1];
    if (next !== undefined && status(word) !== "known" && status(word) !== "related") {
      const phrase = searchableSenses(dictionary.lookup(`${word} ${next}`), status);
      if (phrase.length > 0) {
        groups.push(phrase);
        unread.push(false);
        translated++;
        i++;
        continue;
      }
    }
    const state = status(word);
    if (state === "stop") continue;
    if (state === "known") {
      groups.push([word]);
      unread.push(false);
      continue;
    }
    // A variant's match counts for less than a word's own: searched as written and translated.
    const kept = state === "related" ? [word] : [];
    const pieces =
      unspacedScript.test(word) && dictionary.lookup(word).length === 0
        ? dictionaryPieces(word, dictionary)
        : [word];
    const senses = pieces.flatMap((piece) => searchableSenses(dictionary.lookup(piece), status));
    // No sense the documents hold: a Latinate word's English cognate may be one.
    if (senses.length === 0) {
      const cognate = cognateCandidates(word, dictionary.language).find((c) => status(c) === "known");
      if (cognate) senses.push(cognate);
    }
    if (senses.length > 0) {
      groups.push([...kept, ...senses]);
      unread.push(false);
      translated++;
    } else {
      groups.push([word]);
      unread.push(state === "unknown");
      if (state === "unknown") untranslated++;
    }
  }
  return {
    language: dictionary.language,
    query: groups.flat().join(" "),
    groups,
    translated,
    untranslated,
    unread,
  };
}

/** How much a translation's untranslated key words take off an answer's confidence, at most (all of them untranslated). */
const UNTRANSLATED_PENALTY = 0.5;

/**
 * The share of an answer's confidence a translation keeps: less the more of the question's key
 * words neither the documents nor the dictionary knew (what they asked may be just what was lost).
 */
export function translationCertainty(translation: QuestionTranslation | null): number {
  if (!translation || translation.groups.length === 0) return 1;
  return 1 - (UNTRANSLATED_PENALTY * translation.untranslated) / translation.groups.length;
}

const languageNames: Record<Language, string> = {
  en: "English",
  es: "Spanish",
  de: "German",
  fr: "French",
  pt: "Portuguese",
  it: "Italian",
  nl: "Dutch",
  pl: "Polish",
  tr: "Turkish",
  ru: "Russian",
  uk: "Ukrainian",
  ar: "Arabic",
  hi: "Hindi",
  zh: "Chinese",
  ja: "Japanese",
  ko: "Korean",
};

/**
 * What a chat model is told of a translated question: the sources' language, the words the
 * question was searched with, and to answer in the visitor's language citing the sources.
 */
export function crossLanguageInstruction(language: Language, searchedAs: string): string {
  const visitor = languageNames[language];
  return [
    `The question is in ${visitor}; the sources are in English. It was searched in English as: "${searchedAs}".`,
    `Answer in ${visitor}, citing the English sources by their numbers.`,
  ].join("\n");
}
