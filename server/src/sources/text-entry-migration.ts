import type { Store } from "../store/store.ts";
import { keysOfInlineEntries } from "./connectors/text.ts";
import { TextEntryStore } from "./text-entry-store.ts";

/**
 * Schema 2: a text source's `config.entries` (kept in its record before) move to the entry store
 * under the keys they were indexed by (`title`, `title#n`), so their documents stay as they are and
 * nothing is re-indexed; the record keeps an empty config. Idempotent: a crash mid-way redoes it.
 */
export async function moveInlineEntries(store: Store): Promise<void> {
  const inline = store.dataSources.filter((s) => s.type === "text" && Array.isArray(s.config.entries));
  if (inline.length === 0) return;
  const entries = await TextEntryStore.open(store.db);
  for (const source of inline) {
    const list = source.config.entries as Array<{ title: string; content: string }>;
    await entries.upsert(source.id, keysOfInlineEntries(list));
    await store.dataSources.put({ ...source, config: {} });
  }
  await entries.idle();
}
