import { z } from "@hono/zod-openapi";
import {
  bulkTextEntriesBodySchema,
  bulkTextEntriesResponseSchema,
  createDataSourceRequestSchema,
  createFileSourceFormSchema,
  dataSourceSchema,
  documentSchema,
  listDataSourcesQuerySchema,
  pageQuerySchema,
  pageSchema,
  putTextEntryRequestSchema,
  putTextEntryResponseSchema,
  replaceFileFormSchema,
  replaceFileResponseSchema,
  rulesPreviewRequestSchema,
  rulesPreviewSchema,
  storedTextEntrySchema,
  syncRunSchema,
  updateDataSourceRequestSchema,
  uploadFilesFormSchema,
  uploadFilesResponseSchema,
  uploadLimitsSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent } from "../http/route.ts";

export const uploadLimits = apiRoute({
  method: "get",
  path: "/data-sources/limits/",
  summary: "What an upload may be: the largest body and the file types read",
  tag: "Data sources",
  auth: "user",
  responses: { 200: jsonResponse(uploadLimitsSchema) },
});

export const listDataSources = apiRoute({
  method: "get",
  path: "/data-sources/",
  summary: "List data sources of the caller's workspaces, newest first",
  tag: "Data sources",
  auth: "user",
  request: { query: listDataSourcesQuerySchema },
  responses: { 200: jsonResponse(pageSchema(dataSourceSchema).openapi("DataSourcePage")) },
  errors: ["validation_error", "not_found"],
});

export const createDataSource = apiRoute({
  method: "post",
  path: "/data-sources/",
  summary: "Create a data source (JSON for text/web/notion, multipart for files); queues its first sync",
  description:
    "`workspaceId` defaults to the caller's personal workspace. A web URL that resolves to a private or loopback address is 400. Files: empty → 400, unsupported type → 415 with `details.supported`.",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  request: {
    body: {
      content: {
        "application/json": { schema: createDataSourceRequestSchema },
        "multipart/form-data": { schema: createFileSourceFormSchema },
      },
      required: true,
    },
  },
  responses: { 201: jsonResponse(dataSourceSchema) },
  errors: ["not_found"],
});

export const getDataSource = apiRoute({
  method: "get",
  path: "/data-sources/{dataSourceId}/",
  summary: "Get a data source with its sync status and progress",
  tag: "Data sources",
  auth: "user",
  role: "viewer",
  responses: { 200: jsonResponse(dataSourceSchema) },
});

export const updateDataSource = apiRoute({
  method: "patch",
  path: "/data-sources/{dataSourceId}/",
  summary: "Update name, config or schedule (a config change queues a sync)",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  request: { body: jsonBody(updateDataSourceRequestSchema.openapi("UpdateDataSource")) },
  responses: { 200: jsonResponse(dataSourceSchema) },
});

export const deleteDataSource = apiRoute({
  method: "delete",
  path: "/data-sources/{dataSourceId}/",
  summary: "Delete a data source: never retrieved again, everything it owned purged",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  responses: { 204: noContent },
});

export const syncDataSource = apiRoute({
  method: "post",
  path: "/data-sources/{dataSourceId}/sync/",
  summary: "Queue a sync (returns the queued or running one if a sync is already under way)",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  responses: { 202: jsonResponse(syncRunSchema) },
});

export const uploadFiles = apiRoute({
  method: "post",
  path: "/data-sources/{dataSourceId}/files/",
  summary: "Add files to a file source; queues a sync",
  description:
    "A body that is not `multipart/form-data` is 415; a source that is not a `file` source is 400. The new documents are `pending` until the returned sync run indexes them.",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  request: {
    body: { content: { "multipart/form-data": { schema: uploadFilesFormSchema } }, required: true },
  },
  responses: { 201: jsonResponse(uploadFilesResponseSchema) },
});

export const removeFile = apiRoute({
  method: "delete",
  path: "/data-sources/{dataSourceId}/files/{documentId}/",
  summary: "Remove one file (document) from a file source",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  responses: { 204: noContent },
});

