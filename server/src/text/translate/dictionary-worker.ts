import { parentPort, workerData } from "node:worker_threads";
import type { Language } from "../language.ts";
import { type Dictionary, readDictionary } from "./dictionary.ts";
import type { DictionaryKeys } from "./translate-question.ts";

/** A question's keys, asked of its language's dictionary (see dictionary-thread.ts). */
export interface DictionaryRequest extends DictionaryKeys {
  id: number;
  language: Language;
}

/** The part of a dictionary a question looked up, or why there is none. */
export type DictionaryReply = { id: number; language: Language } & (
  | { kind: "found"; longest: number; senses: [string, readonly string[]][]; headwords: string[] }
  | { kind: "missing" }
  | { kind: "failed"; message: string }
);

/**
 * The dictionaries' thread: each read (a JSON.parse of up to 16 MB, and Arabic's stemming of every
 * headword take seconds) on the first question in its language, off the event loop, and kept.
 */
const { dir } = workerData as { dir: string };
const loaded = new Map<Language, Dictionary | null | Error>();

function dictionaryOf(language: Language): Dictionary | null | Error {
  let dictionary = loaded.get(language);
  if (dictionary === undefined) {
    try {
      dictionary = readDictionary(dir, language);
    } catch (error) {
      dictionary = error instanceof Error ? error : new Error(String(error));
    }
    loaded.set(language, dictionary);
  }
  return dictionary;
}

function answer(request: DictionaryRequest): DictionaryReply {
  const { id, language } = request;
  const dictionary = dictionaryOf(language);
  if (dictionary === null) return { id, language, kind: "missing" };
  if (dictionary instanceof Error) return { id, language, kind: "failed", message: dictionary.message };
  const senses: [string, readonly string[]][] = [];
  for (const key of request.lookups) {
    const found = dictionary.lookup(key);
    if (found.length > 0) senses.push([key, found]);
  }
  const headwords = request.headwords.filter((key) => dictionary.has(key));
  return { id, language, kind: "found", longest: dictionary.longest, senses, headwords };
}

parentPort?.on("message", (request: DictionaryRequest) => {
  let reply: DictionaryReply;
  try {
    reply = answer(request);
  } catch (error) {
    const { id, language } = request;
    reply = { id, language, kind: "failed", message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
