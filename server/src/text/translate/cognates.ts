import type { Language } from "../language.ts";

/**
 * English cognates of a folded Romance word by its suffix ("suscripcion" → "subscription" needs a
 * dictionary, "especificacion" → "specification" does not): Latinate words make up much of a help
 * center's vocabulary, and the small Spanish, Portuguese, Italian and French dictionaries miss them.
 * Candidates only: the caller keeps those the documents hold.
 */
type SuffixRules = readonly (readonly [string, readonly string[]])[];

const romance: SuffixRules = [
  ["mente", ["ly"]],
  ["ismos", ["isms"]],
  ["ismo", ["ism"]],
  ["istas", ["ists"]],
  ["ista", ["ist"]],
  ["ivos", ["ives", "ive"]],
  ["ivas", ["ives", "ive"]],
  ["ivo", ["ive"]],
  ["iva", ["ive"]],
  ["icos", ["ics", "ic", "ical"]],
  ["icas", ["ics", "ic", "ical"]],
  ["ico", ["ic", "ical"]],
  ["ica", ["ic", "ical", "ics"]],
  ["osos", ["ous"]],
  ["osas", ["ous"]],
  ["oso", ["ous"]],
  ["osa", ["ous"]],
  ["arios", ["aries", "ary"]],
  ["ario", ["ary"]],
  ["aria", ["ary"]],
  ["orio", ["ory"]],
  ["encias", ["ences"]],
  ["encia", ["ence", "ency"]],
  ["ancias", ["ances"]],
  ["ancia", ["ance", "ancy"]],
  ["entes", ["ents", "ent"]],
  ["ente", ["ent"]],
  ["antes", ["ants", "ant"]],
  ["ante", ["ant"]],
  ["izar", ["ize"]],
  ["ificar", ["ify"]],
  ["ados", ["ated", "ates", "ed", "ate"]],
  ["adas", ["ated", "ates", "ed", "ate"]],
  ["ado", ["ated", "ate", "ed"]],
  ["ada", ["ated", "ate", "ed"]],
  ["ar", ["", "e", "ate"]],
  ["er", ["", "e"]],
  ["ir", ["", "e"]],
  ["ias", ["ies", "ias"]],
  ["ia", ["y", "ia"]],
  ["os", ["s", "es", ""]],
  ["as", ["s", "es", ""]],
  ["es", ["es", "s", ""]],
  ["o", ["", "e"]],
  ["a", ["", "e"]],
  ["e", ["", "e"]],
];

const rulesByLanguage: Partial<Record<Language, SuffixRules>> = {
  es: [
    ["ciones", ["tions"]],
    ["cion", ["tion"]],
    ["siones", ["sions"]],
    ["sion", ["sion"]],
    ["dades", ["ties"]],
    ["dad", ["ty"]],
    ...romance,
  ],
  pt: [
    ["coes", ["tions"]],
    ["cao", ["tion"]],
    ["soes", ["sions"]],
    ["sao", ["sion"]],
    ["dades", ["ties"]],
    ["dade", ["ty"]],
    ...romance,
  ],
  it: [
    ["zioni", ["tions"]],
    ["zione", ["tion"]],
    ["sioni", ["sions"]],
    ["sione", ["sion"]],
    ["ita", ["ity"]],
    ["are", ["", "e", "ate"]],
    ["ere", ["", "e"]],
    ["ire", ["", "e"]],
    ...romance,
  ],
  fr: [
    ["ite", ["ity"]],
    ["ites", ["ities"]],
    ["ique", ["ic", "ical"]],
    ["iques", ["ics", "ical"]],
    ["euse", ["ous"]],
    ["eux", ["ous"]],
    ["ment", ["ly", "ment"]],
    ["er", ["", "e"]],
    ["ir", ["", "e"]],
    ["e", ["", "e"]],
    ["s", [""]],
  ],
};

/** Shortest word that gets cognates: short words' cognates are mostly coincidences ("pago" is not "page"). */
const MIN_WORD = 6;

/** Candidate English cognates of a folded word, the longest suffix rules first; empty for other languages. */
export function cognateCandidates(word: string, language: Language): string[] {
  const rules = rulesByLanguage[language];
  if (!rules || word.length < MIN_WORD || !/^[a-z]+$/.test(word)) return [];
  const stems = [word];
  // Spanish and Portuguese put an e before s + consonant ("especial", "estado"): English does not.
  if ((language === "es" || language === "pt") && /^es[^aeiou]/.test(word)) stems.push(word.slice(1));
  // "inm-" is English "imm-" ("inmune", "inmigrante").
  if (word.startsWith("inm")) stems.push(`imm${word.slice(3)}`);
  const out: string[] = [];
  for (const stem of stems)
    for (const [suffix, replacements] of rules) {
      if (!stem.endsWith(suffix) || stem.length - suffix.length < 3) continue;
      for (const replacement of replacements) {
        const candidate = stem.slice(0, -suffix.length) + replacement;
        if (candidate.length >= 4 && !out.includes(candidate)) out.push(candidate);
      }
    }
  return out;
}
