import { z } from "@hono/zod-openapi";
import { idSchema, pageQuerySchema } from "./common.ts";

export const dataSourceTypeSchema = z.enum(["file", "web", "notion", "text"]);
export type DataSourceType = z.infer<typeof dataSourceTypeSchema>;

/** A document's kind, reported as a citation's `dataSourceType`. */
export const documentKindSchema = z.enum(["pdf", "docx", "markdown", "html", "text", "csv", "web", "notion"]);
export type DocumentKind = z.infer<typeof documentKindSchema>;

export const dataSourceStatusSchema = z.enum(["queued", "syncing", "ready", "failed"]);
export type DataSourceStatus = z.infer<typeof dataSourceStatusSchema>;

export const textEntrySchema = z.object({
  title: z.string().trim().min(1).max(500),
  content: z.string().min(1).max(1_000_000),
});
/**
 * `entries` replaces the source's whole set (diffed against what is stored: unchanged entries are not
 * re-indexed). Omitted, the source starts empty and is filled through `…/entries/`.
 */
export const textConfigSchema = z
  .object({ entries: z.array(textEntrySchema).min(1).max(10_000).optional() })
  .strict();

/** The caller's name for one entry of a text source: any text without control characters. */
export const entryKeySchema = z
  .string()
  .min(1)
  .max(500)
  .refine(
    (k) => ![...k].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f),
    "must not contain control characters",
  );

/** `PUT /data-sources/{id}/entries/{key}/`. */
export const putTextEntryRequestSchema = textEntrySchema.strict().openapi("PutTextEntry");

/** One item of a bulk load (an NDJSON line or an element of a JSON array); `key` defaults to the title. */
export const bulkTextEntrySchema = textEntrySchema.extend({ key: entryKeySchema.optional() }).strict();
export type BulkTextEntry = z.infer<typeof bulkTextEntrySchema>;

export const textEntryStatusSchema = z.enum(["pending", "indexed", "failed"]);

