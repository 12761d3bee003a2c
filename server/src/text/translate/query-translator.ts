import { existsSync, readdirSync } from "node:fs";
import type { Logger } from "../../log/logger.ts";
import { detectLanguage, type Language, languages } from "../language.ts";
import { type Dictionary, readDictionary } from "./dictionary.ts";
import {
  type QuestionTranslation,
  questionWords,
  translateQuestion,
  type WordStatus,
} from "./translate-question.ts";

export type { QuestionTranslation, WordStatus } from "./translate-question.ts";

/**
 * Makes a question in the visitor's language searchable in the documents' (issue #53): null when
 * there is nothing to translate (an English question, a language it cannot tell, or no dictionary).
 */
export interface QueryTranslator {
  translate(question: string, status: (word: string) => WordStatus): QuestionTranslation | null;
  /** The languages with a compiled dictionary. */
  readonly available: readonly Language[];
}

/** No dictionaries: every question is searched as written. */
export const noTranslation: QueryTranslator = { translate: () => null, available: [] };

/**
 * Dictionaries compiled into `dir` by `scripts/compile-dictionaries.mjs` (at install), each read on
 * the first question in its language. A language without one is searched untranslated, logged once.
 */
export function createDictionaryTranslator(dir: string, logger: Logger): QueryTranslator {
  const installed = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => f.slice(0, -5))
        .filter((code): code is Language => (languages as readonly string[]).includes(code))
    : [];
  if (installed.length === 0)
    logger.warn("no translation dictionaries: questions in other languages are searched as written", {
      dir,
      hint: "node scripts/compile-dictionaries.mjs (run by npm start, build and test)",
    });
  else logger.info("translation dictionaries", { dir, languages: installed });
  const loaded = new Map<Language, Dictionary | null>();
  const dictionaryFor = (language: Language): Dictionary | null => {
    if (!loaded.has(language)) {
      let dictionary: Dictionary | null = null;
      try {
        dictionary = installed.includes(language) ? readDictionary(dir, language) : null;
        if (!dictionary)
          logger.warn("no translation dictionary for a question's language: searched as written", {
            language,
          });
      } catch (error) {
        // A damaged file costs the translation, not the answer.
        logger.warn("a translation dictionary could not be read: searched as written", {
          language,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      loaded.set(language, dictionary);
    }
    return loaded.get(language) ?? null;
  };
  return {
    available: installed,
    translate(question, status) {
      const language = detectLanguage(question);
      if (language === null || language === "en") return null;
      // Every word held by the documents (a question in their own language): no dictionary to read.
      if (questionWords(question).every((w) => status(w) === "known" || status(w) === "stop")) return null;
      const dictionary = dictionaryFor(language);
      return dictionary ? translateQuestion(question, dictionary, status) : null;
    },
  };
}
