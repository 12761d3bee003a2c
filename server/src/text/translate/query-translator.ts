import { existsSync, readdirSync } from "node:fs";
import type { Logger } from "../../log/logger.ts";
import { detectLanguage, type Language, languages } from "../language.ts";
import { DictionaryThread } from "./dictionary-thread.ts";
import {
  dictionaryKeys,
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
  translate(question: string, status: (word: string) => WordStatus): Promise<QuestionTranslation | null>;
  /** The languages with a compiled dictionary. */
  readonly available: readonly Language[];
  /** Languages questions came in since the start that have no dictionary (searched as written). */
  readonly missing: readonly Language[];
  /** Stops the dictionaries' thread (shutdown). */
  close(): Promise<void>;
}

/** No dictionaries: every question is searched as written. */
export const noTranslation: QueryTranslator = {
  translate: async () => null,
  available: [],
  missing: [],
  close: async () => {},
};

/**
 * Dictionaries compiled into `dir` by `scripts/compile-dictionaries.mjs` (at install), each read on
 * the first question in its language by a worker thread (dictionary-thread.ts), never on the event
 * loop. A language without one, or whose dictionary is still being read, is searched untranslated
 * (logged once).
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
  /** Languages searched as written from now on: no dictionary, or one that could not be read. */
  const unavailable = new Set<Language>();
  /** Languages whose dictionary was still being read when a question came: said once per reading. */
  const saidLoading = new Set<Language>();
  const thread = new DictionaryThread(dir, (message) => {
    saidLoading.clear();
    logger.warn("the dictionaries' thread stopped: searched as written until it restarts", {
      error: message,
    });
  });
  /** Languages asked in with no dictionary installed, for the console (GET /models/). */
  const missing = new Set<Language>();
  const without = (language: Language): null => {
    unavailable.add(language);
    missing.add(language);
    logger.warn("no translation dictionary for a question's language: searched as written", { language });
    return null;
  };
  return {
    available: installed,
    get missing() {
      return [...missing];
    },
    async translate(question, status) {
      const language = detectLanguage(question);
      if (language === null || language === "en" || unavailable.has(language)) return null;
      // Every word held by the documents (a question in their own language): no dictionary to read.
      if (questionWords(question).every((w) => status(w) === "known" || status(w) === "stop")) return null;
      if (!installed.includes(language)) return without(language);
      const answer = await thread.lookUp(language, dictionaryKeys(question, language));
      switch (answer.kind) {
        case "found":
          return translateQuestion(question, answer.table, status);
        case "missing":
          return without(language);
        case "failed":
          // A damaged file costs the translation, not the answer.
          unavailable.add(language);
          logger.warn("a translation dictionary could not be read: searched as written", {
            language,
            error: answer.message,
          });
          return null;
        case "late":
          if (!saidLoading.has(language)) {
            saidLoading.add(language);
            logger.info("a translation dictionary is still being read: searched as written meanwhile", {
              language,
            });
          }
          return null;
        case "stopped":
          return null;
      }
    },
    close: () => thread.close(),
  };
}
