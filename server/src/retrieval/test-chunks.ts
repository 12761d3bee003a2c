import { randomUUID } from "node:crypto";
import type { StoredChunk } from "./chunk-store.ts";

/** A chunk for the index's tests: a fresh id, a "Handbook" title, `extra` overriding any field. */
export function makeStoredChunk(
  fields: Pick<StoredChunk, "workspaceId" | "dataSourceId" | "documentId" | "ordinal" | "text">,
  extra: Partial<StoredChunk> = {},
): StoredChunk {
  return {
    id: randomUUID(),
    documentVersion: "v1",
    title: "Handbook",
    headingPath: ["Policies"],
    page: null,
    sourceUrl: null,
    kind: "text",
    tokenCount: fields.text.split(" ").length,
    ...fields,
    ...extra,
  };
}
