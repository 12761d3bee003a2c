import { createRequire } from "node:module";
import { answerLanguages } from "@lore/shared";
import { countScripts, type Script } from "./scripts.ts";

/** Languages Lore detects and answers in (ISO 639-1); analysis covers their scripts (see docs/operations.md). */
export const languages = answerLanguages;
export type Language = (typeof languages)[number];

const latinLanguages: Language[] = ["en", "es", "de", "fr", "pt", "it", "nl", "pl", "tr"];

// Candidates the n-gram detector chooses among per script; a winner Lore does not support reads as unknown.
const candidatesByScript: Partial<Record<Script, string[]>> = {
  latin: latinLanguages,
  cyrillic: ["ru", "uk", "bg", "sr", "mk", "be"],
  arabic: ["ar", "fa", "ur"],
  devanagari: ["hi", "mr", "ne"],
};

interface Detector {
  detect(text: string, options?: { only?: string[] }): string;
}

let detector: Detector | null = null;

// Loaded on first use (about 0.2 s): English-only workloads never pay for it.
function ngramDetector(): Detector {
  detector ??= createRequire(import.meta.url)("tinyld") as Detector;
  return detector;
}

const isLanguage = (code: string): code is Language => (languages as readonly string[]).includes(code);

const cache = new Map<string, Language | null>();
const cacheLimit = 2000;

/**
 * The language of a text, or null when it cannot tell (too short, or a language Lore does not
 * support). The script decides where it alone is enough (Han, kana, Hangul); otherwise an n-gram
 * detector (tinyld) chooses among that script's languages.
 */
export function detectLanguage(text: string): Language | null {
  const sample = text.length > 2000 ? text.slice(0, 2000) : text;
  const cached = cache.get(sample);
  if (cached !== undefined) return cached;
  const result = detectUncached(sample);
  if (cache.size >= cacheLimit) cache.clear();
  cache.set(sample, result);
  return result;
}

function detectUncached(text: string): Language | null {
  const counts = countScripts(text);
  let top: Script | null = null;
  let topCount = 0;
  for (const [script, count] of counts) {
    if (count > topCount) {
      top = script;
      topCount = count;
    }
  }
  if (top === null) return null;
  const kana = counts.get("kana") ?? 0;
  const han = counts.get("han") ?? 0;
  // Japanese mixes kanji with kana; Chinese never uses kana.
  if ((top === "han" || top === "kana") && kana > 0 && kana >= 0.1 * (han + kana)) return "ja";
  if (top === "han") return "zh";
  if (top === "kana") return "ja";
  if (top === "hangul") return "ko";
  const candidates = candidatesByScript[top];
  if (!candidates || topCount < 3) return null;
  const code = ngramDetector().detect(text, { only: candidates });
  return isLanguage(code) ? code : null;
}
