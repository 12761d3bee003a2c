import { HEADING_SEPARATOR } from "../sources/chunking/chunk-document.ts";

/** Chunks per page of a document resource: 40 chunks of at most 256 tokens, a page a model takes in at once. */
export const CHUNKS_PER_PAGE = 40;

/** What a page shows of a chunk (a StoredChunk has these and more). */
export interface DocumentChunk {
  ordinal: number;
  text: string;
  page: number | null;
  headingPath: string[];
}

/** A chunk's text without the heading-path line chunking puts first (the page shows headings itself). */
function chunkBody(chunk: DocumentChunk): string {
  const context = chunk.headingPath.join(HEADING_SEPARATOR);
  return context && chunk.text.startsWith(`${context}\n\n`)
    ? chunk.text.slice(context.length + 2)
    : chunk.text;
}

/** `next` less what it repeats of `previous`'s end (chunks overlap by a sentence or two). */
function withoutOverlap(previous: string, next: string): string {
  // The longest suffix of `previous` that is a prefix of `next`: the prefix function of next + NUL + previous.
  const joined = `${next}\u0000${previous}`;
  const border = new Array<number>(joined.length).fill(0);
  for (let i = 1; i < joined.length; i++) {
    let k = border[i - 1] ?? 0;
    while (k > 0 && joined[i] !== joined[k]) k = border[k - 1] ?? 0;
    if (joined[i] === joined[k]) k++;
    border[i] = k;
  }
  const overlap = border[joined.length - 1] ?? 0;
  // Carried units start at a word boundary; a short accidental match ("a") is not an overlap.
  const startsUnit = overlap === previous.length || /\s/.test(previous[previous.length - overlap - 1] ?? "");
  return overlap >= 8 && startsUnit ? next.slice(overlap).trimStart() : next;
}

/**
 * One page of a document as Markdown: each heading path said once, chunk overlaps removed.
 * `before` is the last chunk of the previous page, whose overlap this page's first chunk repeats.
 */
export function renderPage(chunks: readonly DocumentChunk[], before?: DocumentChunk): string {
  let heading = before ? before.headingPath.join(" › ") : "";
  let previous = before ? chunkBody(before) : "";
  const parts: string[] = [];
  for (const chunk of chunks) {
    const path = chunk.headingPath.join(" › ");
    const body = chunkBody(chunk);
    if (path !== heading) {
      if (path) parts.push(`## ${path}`);
      previous = "";
    }
    heading = path;
    const fresh = previous ? withoutOverlap(previous, body) : body;
    if (fresh) parts.push(fresh);
    previous = body;
  }
  return parts.join("\n\n");
}
