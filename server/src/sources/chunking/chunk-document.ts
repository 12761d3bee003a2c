import { detectLanguage } from "../../text/language.ts";
import { countScripts } from "../../text/scripts.ts";
import { segmentWords } from "../../text/segment.ts";
import { countTokens, splitLongWord, tokensUpTo } from "../../text/tokens.ts";
import type { ChunkDraft, ChunkedDocument, ParsedDocument, ParsedSection } from "../documents.ts";
import { renderTableRows } from "../parsing/text-utils.ts";

/** Upper bound of a chunk of English text, heading context included (o200k tokens; see languageBudgetFactor). */
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
  /** Joiner placed before this unit when it follows another: paragraph, sentence, line or none (a cut word). */
  sep: "\n\n" | " " | "\n" | "";
  /** Only prose is repeated as overlap: a list item, table row or code piece is never duplicated. */
  kind: "prose" | "structure";
  /** An intro line ("To change it:") moves to the next chunk rather than end one without its list. */
  keepWithNext?: boolean;
}

const SENTENCE_END = /(?<=[.!?…。！？]["'’”)\]]?)\s+(?=["'‘“([]?[\p{Lu}\p{N}])/u;
const SENTENCE_ENDS = new RegExp(SENTENCE_END.source, "gu");

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
    out.push({ text: unitText, tokens, sep: out.length === 0 ? sep : glued ? "" : " ", kind: "prose" });
    from = to;
  }
  return out;
}

/** Breaks a block into units no larger than the budget: whole if it fits, else sentences, else words. */
function toUnits(block: string, budget: number, sep: Unit["sep"], splitSentences: boolean): Unit[] {
  const tokens = tokensUpTo(block, budget);
  if (tokens <= budget) return [{ text: block, tokens, sep, kind: "prose" }];
  if (!splitSentences) return splitWords(block, budget, sep);
  const out: Unit[] = [];
  for (const sentence of block.split(SENTENCE_END)) {
    const s = sentence.trim();
    if (!s) continue;
    const first = out.length === 0;
    const t = countTokens(s);
    if (t <= budget) out.push({ text: s, tokens: t, sep: first ? sep : " ", kind: "prose" });
    else for (const w of splitWords(s, budget, first ? sep : " ")) out.push(w);
  }
  return out;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]+\S/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** A paragraph, or a structure kept whole when it fits: a list, a pipe table or a fenced code block. */
interface Block {
  kind: "prose" | "list" | "table" | "code";
  text: string;
}

/** Blank-line separated blocks; a code fence is one block whatever it holds, a loose list one list. */
function blocksOf(text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  let current: string[] = [];
  const close = (): void => {
    if (current.length === 0) return;
    const [first = "", second = ""] = current;
    const kind =
      first.includes("|") && TABLE_DIVIDER.test(second) && second.includes("-")
        ? "table"
        : current.some((l) => LIST_ITEM.test(l))
          ? "list"
          : "prose";
    const prev = blocks.at(-1);
    // Items separated by blank lines (a loose list, HTML list items) are still one list.
    if (kind === "list" && prev?.kind === "list" && LIST_ITEM.test(first))
      prev.text += `\n\n${current.join("\n")}`;
    else blocks.push({ kind, text: current.join("\n") });
    current = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const fence = FENCE.exec(line);
    if (fence) {
      close();
      const marker = fence[1] ?? "```";
      let j = i + 1;
      while (j < lines.length && !(lines[j] ?? "").trim().startsWith(marker)) j++;
      blocks.push({ kind: "code", text: lines.slice(i, j + 1).join("\n") });
      i = j;
    } else if (line.trim()) current.push(line);
    else close();
  }
  close();
  return blocks;
}

function indentOf(line: string): number {
  return /^ */.exec(line)?.[0].length ?? 0;
}

/**
 * The intro of a structure too big to share a chunk with it: its last sentence ("Pricing is as
 * follows:") is kept with the structure, the rest of the paragraph may end the previous chunk.
 */
