/** Writing systems the analysers treat differently; anything else counts as `other`. */
export type Script =
  | "latin"
  | "cyrillic"
  | "greek"
  | "arabic"
  | "hebrew"
  | "devanagari"
  | "han"
  | "kana"
  | "hangul"
  | "thai"
  | "other";

/** The script of one code point (letters only; digits, punctuation and marks are `other`). */
export function scriptOf(code: number): Script {
  if (code < 0x80) return (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a ? "latin" : "other";
  if (code <= 0x24f) return code >= 0xc0 && code !== 0xd7 && code !== 0xf7 ? "latin" : "other";
  if (code >= 0x370 && code <= 0x3ff) return "greek";
  if (code >= 0x400 && code <= 0x52f) return "cyrillic";
  if (code >= 0x590 && code <= 0x5ff) return "hebrew";
  if (
    (code >= 0x600 && code <= 0x6ff) ||
    (code >= 0x750 && code <= 0x77f) ||
    (code >= 0x8a0 && code <= 0x8ff)
  )
    return "arabic";
  if (code >= 0x900 && code <= 0x97f) return "devanagari";
  if (code >= 0xe00 && code <= 0xe7f) return "thai";
  if (
    (code >= 0x1100 && code <= 0x11ff) ||
    (code >= 0x3130 && code <= 0x318f) ||
    (code >= 0xac00 && code <= 0xd7af)
  )
    return "hangul";
  if (code >= 0x1e00 && code <= 0x1eff) return "latin";
  if (
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x31f0 && code <= 0x31ff) ||
    (code >= 0xff66 && code <= 0xff9f)
  )
    return "kana";
  if (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x20000 && code <= 0x3134f)
  )
    return "han";
  if ((code >= 0xfb50 && code <= 0xfdff) || (code >= 0xfe70 && code <= 0xfeff)) return "arabic";
  return "other";
}

/** Letter counts per script over the first `limit` code points of a text. */
export function countScripts(text: string, limit = 2000): Map<Script, number> {
  const counts = new Map<Script, number>();
  let seen = 0;
  for (const ch of text) {
    if (seen++ >= limit) break;
    const script = scriptOf(ch.codePointAt(0) ?? 0);
    if (script !== "other") counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return counts;
}

/** The script of a token: that of its first letter. */
export function tokenScript(token: string): Script {
  for (const ch of token) {
    const script = scriptOf(ch.codePointAt(0) ?? 0);
    if (script !== "other") return script;
  }
  return "other";
}

/** Scripts written without spaces between words: their runs need a dictionary segmenter. */
export const unspacedScript =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;

/**
 * Combining marks that are part of the letter in their script (Indic vowel signs and viramas, Thai
 * vowels, kana voicing): never stripped. Everywhere else a mark is an accent and folds away.
 */
export const essentialMark =
  /[\p{sc=Deva}\p{sc=Beng}\p{sc=Guru}\p{sc=Gujr}\p{sc=Orya}\p{sc=Taml}\p{sc=Telu}\p{sc=Knda}\p{sc=Mlym}\p{sc=Sinh}\p{sc=Thai}\p{sc=Laoo}\p{sc=Tibt}\p{sc=Mymr}\p{sc=Khmr}\u3099\u309a]/u;
