import { createRequire } from "node:module";
import { newStemmer } from "snowball-stemmers";
import type { Language } from "./language.ts";
import { type Script, tokenScript } from "./scripts.ts";
import { foldText } from "./segment.ts";

/**
 * Per-script analysis of one folded word: what a non-Latin word becomes in the index and in the
 * answerer. It depends on the word alone (its script names its language well enough: Cyrillic →
 * Russian rules, Arabic script → Arabic, Devanagari → Hindi), so a document and a question analyse
 * the same word the same way whatever was detected around it. Latin-script words keep the English
 * pipeline (callers handle them), so English stays exactly as tuned.
 */

type StopLists = Record<string, string[]>;

let stopLists: StopLists | null = null;

// Question words stopwords-iso lacks: no answer contains them, so like "what" and "when" in English they only add noise.
const QUESTION_WORDS: Partial<Record<string, readonly string[]>> = {
  hi: [
    ...[
      "क्या",
      "कब",
      "कहाँ",
      "कहां",
      "कैसे",
      "क्यों",
      "कितने",
      "कितना",
      "कितनी",
      "किसने",
      "किसको",
      "किसका",
      "किसकी",
      "किसके",
      "किन",
      "किनके",
      "किनका",
      "किनकी",
      "किनको",
      "किन्हें",
      "किन्होंने",
    ],
    // and the auxiliaries and pronouns around them that the list also lacks
    ...["जाता", "जाती", "जाते", "गए", "गई", "ऐसा", "ऐसी", "सा", "सी", "जिसमें", "जिससे"],
  ],
  zh: ["什么时候", "哪位", "哪种", "多久", "谁是"],
  ar: ["لماذا"],
  ru: ["чей", "чья", "чьё", "чьи"],
  tr: [
    "kaç",
    "kaçta",
    "kaçıncı",
    "kimin",
    "kime",
    "kimi",
    "kimler",
    "nereye",
    "nereden",
    "neresi",
    "hangileri",
    "neydi",
    "nedir",
    "kimdir",
  ],
};
const stopSets = new Map<string, ReadonlySet<string>>();

// stopwords-iso ships one JSON file (200 KB); read once, on the first non-English word.
function stopList(language: string): ReadonlySet<string> {
  let set = stopSets.get(language);
  if (!set) {
    stopLists ??= createRequire(import.meta.url)("stopwords-iso") as StopLists;
    // `raw:xx` keeps accents (the answerer's words keep them); plain codes are folded like index tokens.
    const raw = language.startsWith("raw:");
    const code = raw ? language.slice(4) : language;
    const words = [...(stopLists[code] ?? []), ...(QUESTION_WORDS[code] ?? [])];
    set = new Set(raw ? words : words.map(foldText));
    stopSets.set(language, set);
  }
  return set;
}

/** Stop words of a language (stopwords-iso): folded like index tokens, or as written (accents kept, like the answerer's words). */
export function stopWordsOf(language: Language, form: "folded" | "written" = "folded"): ReadonlySet<string> {
  return stopList(form === "written" ? `raw:${language}` : language);
}

const russian = newStemmer("russian");
const arabic = newStemmer("arabic");

// Lucene's HindiStemmer suffixes (Ramanathan & Rao, "A Lightweight Stemmer for Hindi", 2003), longest first.
const hindiSuffixes: readonly (readonly string[])[] = [
  ["ाएंगी", "ाएंगे", "ाऊंगी", "ाऊंगा", "ाइयाँ", "ाइयों", "ाइयां"],
  [
    "ाएगी",
    "ाएगा",
    "ाओगी",
    "ाओगे",
    "एंगी",
    "ेंगी",
    "एंगे",
    "ेंगे",
    "ूंगी",
    "ूंगा",
    "ातीं",
    "नाओं",
    "नाएं",
    "ताओं",
    "ताएं",
    "ियाँ",
    "ियों",
    "ियां",
  ],
  [
    "ाकर",
    "ाइए",
    "ाईं",
    "ाया",
    "ेगी",
    "ेगा",
    "ोगी",
    "ोगे",
    "ाने",
    "ाना",
    "ाते",
    "ाती",
    "ाता",
    "तीं",
    "ाओं",
    "ाएं",
    "ुओं",
    "ुएं",
    "ुआं",
  ],
  ["कर", "ाओ", "िए", "ाई", "ाए", "ने", "नी", "ना", "ते", "ीं", "ती", "ता", "ाँ", "ां", "ों", "ें"],
  ["ो", "े", "ू", "ु", "ी", "ि", "ा"],
];

/** Hindi light stemming: nukta and chandrabindu normalised, one inflectional suffix removed. */
export function stemHindi(word: string): string {
  const w = word
    .replace(/\u093c/g, "")
    .replace(/\u0901/g, "\u0902")
    .replace(/[\u200c\u200d]/g, "");
  for (const suffixes of hindiSuffixes) {
    const size = (suffixes[0] as string).length;
    if (w.length <= size + 1) continue;
    for (const suffix of suffixes) if (w.endsWith(suffix)) return w.slice(0, -suffix.length);
  }
  return w;
}

