import { HEADING_SEPARATOR } from "../sources/chunking/chunk-document.ts";
import { splitSentences } from "../text/sentences.ts";

/**
 * What the extractive answerer can quote: a sentence, or a whole block that only makes sense whole
 * (a list or numbered procedure, a table, a code block), with its line breaks.
 */
export interface AnswerUnit {
  text: string;
  kind: "sentence" | "list" | "table" | "code";
  /** Index of the block (paragraph, list, table, code) the unit comes from, in chunk order. */
  block: number;
  /** The unit ends with ":" and the next block is a list, table or code: it introduces it. */
  introduces: boolean;
  /** The inline heading above the unit's block ("" when none): its words name the topic, it is never quoted. */
  heading: string;
}

const LIST_ITEM = /^\s*(?:[-*•+]|\d{1,3}[.)])\s+\S/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const FENCE = /^\s*(?:```|~~~)/;
const HEADING = /^\s*#{1,6}\s/;

/** The chunk's body without its heading context line (the chunker starts every chunk with it). */
export function chunkBody(text: string, headingPath: readonly string[]): string {
  if (headingPath.length === 0) return text;
  const context = headingPath.join(HEADING_SEPARATOR);
  return text.startsWith(`${context}\n\n`) ? text.slice(context.length + 2) : text;
}

interface Block {
  kind: AnswerUnit["kind"] | "prose";
  lines: string[];
  heading: string;
}

// A line that ends like a sentence (or leads into one) is prose, not a heading.
const SENTENCE_END = /[.!?…:;,)"'”’。！？]\s*$/;
const MAX_HEADING_WORDS = 12;

/**
 * A short line without closing punctuation, with text right after it, is a heading the chunker kept
 * inline ("Installing the Acme Widget Pro" above "Unpack the box."): quoted, it would be glued onto the
 * first sentence.
 */
function isHeadingLine(line: string, next: string | undefined): boolean {
  const text = line.trim();
  if (next === undefined || next.trim() === "" || SENTENCE_END.test(text)) return false;
  if (LIST_ITEM.test(line) || TABLE_ROW.test(line)) return false;
  // A wrapped line of prose goes on in lowercase ("…three to five business" / "days within…").
  if (!/^\s*[\p{Lu}\p{N}\-*•+|`~]/u.test(next)) return false;
  const words = text.split(/\s+/).length;
  return words <= MAX_HEADING_WORDS && /^[\p{Lu}\p{N}]/u.test(text);
}

function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  let current = null as Block | null;
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (FENCE.test(line)) {
      const code: string[] = [line];
      let j = i + 1;
      while (j < lines.length && !FENCE.test(lines[j] ?? "")) code.push(lines[j++] ?? "");
      if (j < lines.length) code.push(lines[j] ?? "");
      blocks.push({ kind: "code", lines: code, heading });
      current = null;
      i = j;
      continue;
    }
    if (line.trim() === "") {
      // A blank line between two items of one list does not end the list.
      const next = lines.slice(i + 1).find((l) => l.trim() !== "");
      if (current?.kind !== "list" || next === undefined || !LIST_ITEM.test(next)) current = null;
      continue;
    }
    if (HEADING.test(line)) {
      current = null;
      heading = line.replace(/^\s*#+\s*/, "").trim();
      continue;
    }
    const following = lines.slice(i + 1).find((l) => l.trim() !== "");
    if (current === null && isHeadingLine(line, following)) {
      heading = line.trim();
      continue;
    }
    const kind: Block["kind"] = TABLE_ROW.test(line) ? "table" : LIST_ITEM.test(line) ? "list" : "prose";
    // An indented continuation line stays in its list item.
    if (current?.kind === "list" && kind === "prose" && /^\s+\S/.test(line)) {
      current.lines.push(line);
      continue;
    }
    if (current?.kind !== kind) {
      current = { kind, lines: [], heading };
      blocks.push(current);
    }
    current.lines.push(line);
  }
  return blocks;
}

/** Splits a chunk's body into quotable units: prose into sentences, every list, table and code block whole. */
export function answerUnits(body: string): AnswerUnit[] {
  const units: AnswerUnit[] = [];
  const blocks = blocksOf(body);
  blocks.forEach((block, index) => {
    if (block.kind !== "prose") {
      units.push({
        text: block.lines.join("\n").trim(),
        kind: block.kind,
        block: index,
        introduces: false,
        heading: block.heading,
      });
      return;
    }
    const next = blocks[index + 1];
    const sentences = splitSentences(block.lines.join("\n"));
    sentences.forEach((s, i) => {
      const last = i === sentences.length - 1;
      units.push({
        text: s.text,
        kind: "sentence",
        block: index,
        introduces: last && next !== undefined && next.kind !== "prose" && /:\s*$/.test(s.text),
        heading: block.heading,
      });
    });
  });
  return units;
}