function introUnits(text: string, budget: number, sep: Unit["sep"]): Unit[] {
  let cut: { start: number; end: number; newline: boolean } | null = null;
  for (const m of text.matchAll(SENTENCE_ENDS))
    cut = { start: m.index, end: m.index + m[0].length, newline: m[0].includes("\n") };
  const units = cut
    ? [
        ...toUnits(text.slice(0, cut.start), budget, sep, true),
        ...toUnits(text.slice(cut.end), budget, cut.newline ? "\n" : " ", true),
      ]
    : toUnits(text, budget, sep, true);
  const last = units.at(-1);
  if (last) last.keepWithNext = true;
  return units;
}

/**
 * A list too big for one chunk: one unit per top-level item with its sub-items and continuation
 * lines, or per line of an item that alone is too big; intro lines before the first item go first.
 */
function listUnits(text: string, budget: number, sep: Unit["sep"]): Unit[] {
  const lines = text.split("\n").filter((l) => l.trim());
  // The indentation of top-level items (a loop: a list may have more items than a call has arguments).
  let top = Number.POSITIVE_INFINITY;
  for (const line of lines) if (LIST_ITEM.test(line)) top = Math.min(top, indentOf(line));
  const groups: string[][] = [];
  for (const line of lines) {
    const item = LIST_ITEM.test(line) && indentOf(line) <= top;
    if (item || groups.length === 0) groups.push([line]);
    else groups.at(-1)?.push(line);
  }
  const units: Unit[] = [];
  for (const group of groups) {
    const first = group[0] ?? "";
    const groupSep = units.length === 0 ? sep : "\n";
    if (!LIST_ITEM.test(first)) {
      const intro = group.join("\n");
      units.push(
        ...(/:\s*$/.test(intro)
          ? introUnits(intro, budget, groupSep)
          : toUnits(intro, budget, groupSep, true)),
      );
      continue;
    }
    const whole = group.join("\n");
    const tokens = tokensUpTo(whole, budget);
    if (tokens <= budget) {
      units.push({ text: whole, tokens, sep: groupSep, kind: "structure" });
      continue;
    }
    // An item too big with its sub-items: split at each of its lines that starts an item.
    const parts: string[][] = [];
    for (const line of group) {
      if (LIST_ITEM.test(line) || parts.length === 0) parts.push([line]);
      else parts.at(-1)?.push(line);
    }
    for (const part of parts) {
      const partUnits = toUnits(part.join("\n"), budget, units.length === 0 ? sep : "\n", true);
      for (const u of partUnits) u.kind = "structure";
      units.push(...partUnits);
    }
  }
  return units;
}

/** A pipe table too big for one chunk: one "header: value; …" line per row, so every row stands alone. */
function tableUnits(text: string, budget: number, sep: Unit["sep"]): Unit[] {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\|/, "")
      .replace(/(?<!\\)\|$/, "")
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, "|"));
  const [header = "", , ...body] = text.split("\n");
  return renderTableRows([cells(header), ...body.map(cells)])
    .split("\n")
    .filter((r) => r.trim())
    .flatMap((row, i) => toUnits(row, budget, i === 0 ? sep : "\n", false))
    .map((u) => ({ ...u, kind: "structure" as const }));
}

/** A code block too big for one chunk: runs of whole lines, each run fenced again so it renders as code. */
function codeUnits(text: string, budget: number, sep: Unit["sep"]): Unit[] {
  const lines = text.split("\n");
  const open = lines[0] ?? "```";
  const marker = FENCE.exec(open)?.[1] ?? "```";
  const closed = lines.length > 1 && (lines.at(-1) ?? "").trim().startsWith(marker);
  const body = lines.slice(1, closed ? -1 : undefined);
  const room = Math.max(4, budget - countTokens(`${open}\n\n${marker}`));
  const out: Unit[] = [];
  let run: string[] = [];
  let runTokens = 0;
  const push = (): void => {
    if (run.length === 0) return;
    const piece = `${open}\n${run.join("\n")}\n${marker}`;
    out.push({
      text: piece,
      tokens: countTokens(piece),
      sep: out.length === 0 ? sep : "\n\n",
      kind: "structure",
    });
    run = [];
    runTokens = 0;
  };
  for (const line of body) {
    const tokens = countTokens(line) + 1;
    if (tokens > room) {
      // One line longer than a chunk: cut it into words.
      push();
      for (const w of splitWords(line, room, "\n")) {
        run = [w.text];
        push();
      }
      continue;
    }
    if (runTokens + tokens > room) push();
    run.push(line);
    runTokens += tokens;
  }
  push();
  return out;
}