// Greek inflectional endings (nouns, adjectives, participles, verbs), accents folded and final ς as σ,
// longest first; a light stemmer in the manner of the Hindi one above (one ending removed).
const greekSuffixes: readonly (readonly string[])[] = [
  ["ηθηκαν", "ουμενοσ", "ουμενη", "ουμενο", "ομενοσ", "ομενεσ", "ομενων", "ομενου", "ομαστε"],
  [
    "ηθηκε",
    "θηκαν",
    "ονται",
    "ουνται",
    "ιουνται",
    "ωντασ",
    "οντασ",
    "ματοσ",
    "ματων",
    "μενοσ",
    "μενησ",
    "μενεσ",
    "μενων",
    "μενου",
    "μενοι",
    "οτητα",
    "ιεσαι",
  ],
  [
    "θηκε",
    "ηκαν",
    "εται",
    "ειται",
    "αται",
    "ιται",
    "νται",
    "ματα",
    "μενο",
    "μενη",
    "μενα",
    "ουμε",
    "ουσαν",
    "ησαν",
    "ασαν",
    "ισαν",
    "ουσε",
    "εισ",
    "ιασ",
    "ιεσ",
    "ιου",
    "ιοσ",
    "ιοι",
    "ιων",
    "ειασ",
    "ειεσ",
    "εων",
    "ευσ",
    "εωσ",
    "ουσ",
    "ουν",
    "ηκε",
    "ησε",
    "ασε",
    "ισε",
    "ατε",
    "ετε",
    "ανε",
    "ουνε",
    "οτερ",
    "υτερ",
  ],
  ["ιο", "οσ", "ου", "ον", "οι", "ων", "ασ", "εσ", "ησ", "ια", "ει", "αι", "αν", "ωσ", "μα", "σε"],
  ["α", "ε", "η", "ι", "ο", "υ", "ω"],
];
const greekMarks = /\p{M}+/gu;

/** Greek light stemming: accents folded (tonos, dialytika), final ς read as σ, one inflectional ending removed. */
export function stemGreek(word: string): string {
  const w = word.normalize("NFD").replace(greekMarks, "").toLowerCase().replace(/ς/g, "σ");
  for (const suffixes of greekSuffixes) {
    for (const suffix of suffixes)
      if (w.length >= suffix.length + 3 && w.endsWith(suffix)) return w.slice(0, -suffix.length);
  }
  return w;
}

/** Arabic: tatweel dropped (accents and hamza seats were folded already), then the Snowball Arabic stemmer. */
export function stemArabic(word: string): string {
  return arabic.stem(word.replace(/\u0640/g, ""));
}

/** Russian: ё read as е (as most texts write it), then the Snowball Russian stemmer. */
export function stemRussian(word: string): string {
  return russian.stem(word.replace(/ё/g, "е"));
}

const stopLanguagesByScript: Partial<Record<Script, readonly string[]>> = {
  cyrillic: ["ru"],
  arabic: ["ar"],
  devanagari: ["hi"],
  han: ["zh", "ja"],
  kana: ["ja"],
  hangul: ["ko"],
  thai: ["th"],
  greek: ["el"],
};

/**
 * The longest word any stemmer sees, Porter2 (`retrieval/text-analysis.ts`) and the Snowball ones
 * alike: they are superlinear in a word's length (2,000 letters took 0.2–1.5 s), and no real word
 * comes near it, so longer words are kept whole (issue #34).
 */
export const MAX_STEM_LENGTH = 64;

const stemByScript: Partial<Record<Script, (word: string) => string>> = {
  cyrillic: stemRussian,
  arabic: stemArabic,
  devanagari: stemHindi,
  greek: stemGreek,
};

/** The stem of a word in a script with a stemmer (Cyrillic, Arabic, Devanagari, Greek); `undefined` otherwise. */
export function stemScriptWord(word: string, script: Script = tokenScript(word)): string | undefined {
  // The Snowball stemmers are superlinear in a word's length: longer words stay whole (issue #34).
  if (word.length > MAX_STEM_LENGTH) return stemByScript[script] ? word : undefined;
  const stem = stemByScript[script];
  return stem ? stem(word) || word : undefined;
}

// Short all-hiragana words are particles, auxiliaries and endings (を, ます, どう); content words carry kanji or katakana.
const hiraganaFunctionWord = /^[\u3041-\u309f]{1,2}$/;

/** Whether a folded non-Latin word is a stop word of its script's languages. */
export function isScriptStopWord(word: string, script: Script = tokenScript(word)): boolean {
  const languages = stopLanguagesByScript[script];
  if (!languages) return false;
  if (script === "kana" && hiraganaFunctionWord.test(word)) return true;
  for (const language of languages) if (stopList(language).has(word)) return true;
  return false;
}

