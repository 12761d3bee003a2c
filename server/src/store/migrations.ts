import { moveInlineEntries } from "../sources/text-entry-migration.ts";
import type { Store } from "./store.ts";

/**
 * Forward migrations: entry `v` moves the store from schema version v to v + 1. Append only;
 * never edit a released step. Version 1 is the initial layout (tables are created on open).
 */
export const migrations: ReadonlyArray<(store: Store) => Promise<void>> = [
  async () => {},
  // 2: text entries move out of their source's record into the `text_entries` table.
  moveInlineEntries,
];
