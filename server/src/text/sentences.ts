import { segmentSentences } from "./segment.ts";

/** A sentence of a text with its character span, so callers can cite or quote around it. */
export interface Sentence {
  text: string;
  start: number;
  end: number;
}

// Words that end with a period without ending a sentence (compared lowercased, without the period).
const ABBREVIATIONS = new Set(
  (
    "mr mrs ms dr prof sr jr st mt ft rev gen col lt sgt capt cmdr adm gov sen rep pres hon messrs mme mlle " +
    "vs etc al cf approx ca inc ltd co corp bros dept est fig figs vol vols no nos op pp ed eds trans univ assn " +
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun " +
    "ave blvd rd hwy bldg apt ste dist div mrs e.g i.e u.s u.k u.n d.c ph.d b.a m.a b.sc m.sc " +
    "c ch sec art para"
  ).split(" "),
);

// A day or rank after an article or preposition of German, Dutch or the Nordic languages.
const ORDINAL = /(?:^|\s)(?:am|im|vom|zum|bis|seit|ab|der|die|das|den|dem|des|het|det)\s+\d{1,3}$/i;

const DEVANAGARI_END = /\p{Script=Devanagari}\p{M}*$/u;

// A sentence ends at . ! ? (or …), optionally followed by closing quotes/brackets, then whitespace.
const BOUNDARY = /([.!?…]+)(["'”’)\]]*)(\s+)/g;

/**
 * Splits prose into sentences, keeping abbreviations (Dr., U.S., e.g.), initials (J. R. R.) and decimals
 * (3.14) intact; Chinese, Japanese, Arabic and Hindi terminators split too.
 */
export function splitSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  // Blank lines, list items and headings always end a sentence.
  const blockPattern = /\n\s*\n|\n(?=\s*(?:[-*•+]|\d+[.)]|#{1,6})\s)/g;
  let blockStart = 0;
  for (const match of text.matchAll(blockPattern)) {
    splitBlock(text, blockStart, match.index, sentences);
    blockStart = match.index + match[0].length;
  }
  splitBlock(text, blockStart, text.length, sentences);
  return sentences;
}

function splitBlock(text: string, from: number, to: number, out: Sentence[]): void {
  const block = text.slice(from, to);
  // Hindi ends its sentences with the danda; where a text does, a period marks an abbreviation
  // or an initial ("जॉन सी. मेसेंजर", "डॉ. राजेंद्र").
  const usesDanda = block.includes("।");
  let start = 0;
  BOUNDARY.lastIndex = 0;
  for (let match = BOUNDARY.exec(block); match !== null; match = BOUNDARY.exec(block)) {
    const punct = match[1] ?? "";
    const closers = match[2] ?? "";
    const endOfSentence = match.index + punct.length + closers.length;
    const next = block.slice(match.index + match[0].length);
    const before = block.slice(start, match.index);
    if (usesDanda && punct === "." && DEVANAGARI_END.test(before)) continue;
    if (!endsSentence(before, punct, next)) continue;
    push(text, from + start, from + endOfSentence, out);
    start = match.index + match[0].length;
  }
  push(text, from + start, to, out);
}

function endsSentence(before: string, punct: string, next: string): boolean {
  if (next.length === 0) return true;
  // A lowercase continuation means the mark did not end a sentence ("approx. five", "Yahoo! users").
  if (/^\p{Ll}/u.test(next)) return false;
  if (punct !== ".") return true;
  // German and its neighbours write ordinals with a period: "am 7. Januar", "im 19. Jahrhundert".
  if (ORDINAL.test(before)) return false;
  const lastWord = /([\p{L}.]+)$/u.exec(before)?.[1] ?? "";
  if (lastWord.length === 0) return true;
  // Initials: a single capital letter ("J. R. R. Tolkien", "George W. Bush").
  if (/^\p{Lu}$/u.test(lastWord)) return false;
  // Dotted abbreviations such as "U.S." or "Ph.D." unless they clearly end the sentence.
  const lower = lastWord.toLowerCase().replace(/\.$/, "");
  // "U.S. Army" goes on, "in the U.S. The" ends; "2 p.m. Shipping" ends.
  if (/^(?:\p{L}\.)+\p{L}$/u.test(lastWord)) {
    return ABBREVIATIONS.has(lower) ? /^(?:The|This|It|In|He|She|They|A|An)\b/.test(next) : true;
  }
  return !ABBREVIATIONS.has(lower);
}

// Terminators the regex above does not know: CJK 。！？, Arabic ؟, Devanagari ।, Urdu ۔, Thai ฯ… none need a space after.
const FOREIGN_TERMINATOR = /[。！？｡؟।॥۔]/;

function push(text: string, start: number, end: number, out: Sentence[]): void {
  if (!FOREIGN_TERMINATOR.test(text.slice(start, end))) {
    pushTrimmed(text, start, end, out);
    return;
  }
  // ICU's sentence rules (Intl.Segmenter) split at them, closing quotes and brackets kept; in Hindi
  // they also split after an initial's period, which is joined back (see DEVANAGARI_END).
  const span = text.slice(start, end);
  const usesDanda = span.includes("।");
  let from = -1;
  for (const piece of segmentSentences(span)) {
    if (from < 0) from = piece.index;
    const pieceEnd = piece.index + piece.text.length;
    if (usesDanda && pieceEnd < span.length && DEVANAGARI_INITIAL.test(piece.text)) continue;
    pushTrimmed(text, start + from, start + pieceEnd, out);
    from = -1;
  }
  if (from >= 0) pushTrimmed(text, start + from, end, out);
}

const DEVANAGARI_INITIAL = /\p{Script=Devanagari}\p{M}*\.\s*$/u;

function pushTrimmed(text: string, start: number, end: number, out: Sentence[]): void {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text.charAt(s))) s++;
  while (e > s && /\s/.test(text.charAt(e - 1))) e--;
  if (e > s) out.push({ text: text.slice(s, e).replace(/\s+/g, " "), start: s, end: e });
}