const termCache = new Map<string, string | null>();

/**
 * The index term of a folded word in a non-Latin script, null for a stop word; `undefined` for a
 * Latin-script (or script-less) word, which the English pipeline handles.
 */
export function analyzeScriptWord(word: string): string | null | undefined {
  const cached = termCache.get(word);
  if (cached !== undefined) return cached;
  const script = tokenScript(word);
  if (script === "latin" || script === "other") return undefined;
  let term: string | null = word;
  if (isScriptStopWord(word, script)) term = null;
  else term = stemScriptWord(word, script) ?? word;
  if (termCache.size < 500_000) termCache.set(word, term);
  return term;
}

const latinStopLanguages = [
  "es",
  "de",
  "fr",
  "pt",
  "it",
  "nl",
  "pl",
  "tr",
] as const satisfies readonly Language[];
let latinStopIndex: Map<string, number> | null = null;

// Word → bit mask of the Latin-script languages listing it as a stop word (as written, accents kept).
function latinStops(): Map<string, number> {
  if (!latinStopIndex) {
    stopLists ??= createRequire(import.meta.url)("stopwords-iso") as StopLists;
    const index = new Map<string, number>();
    latinStopLanguages.forEach((language, bit) => {
      for (const word of stopLists?.[language] ?? []) index.set(word, (index.get(word) ?? 0) | (1 << bit));
    });
    latinStopIndex = index;
  }
  return latinStopIndex;
}

/** How many of the words are English function words, and how many each other Latin-script language's. */
function countFunctionWords(
  words: readonly string[],
  english: ReadonlySet<string>,
): { englishCount: number; counts: number[] } {
  const index = latinStops();
  const counts = new Array<number>(latinStopLanguages.length).fill(0);
  let englishCount = 0;
  for (const word of words) {
    if (english.has(word)) {
      englishCount++;
      continue;
    }
    const mask = index.get(word);
    if (mask === undefined) continue;
    for (let bit = 0; bit < counts.length; bit++) if (mask & (1 << bit)) counts[bit] = (counts[bit] ?? 0) + 1;
  }
  return { englishCount, counts };
}

/**
 * Whether lowercase words read as English: all in the Latin script, with more English function words
 * than any other Latin-script language's ("how do I reset it" yes; "Wann kommt der Bericht" and
 * "Jahresbericht" no).
 */
export function readsAsEnglish(words: readonly string[], english: ReadonlySet<string>): boolean {
  if (words.some((w) => w.charCodeAt(0) > 0x24f)) return false;
  const { englishCount, counts } = countFunctionWords(words, english);
  return englishCount > 0 && englishCount > Math.max(...counts);
}

/**
 * The Latin-script language other than English (Spanish, German, …) a text's words are written in:
 * at least two of its words are that language's function words, more than are English ones
 * (`english` says which are), and the n-gram detector agrees. English text never gets as far as the
 * detector; null when the text reads as English or unknown.
 */
export function foreignLatinLanguage(
  words: readonly string[],
  english: ReadonlySet<string>,
  detect: () => Language | null,
): Language | null {
  const { englishCount, counts } = countFunctionWords(words, english);
  const best = Math.max(...counts);
  if (best < 2 || best <= englishCount) return null;
  const language = detect();
  if (language === null || !(latinStopLanguages as readonly string[]).includes(language)) return null;
  if (
    (counts[latinStopLanguages.indexOf(language as (typeof latinStopLanguages)[number])] ?? 0) <= englishCount
  )
    return null;
  return language;
}

/** The stop words to drop from a text's words when it is written in another Latin-script language (see foreignLatinLanguage). */
export function foreignStopWords(
  words: readonly string[],
  english: ReadonlySet<string>,
  detect: () => Language | null,
): ReadonlySet<string> | null {
  const language = foreignLatinLanguage(words, english, detect);
  return language === null ? null : stopWordsOf(language, "written");
}

const snowballNames: Partial<Record<Language, string>> = {
  es: "spanish",
  de: "german",
  fr: "french",
  pt: "portuguese",
  it: "italian",
  nl: "dutch",
  tr: "turkish",
};
const latinStemmers = new Map<Language, (word: string) => string>();

/**
 * The Snowball stemmer of a Latin-script language other than English (German "Gärten" → "gart"),
 * or null. For comparisons inside one language only: the index keeps the English pipeline for
 * every Latin-script word, so a question and its documents always meet there.
 */
export function latinStemmer(language: Language): ((word: string) => string) | null {
  const name = snowballNames[language];
  if (!name) return null;
  let stem = latinStemmers.get(language);
  if (!stem) {
    const stemmer = newStemmer(name);
    stem = (word) => (word.length > MAX_STEM_LENGTH ? word : stemmer.stem(word) || word);
    latinStemmers.set(language, stem);
  }
  return stem;
}
