import { STOP_WORDS, tokenizeWords } from "../text/normalize.ts";
import type { ChatMessage } from "./types.ts";

const FOLLOW_UP_PRONOUNS = new Set([
  "it",
  "its",
  "it's",
  "they",
  "them",
  "their",
  "theirs",
  "that",
  "this",
  "these",
  "those",
  "he",
  "him",
  "his",
  "she",
  "her",
  "hers",
  "there",
  "one",
  "ones",
]);

// Verbs and fillers of questions that say nothing about the topic carried into a follow-up.
const QUESTION_FILLERS = new Set([
  "tell",
  "explain",
  "describe",
  "know",
  "mean",
  "means",
  "please",
  "give",
  "show",
  "list",
  "find",
  "like",
  "happened",
  "happen",
  "many",
  "much",
  "else",
]);

const ELLIPTIC_START =
  /^\s*(?:and|also|but|so|then|what about|how about|what of|and what|and how|same for|else)\b/i;

/** True when a question leans on earlier turns: a pronoun, an elliptic opening ("and…", "what about…"), or very few words. */
export function looksLikeFollowUp(question: string): boolean {
  const words = tokenizeWords(question);
  if (words.length === 0) return false;
  if (ELLIPTIC_START.test(question)) return true;
  if (words.length <= 3) return true;
  return words.some((w) => FOLLOW_UP_PRONOUNS.has(w));
}

/**
 * Makes a follow-up standalone without a model: appends the topic words of the last user question(s).
 * "What about X?" replaces the earlier subject, so only the earlier question's common words are carried over.
 */
export function condenseHeuristically(question: string, history: ChatMessage[]): string {
  const trimmed = question.trim();
  if (!looksLikeFollowUp(trimmed)) return trimmed;
  const earlier = history.filter((m) => m.role === "user").map((m) => m.content.trim());
  const last = earlier.at(-1);
  if (last === undefined) return trimmed;
  // A follow-up of a follow-up still needs the original topic.
  const previous = earlier.at(-2);
  const topicSources = looksLikeFollowUp(last) && previous !== undefined ? [previous, last] : [last];

  const replacesSubject =
    /^\s*(?:and\s+)?(?:what|how)\s+(?:about|of)\b/i.test(trimmed) && hasProperName(trimmed);
  const present = new Set(tokenizeWords(trimmed));
  const carried: string[] = [];
  const seen = new Set<string>();
  for (const source of topicSources) {
    for (const word of surfaceWords(source)) {
      const lower = word.toLowerCase();
      if (STOP_WORDS.has(lower) || QUESTION_FILLERS.has(lower) || FOLLOW_UP_PRONOUNS.has(lower)) continue;
      if (present.has(lower) || seen.has(lower)) continue;
      if (replacesSubject && /^\p{Lu}/u.test(word)) continue;
      seen.add(lower);
      carried.push(word);
    }
  }
  if (carried.length === 0) return trimmed;
  return `${trimmed} ${carried.slice(0, 10).join(" ")}`;
}

function surfaceWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

function hasProperName(text: string): boolean {
  // Any capitalised word after the first one (the first is capitalised anyway).
  return surfaceWords(text)
    .slice(1)
    .some((w) => /^\p{Lu}/u.test(w) && !FOLLOW_UP_PRONOUNS.has(w.toLowerCase()));
}
