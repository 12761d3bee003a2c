import { countTokens, isWithinTokenLimit } from "gpt-tokenizer";
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
  /** Joiner placed before this unit when it follows another: paragraph, sentence or table row. */
  sep: "\n\n" | " " | "\n";
}

const SENTENCE_END = /(?<=[.!?…。！？]["'’”)\]]?)\s+(?=["'‘“([]?[\p{Lu}\p{N}])/u;

/**
 * Tokens of a text when at most `cap`, else some number above `cap`: the count stops early, so a
 * long section costs what its first `cap` tokens cost (a whole-book section is otherwise counted in full).
 */
function tokensUpTo(text: string, cap: number): number {
  // Short texts: the plain count is faster than the incremental one.
  if (text.length <= cap * 4) return countTokens(text);
  return isWithinTokenLimit(text, cap) || cap + 1;
}

/** Hard split of one over-long sentence: the longest word prefix within budget, found by binary search. */
function splitWords(text: string, budget: number, sep: Unit["sep"]): Unit[] {
  const words = text.split(/\s+/).filter(Boolean);
  const out: Unit[] = [];
  let from = 0;
  while (from < words.length) {
    let lo = from + 1;
    let hi = Math.min(words.length, from + budget);
    let best = lo;
    let bestTokens = countTokens(words.slice(from, lo).join(" "));
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const tokens = countTokens(words.slice(from, mid).join(" "));
      if (tokens <= budget) {
        best = mid;
        bestTokens = tokens;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    out.push({
      text: words.slice(from, best).join(" "),
      tokens: bestTokens,
      sep: out.length === 0 ? sep : " ",
    });
    from = best;
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