function sectionUnits(section: ParsedSection, budget: number): Unit[] {
  if (section.isTable) {
    // Rows are self-contained ("column: value; …") and are never cut unless one row alone is too big.
    return section.text
      .split("\n")
      .filter((r) => r.trim())
      .flatMap((row) => toUnits(row, budget, "\n", false))
      .map((u) => ({ ...u, kind: "structure" as const }));
  }
  const blocks = blocksOf(section.text);
  const units: Unit[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    if (!block) continue;
    const next = blocks[i + 1];
    const tokens = tokensUpTo(block.text, budget);
    // "To do X:" followed by its list, table or code: one unit when both fit.
    if (block.kind === "prose" && next && next.kind !== "prose" && /:\s*$/.test(block.text)) {
      const joined = `${block.text}\n\n${next.text}`;
      const both = tokensUpTo(joined, budget);
      if (both <= budget) {
        units.push({ text: joined, tokens: both, sep: "\n\n", kind: "structure" });
        i++;
        continue;
      }
      units.push(...introUnits(block.text, budget, "\n\n"));
      continue;
    }
    if (tokens <= budget) {
      units.push({
        text: block.text,
        tokens,
        sep: "\n\n",
        kind: block.kind === "prose" ? "prose" : "structure",
      });
      continue;
    }
    switch (block.kind) {
      case "prose":
        units.push(...toUnits(block.text, budget, "\n\n", true));
        break;
      case "list":
        units.push(...listUnits(block.text, budget, "\n\n"));
        break;
      case "table":
        units.push(...tableUnits(block.text, budget, "\n\n"));
        break;
      case "code":
        units.push(...codeUnits(block.text, budget, "\n\n"));
        break;
      default:
        block.kind satisfies never;
    }
  }
  return units;
}

/** A chunk that starts inside a nested list starts at the margin; its lines keep their relative nesting. */
function dedent(text: string): string {
  const indent = indentOf(text);
  if (indent === 0) return text;
  const margin = new RegExp(`^ {0,${indent}}`);
  return text
    .split("\n")
    .map((l) => l.replace(margin, ""))
    .join("\n");
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
    if (u?.kind !== "prose") break;
    if (tokens + u.tokens > overlap) {
      if (tail.length === 0) {
        const words = u.text.split(/\s+/);
        const kept = words.slice(Math.max(0, words.length - Math.floor(overlap * 0.75)));
        // The tail starts mid-sentence: "…" says so where an answer quotes the next chunk's start.
        const piece = kept.length < words.length ? `…${kept.join(" ")}` : kept.join(" ");
        if (kept.length > 0)
          tail.unshift({ text: piece, tokens: countTokens(piece), sep: u.sep, kind: "prose" });
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
  /** Exact up to the chunk size, above it only "too big" (see tokensUpTo); an estimate once merged. */
  tokens: number;
  /** One section's text as counted: `tokens` is its exact count when within the chunk size. */
  counted: boolean;
}

function commonPrefix(a: string[], b: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++) out.push(a[i] ?? "");
  return out;
}

/**
 * Kinds whose headings are the author's own sections (Markdown, HTML, DOCX files): every heading
 * starts a chunk, however short its text, so a citation opens at its section. Other kinds (text
 * entries, web pages, Notion, PDF) merge small neighbours as below.
 */
const SECTIONED_KINDS: ReadonlySet<ParsedDocument["kind"]> = new Set(["markdown", "html", "docx"]);

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((h, i) => h === b[i]);
}

