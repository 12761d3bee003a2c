import type { RawDocument } from "../documents.ts";

export interface TextEntry {
  title: string;
  content: string;
}

/** Inline entries (Q&A pairs included) become one text document each, identified by their title. */
export async function* readTextEntries(entries: TextEntry[]): AsyncIterable<RawDocument> {
  const seen = new Map<string, number>();
  for (const entry of entries) {
    const n = (seen.get(entry.title) ?? 0) + 1;
    seen.set(entry.title, n);
    yield {
      externalId: n === 1 ? `entry:${entry.title}` : `entry:${entry.title}#${n}`,
      title: entry.title,
      sourceUrl: null,
      kind: "text",
      body: entry.content,
    };
  }
}
