import { countTokens, splitLongWord, tokensUpTo } from "../../text/tokens.ts";
import type { ChunkDraft, ParsedDocument, ParsedSection } from "../documents.ts";

/** Upper bound of a chunk, heading context included (cl100k tokens). */
export const DEFAULT_MAX_TOKENS = 256;
/** Tokens repeated from the end of one chunk at the start of the next chunk of the same section. */
export const DEFAULT_OVERLAP_TOKENS = 40;
/** Sections below this size are merged with neighbours (same page, same top-level heading). */
export const DEFAULT_MIN_TOKENS = 48;
/** Separator between heading path entries in the context line. */
export const HEADING_SEPARATOR = " > ";

export interface ChunkOptions {
  maxTokens?: number;
  overlapTokens?: number;
  minTokens?: number;
}

interface Unit {
  text: string;
  tokens: number;
  /** Joiner placed before this unit when it follows another: paragraph, sentence, table row or none (a cut word). */
  sep: "\n\n" | " " | "\n" | "";
}

const SENTENCE_END = /(?<=[.!?…。！？]["'’”)\]]?)\s+(?=["'‘“([]?[\p{Lu}\p{N}])/u;

interface Word {
  text: string;
  /** A piece of a word too long to keep whole: joined to the previous piece without a space. */
  glued: boolean;
}

/** Words of a text; a word that alone could exceed the budget is cut into pieces that cannot. */
function wordsOf(text: string, budget: number): Word[] {
  // A UTF-16 code unit encodes to at most 3 bytes, and a token covers at least one byte.
  const pieceChars = Math.max(1, Math.floor(budget / 3));
  return text
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((word) => splitLongWord(word, pieceChars).map((piece, i) => ({ text: piece, glued: i > 0 })));
}

/** A word as it stands at position `i` of a unit: with its leading space unless first or glued. */
function spaced(w: Word, i: number): string {
  return i === 0 || w.glued ? w.text : ` ${w.text}`;
}

function joinWords(words: Word[]): string {
  return words.map(spaced).join("");
}

/**
 * Hard split of one over-long sentence into units within budget. Words are packed by their own
 * counts (with the space BPE attaches to them), then each unit is counted whole and trimmed if the
 * sum was short: linear in the sentence, where a search over prefixes recounted it many times.
 */
function splitWords(text: string, budget: number, sep: Unit["sep"]): Unit[] {
  const words = wordsOf(text, budget);
  const costs = words.map((w, i) => countTokens(spaced(w, i)));
  const out: Unit[] = [];
  let from = 0;
  while (from < words.length) {
    let to = from + 1;
    let sum = costs[from] ?? 0;
    while (to < words.length && sum + (costs[to] ?? 0) <= budget) sum += costs[to++] ?? 0;
    let unitText = joinWords(words.slice(from, to));
    let tokens = countTokens(unitText);
    while (tokens > budget && to - from > 1) {
      to--;
      unitText = joinWords(words.slice(from, to));
      tokens = countTokens(unitText);
    }
    const glued = words[from]?.glued === true;
    out.push({ text: unitText, tokens, sep: out.length === 0 ? sep : glued ? "" : " " });
    from = to;
  }
  return out;
}

/** Breaks a block into units no larger than the budget: whole if it fits, else sentences, else words. */
function toUnits(block: string, budget: number, sep: Unit["sep"], splitSentences: boolean): Unit[] {
  const tokens = tokensUpTo(block, budget);
  if (tokens <= budget) return [{ text: block, tokens, sep }];
  if (!splitSentences) return splitWords(block, budget, sep);
  const out: Unit[] = [];
  for (const sentence of block.split(SENTENCE_END)) {
    const s = sentence.trim();
    if (!s) continue;
    const first = out.length === 0;
    const t = countTokens(s);
    if (t <= budget) out.push({ text: s, tokens: t, sep: first ? sep : " " });
    else for (const w of splitWords(s, budget, first ? sep : " ")) out.push(w);
  }
  return out;
}

function sectionUnits(section: ParsedSection, budget: number): Unit[] {
  if (section.isTable) {
    // Rows are self-contained ("column: value; …") and are never cut unless one row alone is too big.
    return section.text
      .split("\n")
      .filter((r) => r.trim())
      .flatMap((row) => toUnits(row, budget, "\n", false));
  }
  return section.text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .flatMap((p) => toUnits(p, budget, "\n\n", true));
}

function joinUnits(units: Unit[]): string {
  return units.map((u, i) => (i === 0 ? u.text : u.sep + u.text)).join("");
}

/** Trailing units of a chunk worth at most `overlap` tokens (the tail of a long sentence if need be). */
function overlapTail(units: Unit[], overlap: number): Unit[] {
  if (overlap <= 0) return [];
  const tail: Unit[] = [];
  let tokens = 0;
  for (let i = units.length - 1; i >= 0; i--) {
    const u = units[i];
    if (!u || tokens + u.tokens > overlap) {
      if (tail.length === 0 && u) {
        const words = u.text.split(/\s+/);
        const piece = words.slice(Math.max(0, words.length - Math.floor(overlap * 0.75))).join(" ");
        if (piece) tail.unshift({ text: piece, tokens: countTokens(piece), sep: u.sep });
      }
      break;
    }
    tail.unshift(u);
    tokens += u.tokens;
  }
  return tail;
}

interface Group {
  headingPath: string[];
  page: number | null;
  isTable: boolean;
  /** Section text, with the headings below the group's path inlined as lines. */
  text: string;
  /** Exact up to the chunk size, above it only "too big" (see tokensUpTo). */
  tokens: number;
}

function commonPrefix(a: string[], b: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++) out.push(a[i] ?? "");
  return out;
}

/** Merges runs of small sections that share a page and a top-level heading, keeping their sub-headings inline. */
function groupSections(sections: ParsedSection[], maxTokens: number, minTokens: number): Group[] {
  const groups: Group[] = [];
  for (const section of sections) {
    // Above maxTokens the exact size does not matter: such a section is neither merged nor kept whole.
    const tokens = tokensUpTo(section.text, maxTokens);
    const prev = groups.at(-1);
    const mergeable =
      prev &&
      !prev.isTable &&
      !section.isTable &&
      prev.page === section.page &&
      prev.headingPath[0] === section.headingPath[0] &&
      (prev.tokens < minTokens || tokens < minTokens) &&
      prev.tokens + tokens + 8 <= maxTokens * 0.8;
    if (prev && mergeable) {
      const shared = commonPrefix(prev.headingPath, section.headingPath);
      const inlineHeading = (path: string[]) => path.slice(shared.length).join(HEADING_SEPARATOR);
      const prevHeading = inlineHeading(prev.headingPath);
      const nextHeading = inlineHeading(section.headingPath);
      prev.text = [
        prevHeading ? `${prevHeading}\n${prev.text}` : prev.text,
        nextHeading ? `${nextHeading}\n${section.text}` : section.text,
      ].join("\n\n");
      prev.headingPath = shared;
      prev.tokens += tokens + 8;
      continue;
    }
    groups.push({
      headingPath: [...section.headingPath],
      page: section.page,
      isTable: section.isTable ?? false,
      text: section.text,
      tokens,
    });
  }
  return groups;
}

/**
 * Splits a parsed document into retrieval chunks that follow its structure: never across pages or
 * top-level sections; long sections split at paragraphs, then sentences (table sections at rows);
 * consecutive chunks of one section overlap; short neighbouring sections are merged.
 *
 * Every chunk's text starts with its heading path as a context line ("Setup > Install\n\n…"):
 * body text often omits the words of its heading ("within 30 days" under "Refund policy"), and
 * BM25 and embeddings both match on them. `body` is the same chunk without that line.
 */
export function chunkDocument(doc: ParsedDocument, opts: ChunkOptions = {}): ChunkDraft[] {
  const maxTokens = Math.max(16, opts.maxTokens ?? DEFAULT_MAX_TOKENS);
  const minTokens = opts.minTokens ?? DEFAULT_MIN_TOKENS;
  const chunks: ChunkDraft[] = [];

  for (const group of groupSections(doc.sections, maxTokens, minTokens)) {
    const context = group.headingPath.join(HEADING_SEPARATOR);
    const prefixTokens = context ? countTokens(context) + 1 : 0;
    // A pathological heading path may not eat the whole budget.
    const budget = Math.max(8, maxTokens - Math.min(prefixTokens, Math.floor(maxTokens / 2)));
    const overlap = group.isTable
      ? 0
      : Math.min(opts.overlapTokens ?? DEFAULT_OVERLAP_TOKENS, Math.floor(budget / 2));
    const emit = (units: Unit[]): void => {
      const body = joinUnits(units).trim();
      if (!body) return;
      const text = context ? `${context}\n\n${body}` : body;
      chunks.push({
        ordinal: chunks.length,
        text,
        body,
        headingPath: group.headingPath,
        page: group.page,
        tokenCount: countTokens(text),
      });
    };

    const section: ParsedSection = {
      headingPath: group.headingPath,
      text: group.text,
      page: group.page,
      isTable: group.isTable,
    };
    if (group.tokens <= budget) {
      emit([{ text: group.text, tokens: group.tokens, sep: "\n\n" }]);
      continue;
    }
    const units = sectionUnits(section, budget);
    let current: Unit[] = [];
    let tokens = 0;
    let fresh = 0; // units in `current` that are not overlap carried from the previous chunk
    for (const unit of units) {
      const cost = unit.tokens + (current.length > 0 ? 1 : 0);
      if (current.length > 0 && tokens + cost > budget && fresh > 0) {
        emit(current);
        current = overlapTail(current, overlap);
        tokens = current.reduce((sum, u) => sum + u.tokens + 1, 0);
        fresh = 0;
        // Overlap never pushes a unit past the budget: drop it when both do not fit.
        if (tokens + unit.tokens + 1 > budget) {
          current = [];
          tokens = 0;
        }
      }
      current.push(unit);
      tokens += unit.tokens + (current.length > 1 ? 1 : 0);
      fresh++;
    }
    if (fresh > 0) emit(current);
  }
  return chunks;
}