/**
 * Merges runs of small sections that share a page and a top-level heading, keeping their
 * sub-headings inline; with `atHeadings`, only sections under the very same heading path merge.
 */
function groupSections(
  sections: ParsedSection[],
  maxTokens: number,
  minTokens: number,
  atHeadings = false,
): Group[] {
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
      (!atHeadings || samePath(prev.headingPath, section.headingPath)) &&
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
      prev.counted = false;
      continue;
    }
    groups.push({
      headingPath: [...section.headingPath],
      page: section.page,
      isTable: section.isTable ?? false,
      text: section.text,
      tokens,
      counted: true,
    });
  }
  return groups;
}

/** o200k tokens per word of English prose (XQuAD's English paragraphs: median 1.08, p90 1.22). */
const ENGLISH_TOKENS_PER_WORD = 1.1;
/** Characters of a document read to measure its tokens per word. */
const SAMPLE_CHARS = 4000;
/** Fewer letter words than this (or fewer than half the words) and the text is not measured. */
const MIN_MEASURED_WORDS = 20;

/**
 * How much larger than the English budget a chunk of this document may be. The tokenizer is shaped
 * by English: the same paragraph costs 1.5× the tokens in German or Hindi and 1.7× in Arabic or
 * Russian, so a budget in tokens would cut those documents into smaller pieces than English ones,
 * and a question's answer would more often sit in the neighbouring chunk. Text in another language
 * gets a budget scaled by its measured tokens per word (capped at 2×), so a chunk holds about as
 * many words in every language. English text keeps the budget as it is.
 */
export function languageBudgetFactor(text: string): number {
  const sample = text.slice(0, SAMPLE_CHARS);
  // Measured first: text that costs no more tokens a word than English keeps the budget whatever its
  // language, so the n-gram detector (~1.7 ms a paragraph) runs only when its answer matters.
  const measured = measuredBudgetFactor(sample);
  if (measured === 1) return 1;
  const language = detectLanguage(sample);
  if (language === "en") return 1;
  // A script the detector names no language for (Greek, Thai, Hebrew…) is not English either.
  if (language === null && !writtenOutsideLatin(sample)) return 1;
  return measured;
}

/** Whether most of a text's letters are in scripts other than Latin. */
function writtenOutsideLatin(sample: string): boolean {
  let latin = 0;
  let other = 0;
  for (const [script, count] of countScripts(sample)) {
    if (script === "latin") latin += count;
    else other += count;
  }
  return other > latin;
}

/** The budget factor of a text by its tokens per word alone, whatever its language. */
function measuredBudgetFactor(sample: string): number {
  // Only letter words are measured: codes and numbers cost many tokens in any language.
  const wordLike = segmentWords(sample);
  const words = wordLike.filter((word) => /^[\p{L}\p{M}]+$/u.test(word));
  if (words.length < MIN_MEASURED_WORDS || words.length < wordLike.length / 2) return 1;
  const perWord = countTokens(words.join(" ")) / words.length;
  return Math.min(2, Math.max(1, perWord / ENGLISH_TOKENS_PER_WORD));
}

/** The first SAMPLE_CHARS characters of a document's sections. */
function leadingText(sections: ParsedSection[]): string {
  let text = "";
  for (const section of sections) {
    if (text.length >= SAMPLE_CHARS) break;
    text += `${section.text}\n\n`;
  }
  return text.slice(0, SAMPLE_CHARS);
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
  const english = budgetsAt(1, opts);
  const atHeadings = SECTIONED_KINDS.has(doc.kind);
  const groups = groupSections(doc.sections, english.maxTokens, english.minTokens, atHeadings);
  // One section that fits one chunk at the English budget is that same chunk at any larger budget
  // (one section is never merged, and a budget grows with its scale), so its language cannot
  // change the chunks and is not detected: most text entries are such paragraphs.
  const [group] = groups;
  if (doc.sections.length === 1 && group && group.tokens <= groupBudget(group, english.maxTokens))
    return chunkGroups(groups, english, opts);
  const scale = languageBudgetFactor(leadingText(doc.sections));
  if (scale === 1) return chunkGroups(groups, english, opts);
  const scaled = budgetsAt(scale, opts);
  return chunkGroups(
    groupSections(doc.sections, scaled.maxTokens, scaled.minTokens, atHeadings),
    scaled,
    opts,
  );
}

