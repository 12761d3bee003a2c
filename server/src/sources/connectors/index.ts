import type { DataSourceRecord, DocumentRecord } from "../../store/records.ts";
import type { Store } from "../../store/store.ts";
import type { ListedDocument, RawDocument } from "../documents.ts";
import type { FileStorage } from "../file-storage.ts";
import type { TextEntryStore } from "../text-entry-store.ts";
import { listStoredEntries } from "./text.ts";

export interface ConnectorContext {
  store: Store;
  files: FileStorage;
  entries: TextEntryStore;
  /** Connector config with secrets decrypted. */
  config: (source: DataSourceRecord) => Record<string, unknown>;
  web: (config: Record<string, unknown>, signal: AbortSignal) => AsyncIterable<RawDocument>;
  notion: (config: Record<string, unknown>, signal: AbortSignal) => AsyncIterable<RawDocument>;
}

/** The documents a source holds now, whatever its type. */
export function createDocumentLister(ctx: ConnectorContext) {
  return async function* listDocuments(
    source: DataSourceRecord,
    signal: AbortSignal,
  ): AsyncIterable<ListedDocument> {
    const config = ctx.config(source);
    switch (source.type) {
      case "text":
        yield* listStoredEntries(ctx.entries, source.id, documentsByExternalId(ctx.store, source.id), signal);
        return;
      case "file":
        for (const doc of ctx.store.documents.filter(
          (d) => d.dataSourceId === source.id && d.storedFile !== null,
        )) {
          signal.throwIfAborted();
          const body = await ctx.files.read(source.id, doc.storedFile ?? "");
          // No title: the parser takes the document's own, else the file name.
          yield {
            externalId: doc.externalId,
            title: "",
            fileName: doc.title,
            sourceUrl: null,
            kind: null,
            body,
          };
        }
        return;
      case "web":
        yield* ctx.web(config, signal);
        return;
      case "notion":
        yield* ctx.notion(config, signal);
        return;
      default:
        return source.type satisfies never;
    }
  };
}

function documentsByExternalId(store: Store, dataSourceId: string): Map<string, DocumentRecord> {
  return new Map(
    store.documents.filter((d) => d.dataSourceId === dataSourceId).map((d) => [d.externalId, d]),
  );
}
