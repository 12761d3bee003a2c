import type { DocumentRecord } from "../../store/records.ts";
import type { ListedDocument } from "../documents.ts";
import type { EntryMeta, TextEntryStore } from "../text-entry-store.ts";

/** An entry's identity among its source's documents. */
export function entryExternalId(key: string): string {
  return `entry:${key}`;
}

/**
 * The keys `config.entries` gives its entries: the title, and `title#n` for the n-th repeat of a
 * title (what inline entries were identified by before entries had keys of their own).
 */
export function keysOfInlineEntries<E extends { title: string }>(
  entries: readonly E[],
): Array<E & { key: string }> {
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const n = (seen.get(entry.title) ?? 0) + 1;
    seen.set(entry.title, n);
    return { ...entry, key: n === 1 ? entry.title : `${entry.title}#${n}` };
  });
}

/** The document indexes this entry as it is stored now. */
export function isIndexed(doc: DocumentRecord | undefined, entry: EntryMeta): boolean {
  return (
    doc !== undefined &&
    doc.status !== "pending" &&
    doc.contentHash === entry.contentHash &&
    doc.title === entry.title
  );
}

/**
 * How many of a source's stored entries no document indexes as they stand (new, changed, or stored
 * by a bulk load a crash cut short), counting only those changed after `changedAfter` when given.
 */
export function countPendingEntries(
  entries: readonly EntryMeta[],
  documents: readonly DocumentRecord[],
  changedAfter?: string,
): number {
  const byExternalId = new Map(documents.map((d) => [d.externalId, d]));
  let pending = 0;
  for (const entry of entries) {
    if (changedAfter !== undefined && entry.updatedAt <= changedAfter) continue;
    if (!isIndexed(byExternalId.get(entryExternalId(entry.key)), entry)) pending += 1;
  }
  return pending;
}

/**
 * A text source's stored entries as documents: the ones already indexed as they stand are listed
 * unread; the content of the others is read from the entry store (by id when few, in one scan when many).
 */
export async function* listStoredEntries(
  entries: TextEntryStore,
  dataSourceId: string,
  documents: ReadonlyMap<string, DocumentRecord>,
  signal: AbortSignal,
): AsyncIterable<ListedDocument> {
  const changed: string[] = [];
  for (const entry of entries.list(dataSourceId)) {
    const externalId = entryExternalId(entry.key);
    if (isIndexed(documents.get(externalId), entry)) yield { externalId, unchanged: true };
    else changed.push(entry.key);
  }
  for await (const entry of entries.readContents(dataSourceId, changed)) {
    signal.throwIfAborted();
    yield {
      externalId: entryExternalId(entry.key),
      title: entry.title,
      sourceUrl: null,
      kind: "text",
      body: entry.content,
    };
  }
}
