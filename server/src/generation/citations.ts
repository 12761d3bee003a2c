import type { Citation } from "@lore/shared";
import { HEADING_SEPARATOR } from "../sources/chunking/chunk-document.ts";
import { tokenizeTerms } from "../text/normalize.ts";
import { splitSentences } from "../text/sentences.ts";
import { answerUnits, chunkBody } from "./answer-units.ts";
import type { RetrievedChunk } from "./types.ts";

/*
 * Numbering: the model cites chunks by their prompt number [n]; `sources` lists the cited chunks in order of
 * first citation, ranked from 1. So the answer is rewritten to cite ranks ([3] … [1] becomes [1] … [2]) and
 * every [n] a reader sees matches the `rank` of a listed source. The rewrite is deterministic and works on a
 * stream too (createCitationRenumberer), so streamed tokens and the stored answer carry the same numbers.
 */

// [1], [2, 3], [1-3]; anything else in brackets is not a citation.
const MARKER = /\[(\s*\d+(?:\s*(?:,|-|–)\s*\d+)*\s*)\]/g;

function markerNumbers(inner: string): number[] {
  const out: number[] = [];
  for (const part of inner.split(",")) {
    const range = /^\s*(\d+)\s*[-–]\s*(\d+)\s*$/.exec(part);
    if (range) {
      const from = Number(range[1]);
      const to = Number(range[2]);
      if (to >= from && to - from < 50) for (let n = from; n <= to; n++) out.push(n);
      continue;
    }
    const n = Number(part.trim());
    if (Number.isInteger(n)) out.push(n);
  }
  return out;
}

/** Chunk numbers an answer cites, in order of first citation, unique, limited to 1..sourceCount. */
export function citedNumbers(answer: string, sourceCount: number): number[] {
  const seen: number[] = [];
  for (const match of answer.matchAll(MARKER)) {
    for (const n of markerNumbers(match[1] ?? "")) {
      if (n >= 1 && n <= sourceCount && !seen.includes(n)) seen.push(n);
    }
  }
  return seen;
}

/** Rewrites one marker's inner text to ranks; null keeps the marker as written (it cites nothing in range). */
function rewriteMarker(inner: string, sourceCount: number, order: number[]): string | null {
  const numbers = markerNumbers(inner).filter((n) => n >= 1 && n <= sourceCount);
  if (numbers.length === 0) return null;
  const ranks: number[] = [];
  for (const n of numbers) {
    if (!order.includes(n)) order.push(n);
    const rank = order.indexOf(n) + 1;
    if (!ranks.includes(rank)) ranks.push(rank);
  }
  return `[${ranks.join(", ")}]`;
}

/** Rewrites [n] (prompt numbers) to ranks in order of first citation; `order[rank - 1]` is the cited chunk number. */
export function renumberCitations(answer: string, sourceCount: number): { answer: string; order: number[] } {
  const order: number[] = [];
  const rewritten = answer.replace(
    MARKER,
    (whole, inner: string) => rewriteMarker(inner, sourceCount, order) ?? whole,
  );
  return { answer: rewritten, order };
}

/** The streaming twin of renumberCitations: feed tokens, get text with rank numbers; a marker split across tokens is held back until complete. */
export interface CitationRenumberer {
  push(token: string): string;
  /** Whatever is still held back, at the end of the stream. */
  flush(): string;
  /** Cited chunk numbers in order of first citation so far. */
  readonly order: readonly number[];
}

