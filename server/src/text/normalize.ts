import {
  foreignStopWords,
  isScriptStopWord,
  latinStemmer,
  stemScriptWord,
  stopWordsOf,
} from "./analyzers.ts";
import { detectLanguage, type Language } from "./language.ts";
import { essentialMark, unspacedScript } from "./scripts.ts";
import { segmentWords } from "./segment.ts";

/** SQuAD's answer normalisation: lowercase, no punctuation, no articles, single spaces. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, "")
    .replace(/\b(a|an|the)\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** English function words that carry no topic; shared by the extractive answerer and reranking. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are aren't as at be because been before being below " +
    "between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each " +
    "either else ever few for from further get gets got had hadn't has hasn't have haven't having he he'd he'll " +
    "he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it " +
    "it's its itself just let's may me might more most much must mustn't my myself neither no nor not now of off on " +
    "once only or other ought our ours ourselves out over own same shall shan't she she'd she'll she's should " +
    "shouldn't so some such than that that's the their theirs them themselves then there there's these they they'd " +
    "they'll they're they've this those though through thus to too under until up upon us very was wasn't we we'd " +
    "we'll we're we've were weren't what what's when when's where where's whether which while who who's whom whose " +
    "why why's will with within without won't would wouldn't yet you you'd you'll you're you've your yours yourself " +
    "yourselves s t d ll re ve"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

// Outside ASCII a word also holds the marks that belong to its letters (Hindi vowel signs, Thai vowels).
const FOREIGN_WORD = new RegExp(
  `[\\p{L}\\p{N}](?:[\\p{L}\\p{N}]|${essentialMark.source})*(?:['’][\\p{L}]+)*`,
  "gu",
);
const asciiOnly = /^\p{ASCII}*$/u;
// Arabic short vowels and tatweel: optional in writing, so dropped before matching.
const arabicMarks = /[\u0640\u064b-\u065f\u0670]/g;
const fullWidth = /[\uff01-\uff5e]/g;
const dottedI = /i\u0307/g;

/**
 * Lowercased words with inner apostrophes kept (`don't`), everything else dropped. Chinese, Japanese
 * and Thai runs are cut into dictionary words; full-width letters and digits read as ASCII.
 */
export function tokenizeWords(text: string): string[] {
  if (asciiOnly.test(text)) return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
  const lower = text
    .toLowerCase()
    // Turkish İ lowercases to i + a combining dot, which would cut "İstanbul" in two.
    .replace(dottedI, "i")
    .replace(fullWidth, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
    .replace(arabicMarks, "");
  const words: string[] = [];
  for (const match of lower.match(FOREIGN_WORD) ?? []) {
    const word = match.replace(/’/g, "'");
    if (unspacedScript.test(word)) words.push(...segmentWords(word));
    else words.push(word);
  }
  return words;
}

/** A light English stemmer: folds plurals and common verb/adverb endings so `rivers`/`river`, `founded`/`founding` meet. */
export function stemWord(word: string): string {
  // Words in other scripts follow their language's stemmer (Russian, Arabic, Hindi) or stay whole.
  if (word.charCodeAt(0) > 0x24f) {
    const stem = stemScriptWord(word);
    if (stem !== undefined) return stem;
  }
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is") && w.length > 3)
    w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = undouble(w.slice(0, -3));
  else if (w.length >= 4 && w.endsWith("ed") && !w.endsWith("eed")) w = undouble(w.slice(0, -2));
  if (w.length > 5 && w.endsWith("ly")) w = w.slice(0, -2);
  if (w.length >= 4 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  const last = w.at(-1);
  if (last !== undefined && w.length > 3 && last === w.at(-2) && !"lsz".includes(last)) return w.slice(0, -1);
  return w;
}

/**
 * Content terms of a text: words minus stop words, stemmed. The unit of matching for reranking and
 * extraction. Words in other scripts drop their language's stop words and follow its stemmer; a
 * text in another Latin-script language (Spanish, German, …) drops that language's stop words.
 */
export function tokenizeTerms(text: string): string[] {
  const words = tokenizeWords(text);
  const foreign = foreignStopWords(words, STOP_WORDS, () => detectLanguage(text));
  const terms: string[] = [];
  if (asciiOnly.test(text)) {
    for (const word of words) {
      if (STOP_WORDS.has(word) || foreign?.has(word)) continue;
      terms.push(stemWord(word));
    }
    return terms;
  }
  for (const word of words) {
    if (STOP_WORDS.has(word) || foreign?.has(word)) continue;
    if (word.charCodeAt(0) > 0x24f && isScriptStopWord(word)) continue;
    terms.push(stemWord(word));
  }
  return terms;
}

const apostropheSuffix = /'.*$/;

/**
 * Content terms of a text known to be in `language`: for Spanish, German, French, Portuguese,
 * Italian, Dutch and Turkish, that language's stop words dropped (with the English ones) and its
 * Snowball stemmer; `tokenizeTerms` otherwise. For matching a question against passages of one
 * language (the extractive answerer), where both sides can follow the same rules.
 */
export function tokenizeTermsIn(text: string, language: Language | null): string[] {
  const stem = language ? latinStemmer(language) : null;
  if (!language || !stem) return tokenizeTerms(text);
  const stops = stopWordsOf(language, "written");
  const terms: string[] = [];
  for (const written of tokenizeWords(text)) {
    // Turkish writes a proper name's case ending after an apostrophe ("İstanbul'da", "Ankara'nın").
    const word = language === "tr" ? written.replace(apostropheSuffix, "") : written;
    if (STOP_WORDS.has(word) || stops.has(word)) continue;
    if (word.charCodeAt(0) > 0x24f && isScriptStopWord(word)) continue;
    terms.push(/\p{N}/u.test(word) ? word : stem(word));
  }
  return terms;
}