interface Budgets {
  scale: number;
  maxTokens: number;
  minTokens: number;
}

function budgetsAt(scale: number, opts: ChunkOptions): Budgets {
  return {
    scale,
    maxTokens: Math.max(16, Math.round((opts.maxTokens ?? DEFAULT_MAX_TOKENS) * scale)),
    minTokens: Math.round((opts.minTokens ?? DEFAULT_MIN_TOKENS) * scale),
  };
}

/** A group's budget for its own text: the chunk size less its heading context line. */
function groupBudget(group: Group, maxTokens: number): number {
  const context = group.headingPath.join(HEADING_SEPARATOR);
  const prefixTokens = context ? countTokens(context) + 1 : 0;
  // A pathological heading path may not eat the whole budget.
  return Math.max(8, maxTokens - Math.min(prefixTokens, Math.floor(maxTokens / 2)));
}

function chunkGroups(groups: Group[], { scale, maxTokens }: Budgets, opts: ChunkOptions): ChunkDraft[] {
  const chunks: ChunkDraft[] = [];
  for (const group of groups) {
    const context = group.headingPath.join(HEADING_SEPARATOR);
    const budget = groupBudget(group, maxTokens);
    const overlap = group.isTable
      ? 0
      : Math.min(Math.round((opts.overlapTokens ?? DEFAULT_OVERLAP_TOKENS) * scale), Math.floor(budget / 2));
    const emit = (units: Unit[]): void => {
      const body = dedent(joinUnits(units)).trim();
      if (!body) return;
      const text = context ? `${context}\n\n${body}` : body;
      // A section kept whole as it was counted needs no second count (the one BPE pass a text entry costs).
      const known = group.counted && text === group.text && group.tokens <= maxTokens;
      chunks.push({
        ordinal: chunks.length,
        text,
        body,
        headingPath: group.headingPath,
        page: group.page,
        tokenCount: known ? group.tokens : countTokens(text),
      });
    };

    const section: ParsedSection = {
      headingPath: group.headingPath,
      text: group.text,
      page: group.page,
      isTable: group.isTable,
    };
    if (group.tokens <= budget) {
      emit([{ text: group.text, tokens: group.tokens, sep: "\n\n", kind: "prose" }]);
      continue;
    }
    const units = sectionUnits(section, budget);
    let current: Unit[] = [];
    let tokens = 0;
    let fresh = 0; // units in `current` that are not overlap carried from the previous chunk
    for (const unit of units) {
      const cost = unit.tokens + (current.length > 0 ? 1 : 0);
      if (current.length > 0 && tokens + cost > budget && fresh > 0) {
        // An intro that would end this chunk opens the next one, with the list it introduces.
        let keep = current.length;
        while (keep > current.length - fresh + 1 && current[keep - 1]?.keepWithNext) keep--;
        let held = current.slice(keep);
        // …unless the two do not fit in one chunk either: then it stays where it is.
        if (held.reduce((sum, u) => sum + u.tokens + 1, 0) + unit.tokens > budget) held = [];
        emit(current.slice(0, current.length - held.length));
        current = held.length > 0 ? held : overlapTail(current, overlap);
        tokens = current.reduce((sum, u) => sum + u.tokens + 1, 0);
        fresh = held.length;
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

/** A parsed document with its chunks as a sync indexes them (see ChunkedDocument). */
export function chunkedDocument(doc: ParsedDocument, opts: ChunkOptions = {}): ChunkedDocument {
  return {
    title: doc.title,
    kind: doc.kind,
    pageCount: doc.pageCount,
    chunks: chunkDocument(doc, opts).map(({ body: _body, ...chunk }) => chunk),
  };
}