export function createCitationRenumberer(sourceCount: number): CitationRenumberer {
  const order: number[] = [];
  let pending = "";
  const mayBecomeMarker = (text: string) => /^\[[\d\s,\-–]*$/.test(text) && text.length <= 40;
  return {
    order,
    push(token) {
      let text = pending + token;
      pending = "";
      let out = "";
      while (text.length > 0) {
        const open = text.indexOf("[");
        if (open === -1) {
          out += text;
          break;
        }
        out += text.slice(0, open);
        text = text.slice(open);
        const close = text.indexOf("]");
        if (close === -1) {
          if (mayBecomeMarker(text)) pending = text;
          else out += text;
          break;
        }
        const candidate = text.slice(0, close + 1);
        const whole = new RegExp(`^${MARKER.source}$`).exec(candidate);
        if (whole) out += rewriteMarker(whole[1] ?? "", sourceCount, order) ?? candidate;
        else {
          // Not a citation: emit the bracket and rescan after it (a marker may start inside).
          out += "[";
          text = text.slice(1);
          continue;
        }
        text = text.slice(close + 1);
      }
      return out;
    },
    flush() {
      const rest = pending;
      pending = "";
      return rest;
    },
  };
}

export interface BuildSourcesOptions {
  /** The answer is the fallback message: nothing is cited, no sources are listed. */
  isFallback: boolean;
  /** Question used to pick the snippet of uncited top chunks. */
  question?: string;
  /** How many top retrieved chunks to list when the answer cites none. */
  uncitedCount?: number;
}

const SNIPPET_CHARS = 500;

/**
 * The `sources` of an answer: the cited chunks ranked by first citation (the answer rewritten to match), or the
 * top retrieved chunks when the answer cites none, or nothing for the fallback message.
 */
export function buildSources(
  answer: string,
  chunks: RetrievedChunk[],
  options: BuildSourcesOptions,
): { answer: string; sources: Citation[] } {
  if (options.isFallback) return { answer, sources: [] };
  const { answer: rewritten, order } = renumberCitations(answer, chunks.length);
  if (order.length === 0) {
    const top = chunks.slice(0, options.uncitedCount ?? 3);
    const focus = options.question ?? answer;
    return { answer, sources: top.map((chunk, i) => toCitation(chunk, i + 1, focus)) };
  }
  const sources = order.flatMap((n, i) => {
    const chunk = chunks[n - 1];
    if (!chunk) return [];
    const citation = toCitation(chunk, i + 1, passagesCiting(rewritten, i + 1) || answer);
    return [atQuotedSection(citation, chunk, rewritten)];
  });
  return { answer: rewritten, sources };
}

/**
 * A citation of a chunk that holds several small sections (the chunker keeps their headings inline)
 * points at the section the answer quotes: that heading ends its heading path and its deep link. An
 * answer that quotes none of the chunk's sentences (a chat model's own words) keeps the chunk's.
 */
function atQuotedSection(citation: Citation, chunk: RetrievedChunk, answer: string): Citation {
  const quoted = answerUnits(chunkBody(chunk.text, chunk.headingPath)).find(
    (u) => u.text.length >= MIN_QUOTED_CHARS && answer.includes(u.text),
  );
  if (!quoted?.heading) return citation;
  const headingPath = [...chunk.headingPath, ...quoted.heading.split(HEADING_SEPARATOR)];
  return {
    ...citation,
    headingPath,
    sourceUrl: sectionLink(chunk.sourceUrl ?? "", headingPath, chunk.title),
  };
}

/** Shorter sentences ("Yes.") may be quoted by chance. */
const MIN_QUOTED_CHARS = 20;

function toCitation(chunk: RetrievedChunk, rank: number, focus: string): Citation {
  return chunkCitation(chunk, rank, snippetAround(chunk.text, focus), Math.min(1, Math.max(0, chunk.score)));
}

/** A retrieved chunk as a source ranked `rank`, showing `content`: a snippet in answers, the whole chunk in search results. */
export function chunkCitation(
  chunk: RetrievedChunk,
  rank: number,
  content: string,
  score: number = chunk.score,
): Citation {
  return {
    rank,
    documentId: chunk.documentId,
    chunkId: chunk.chunkId,
    title: chunk.title,
    dataSourceName: chunk.dataSourceName,
    dataSourceType: chunk.kind,
    sourceUrl: sectionLink(chunk.sourceUrl ?? "", chunk.headingPath, chunk.title),
    content,
    score,
    displayMode: "expandable",
    dataSourceId: chunk.dataSourceId,
    page: chunk.page,
    headingPath: chunk.headingPath,
  };
}

/**
 * A deep link to the chunk's section (issue #50): the page's URL with a text fragment naming the
 * section's heading (`#:~:text=Refunds`), which browsers scroll to and highlight whatever ids the
 * page's headings carry. A URL that already points somewhere in its page, or a chunk with no heading
 * but the page's own title (its top), keeps its URL as it is.
 */
export function sectionLink(url: string, headingPath: readonly string[], title = ""): string {
  const heading = headingPath.at(-1)?.trim();
  if (!url || !heading || url.includes("#") || !/^https?:\/\//i.test(url)) return url;
  if (headingPath.length === 1 && heading.toLowerCase() === title.trim().toLowerCase()) return url;
  // The fragment directive's own separators (`-`, `,`, `&`) are escaped in the text.
  const text = encodeURIComponent(heading).replace(/-/g, "%2D");
  return `${url}#:~:text=${text}`;
}

/** The answer sentences that carry a marker citing `rank`, to find the matching part of the chunk. */
function passagesCiting(answer: string, rank: number): string {
  return splitSentences(answer)
    .filter((s) => [...s.text.matchAll(MARKER)].some((m) => markerNumbers(m[1] ?? "").includes(rank)))
    .map((s) => s.text)
    .join(" ");
}

/** How much of a section's opening an uncertain answer shows for it. */
const FIRST_LINES_CHARS = 220;

/**
 * A section's first lines, without its heading: whole sentences while they fit, the first one cut
 * with "…" when it alone is longer (issue #50: an uncertain answer offers each section that may help
 * with its first lines).
 */
export function firstLines(
  chunk: Pick<RetrievedChunk, "text" | "headingPath">,
  maxChars = FIRST_LINES_CHARS,
): string {
  const body = chunkBody(chunk.text, chunk.headingPath).trim();
  if (body.length <= maxChars) return body;
  let end = 0;
  for (const sentence of splitSentences(body)) {
    if (sentence.end > maxChars) break;
    end = sentence.end;
  }
  return end > 0 ? body.slice(0, end).trim() : `${body.slice(0, maxChars - 1).trimEnd()}…`;
}

/** At most ~500 characters of the chunk, centred on the sentence that best matches `focus`, cut at sentence or word edges. */
export function snippetAround(text: string, focus: string, maxChars = SNIPPET_CHARS): string {
  const clean = text.trim();
  if (clean.length <= maxChars) return clean;
  const sentences = splitSentences(clean);
  const focusTerms = new Set(tokenizeTerms(focus));
  let bestIndex = 0;
  let bestScore = -1;
  sentences.forEach((s, i) => {
    const terms = new Set(tokenizeTerms(s.text));
    let score = 0;
    for (const t of terms) if (focusTerms.has(t)) score++;
    if (score > bestScore) {
      bestScore = score;
      bestIndex = i;
    }
  });
  const best = sentences[bestIndex];
  if (best === undefined) return `${clean.slice(0, maxChars - 1)}…`;
  // Grow around the best sentence while whole neighbours fit, alternating after and before.
  let start = best.start;
  let end = best.end;
  let before = bestIndex - 1;
  let after = bestIndex + 1;
  for (let grew = true; grew; ) {
    grew = false;
    const next = sentences[after];
    if (next && next.end - start <= maxChars) {
      end = next.end;
      after++;
      grew = true;
    }
    const previous = sentences[before];
    if (previous && end - previous.start <= maxChars) {
      start = previous.start;
      before--;
      grew = true;
    }
  }
  let snippet = clean.slice(start, end);
  if (snippet.length > maxChars) {
    const cut = snippet.lastIndexOf(" ", maxChars - 1);
    snippet = snippet.slice(0, cut > maxChars / 2 ? cut : maxChars - 1);
    return `${start > 0 ? "…" : ""}${snippet}…`;
  }
  return `${start > 0 ? "… " : ""}${snippet}${end < clean.length ? " …" : ""}`;
}