export const storedTextEntrySchema = z
  .object({
    key: z.string(),
    title: z.string(),
    content: z.string(),
    /** SHA-256 of `content`, hex: compare it with your own to skip unchanged entries. */
    contentHash: z.string(),
    bytes: z.number().int(),
    /** `pending` until a sync has indexed this version; then `indexed`, or `failed` with `error`. */
    status: textEntryStatusSchema,
    error: z.string().nullable(),
    /** The document that serves this entry in citations and `…/documents/`, once indexed. */
    documentId: idSchema.nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("TextEntry");
export type StoredTextEntry = z.infer<typeof storedTextEntrySchema>;

/** How many globs `{a,b}` alternatives make of one pattern (at most 32 are matched). */
function braceAlternatives(glob: string): number {
  let count = 1;
  for (const group of glob.match(/\{[^{}]*\}/g) ?? []) count *= group.split(",").length;
  return count;
}

/**
 * Include/exclude globs. Bounds (issue #34): each URL is matched in O(total pattern length × URL
 * length), so the patterns of one list total at most 2,000 characters and 32 brace alternatives each;
 * a glob counts once per alternative (issue #49: 32 alternatives of a 491-character glob were
 * matched as 15,700 characters under a 2,000 cap).
 */
const globListSchema = z
  .array(
    z
      .string()
      .min(1)
      .max(500)
      .refine((g) => braceAlternatives(g) <= 32, "expands to more than 32 {a,b} alternatives"),
  )
  .max(50)
  .refine(
    (globs) => globs.reduce((n, g) => n + g.length * braceAlternatives(g), 0) <= 2000,
    "patterns total more than 2,000 characters ({a,b} alternatives expanded)",
  )
  .default([]);

export const webConfigSchema = z
  .object({
    url: z
      .string()
      .url()
      .max(2000)
      .refine((u) => /^https?:\/\//i.test(u), "must be an http(s) URL"),
    mode: z.enum(["page", "sitemap", "crawl"]).default("page"),
    maxPages: z.number().int().min(1).max(10_000).default(100),
    maxDepth: z.number().int().min(0).max(10).default(2),
    include: globListSchema,
    exclude: globListSchema,
  })
  .strict();
export type WebConfig = z.infer<typeof webConfigSchema>;

/** `POST /data-sources/{id}/rules-preview/`: include/exclude rules to try on a website's known pages. */
export const rulesPreviewRequestSchema = z
  .object({ include: globListSchema, exclude: globListSchema })
  .strict()
  .openapi("RulesPreviewRequest");
export type RulesPreviewRequest = z.input<typeof rulesPreviewRequestSchema>;

export const rulesPreviewSchema = z
  .object({
    kept: z.array(z.string()).openapi({ description: "the pages the rules keep (at most 200 listed)" }),
    dropped: z.array(z.string()).openapi({ description: "the pages they leave out (at most 200 listed)" }),
    keptCount: z.number().int().nonnegative(),
    droppedCount: z.number().int().nonnegative(),
  })
  .openapi("RulesPreview");
export type RulesPreview = z.infer<typeof rulesPreviewSchema>;

export const notionConfigSchema = z
  .object({
    token: z.string().min(1).max(500),
    rootPageIds: z.array(z.string().min(1).max(100)).max(100).default([]),
    databaseIds: z.array(z.string().min(1).max(100)).max(100).default([]),
  })
  .strict();
export type NotionConfig = z.infer<typeof notionConfigSchema>;

export const fileConfigSchema = z.object({}).strict();

export const scheduleSchema = z
  .object({
    intervalMinutes: z
      .number()
      .int()
      .min(5)
      .max(60 * 24 * 30),
  })
  .nullable();

export const createDataSourceRequestSchema = z
  .discriminatedUnion("type", [
    z
      .object({
        type: z.literal("text"),
        name: z.string().trim().min(1).max(200),
        workspaceId: idSchema.optional(),
        config: textConfigSchema,
        schedule: scheduleSchema.optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal("web"),
        name: z.string().trim().min(1).max(200),
        workspaceId: idSchema.optional(),
        config: webConfigSchema,
        schedule: scheduleSchema.optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal("notion"),
        name: z.string().trim().min(1).max(200),
        workspaceId: idSchema.optional(),
        config: notionConfigSchema,
        schedule: scheduleSchema.optional(),
      })
      .strict(),
  ])
  .openapi("CreateDataSource");
export type CreateDataSourceRequest = z.infer<typeof createDataSourceRequestSchema>;

export const updateDataSourceRequestSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    config: z.record(z.string(), z.unknown()),
    schedule: scheduleSchema,
  })
  .partial()
  .strict();

export const syncProgressSchema = z.object({
  total: z.number().int(),
  processed: z.number().int(),
});

export const dataSourceSchema = z
  .object({
    id: idSchema,
    workspaceId: idSchema,
    name: z.string(),
    type: dataSourceTypeSchema,
    // Secrets (the Notion token) are never returned whole: `token` becomes `secret_…abcd`.
    config: z.record(z.string(), z.unknown()),
    status: dataSourceStatusSchema,
    progress: syncProgressSchema,
    lastSyncedAt: z.string().nullable(),
    lastError: z.string().nullable(),
    documentCount: z.number().int(),
    chunkCount: z.number().int(),
    schedule: scheduleSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("DataSource");
export type DataSource = z.infer<typeof dataSourceSchema>;

export const documentSchema = z
  .object({
    id: idSchema,
    dataSourceId: idSchema,
    title: z.string(),
    kind: documentKindSchema,
    sourceUrl: z.string().nullable(),
    status: z.enum(["pending", "indexed", "failed"]),
    error: z.string().nullable(),
    chunkCount: z.number().int(),
    pageCount: z.number().int().nullable(),
    bytes: z.number().int(),
    contentHash: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    sections: z.array(z.string()).optional().openapi({
      description:
        "The headings its indexed chunks start at, in document order (`Setup > Install`), at most 50; in the documents list only",
    }),
  })
  .openapi("Document");
export type SourceDocument = z.infer<typeof documentSchema>;

export const syncRunSchema = z
  .object({
    id: idSchema,
    dataSourceId: idSchema,
    status: z.enum(["queued", "running", "completed", "failed", "cancelled"]),
    trigger: z.enum(["create", "manual", "schedule", "files", "entries"]),
    added: z.number().int(),
    updated: z.number().int(),
    removed: z.number().int(),
    unchanged: z.number().int(),
    failed: z.number().int(),
    attempts: z.number().int(),
    error: z.string().nullable(),
    queuedAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    durationMs: z.number().int().nullable(),
  })
  .openapi("SyncRun");
export type SyncRun = z.infer<typeof syncRunSchema>;

/** `GET /data-sources/` filters. */
export const listDataSourcesQuerySchema = pageQuerySchema.extend({
  workspace_id: idSchema
    .optional()
    .openapi({ description: "only this workspace's sources (404 if not a member)" }),
  type: dataSourceTypeSchema.optional(),
  status: dataSourceStatusSchema.optional(),
});

/** The text fields of a multipart `POST /data-sources/` (a `file` source). */
export const fileSourceFieldsSchema = z.object({
  name: z.string().trim().min(1).max(200),
  type: z.literal("file"),
  workspaceId: idSchema.optional(),
});

const filePartsSchema = z.array(z.string().openapi({ format: "binary" })).min(1);

export const createFileSourceFormSchema = fileSourceFieldsSchema
  .extend({
    files: filePartsSchema.openapi({
      description: "one part per file (PDF, DOCX, Markdown, HTML, TXT, CSV)",
    }),
  })
  .openapi("CreateFileSourceForm");

export const uploadFilesFormSchema = z.object({ files: filePartsSchema }).openapi("UploadFilesForm");

export const replaceFileFormSchema = z
  .object({
    file: z
      .string()
      .openapi({ format: "binary", description: "the new version of the file (exactly one part)" }),
  })
  .openapi("ReplaceFileForm");

export const putTextEntryResponseSchema = z
  .object({
    entry: storedTextEntrySchema,
    /** The sync that indexes the change; `null` when the entry was already stored as sent. */
    syncRun: syncRunSchema.nullable(),
  })
  .openapi("PutTextEntryResponse");
export type PutTextEntryResponse = z.infer<typeof putTextEntryResponseSchema>;

export const bulkTextEntriesResponseSchema = z
  .object({
    received: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    syncRun: syncRunSchema.nullable(),
  })
  .openapi("BulkTextEntriesResponse");
export type BulkTextEntriesResponse = z.infer<typeof bulkTextEntriesResponseSchema>;

/** The body of a bulk load, for the OpenAPI document (the server reads it as a stream). */
export const bulkTextEntriesBodySchema = z.array(bulkTextEntrySchema).openapi("BulkTextEntries", {
  description: "a JSON array of entries, or (as application/x-ndjson) one entry object per line",
});

export const uploadFilesResponseSchema = z
  .object({ documents: z.array(documentSchema), syncRun: syncRunSchema })
  .openapi("UploadFilesResponse");
export type UploadFilesResponse = z.infer<typeof uploadFilesResponseSchema>;

export const replaceFileResponseSchema = z
  .object({ document: documentSchema, syncRun: syncRunSchema })
  .openapi("ReplaceFileResponse");
export type ReplaceFileResponse = z.infer<typeof replaceFileResponseSchema>;

export const uploadLimitsSchema = z
  .object({
    maxUploadBytes: z.number().int().openapi({
      description: "the largest multipart body accepted (`LORE_MAX_UPLOAD_BYTES`); larger is 413",
    }),
    supportedExtensions: z
      .array(z.string())
      .openapi({ description: "file name extensions read (`.pdf`, `.md`, …)" }),
  })
  .openapi("UploadLimits");
export type UploadLimits = z.infer<typeof uploadLimitsSchema>;