export const replaceFile = apiRoute({
  method: "put",
  path: "/data-sources/{dataSourceId}/files/{documentId}/",
  summary: "Replace one file of a file source with a new version; queues a sync",
  description:
    "Exactly one file part (`file` or `files`). The old version is no longer searched or cited from this call on; the document keeps its id and is `pending` until the returned sync run indexes the new file. A body that is not `multipart/form-data` is 415, more than one file 400.",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  request: {
    body: { content: { "multipart/form-data": { schema: replaceFileFormSchema } }, required: true },
  },
  responses: { 200: jsonResponse(replaceFileResponseSchema) },
});

export const listDocuments = apiRoute({
  method: "get",
  path: "/data-sources/{dataSourceId}/documents/",
  summary: "The documents of a source, with their chunk counts and failures",
  tag: "Data sources",
  auth: "user",
  role: "viewer",
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(pageSchema(documentSchema).openapi("DocumentPage")) },
  errors: ["validation_error"],
});

export const listSyncRuns = apiRoute({
  method: "get",
  path: "/data-sources/{dataSourceId}/syncs/",
  summary: "The sync history of a source (counts, timings, errors)",
  tag: "Data sources",
  auth: "user",
  role: "viewer",
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(pageSchema(syncRunSchema).openapi("SyncRunPage")) },
  errors: ["validation_error"],
});

export const listTextEntries = apiRoute({
  method: "get",
  path: "/data-sources/{dataSourceId}/entries/",
  summary: "The entries of a text source, oldest first, with their indexing status",
  tag: "Data sources",
  auth: "user",
  role: "viewer",
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(pageSchema(storedTextEntrySchema).openapi("TextEntryPage")) },
  errors: ["validation_error"],
});

export const putTextEntry = apiRoute({
  method: "put",
  path: "/data-sources/{dataSourceId}/entries/{key}/",
  summary: "Create or replace one entry of a text source under the caller's key; only it is re-indexed",
  description:
    "201 when the key is new, 200 when it replaced (or already held) that entry. `syncRun` is the sync that indexes it, `null` when nothing changed. A source that is not a `text` source is 400.",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  request: { body: jsonBody(putTextEntryRequestSchema) },
  responses: { 200: jsonResponse(putTextEntryResponseSchema), 201: jsonResponse(putTextEntryResponseSchema) },
});

export const deleteTextEntry = apiRoute({
  method: "delete",
  path: "/data-sources/{dataSourceId}/entries/{key}/",
  summary: "Delete one entry of a text source; its document and chunks go at once",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  responses: { 204: noContent },
});

export const bulkTextEntries = apiRoute({
  method: "post",
  path: "/data-sources/{dataSourceId}/entries/",
  summary: "Create or replace many entries of a text source (NDJSON or a JSON array, read as a stream)",
  description:
    "`Content-Type: application/x-ndjson` (one entry per line) or `application/json` (an array of entries). Each entry `{key?, title, content}`; `key` defaults to the title. Entries are stored in batches of 1,000 as they arrive; the first bad item is a 400 naming its `line` (or `element`) and how many entries before it were `stored`. Up to `LORE_MAX_BULK_BYTES` (1 GiB).",
  tag: "Data sources",
  auth: "user",
  role: "editor",
  bulkBody: true,
  request: {
    body: {
      content: {
        "application/json": { schema: bulkTextEntriesBodySchema },
        "application/x-ndjson": { schema: z.string().openapi({ description: "one entry object per line" }) },
      },
      required: true,
    },
  },
  responses: { 202: jsonResponse(bulkTextEntriesResponseSchema) },
  errors: ["validation_error", "unsupported_media_type", "payload_too_large"],
});

export const previewRules = apiRoute({
  method: "post",
  path: "/data-sources/{dataSourceId}/rules-preview/",
  summary: "Which of a website source's pages these include/exclude rules would keep (nothing is saved)",
  description: "Over the pages the last syncs stored. Another type of source: 400.",
  tag: "Data sources",
  auth: "user",
  role: "viewer",
  request: { body: jsonBody(rulesPreviewRequestSchema) },
  responses: { 200: jsonResponse(rulesPreviewSchema) },
});
