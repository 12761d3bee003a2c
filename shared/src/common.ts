import { z } from "@hono/zod-openapi";

export const idSchema = z.string().uuid();
export const timestampSchema = z.string().datetime();

/** The contract's list envelope: count, absolute next/previous URLs, the page's items. */
export function pageSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object({
    count: z.number().int().nonnegative(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
}
export type Page<T> = { count: number; next: string | null; previous: string | null; results: T[] };

/**
 * `page` and `page_size` as Django REST framework's PageNumberPagination reads them: `page` is
 * checked against the list when it is paged (not a number, below 1 or past the end: 404 "Invalid
 * page."; `last` is the last page); a `page_size` that is not a positive integer is the default (20),
 * above 100 it is 100 (docs/api.md).
 */
export const pageQuerySchema = z.object({
  page: z.string().optional().openapi({
    type: "integer",
    minimum: 1,
    description:
      'A page number from 1 (or `last`, the last page); any other value, or a page past the end, is 404 "Invalid page."',
    example: 2,
  }),
  page_size: z
    .string()
    .optional()
    .transform((raw) => {
      const n = raw !== undefined && /^\s*\+?\d+\s*$/.test(raw) ? Number(raw) : 0;
      return n >= 1 ? Math.min(n, 100) : 20;
    })
    .openapi({
      type: "integer",
      description: "Items per page, 1-100 (default 20); above 100 is 100, anything else the default",
      example: 20,
    }),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

/** `GET /openapi.json`: an OpenAPI 3.1 document (this API's; its parts are OpenAPI's, kept as they are). */
export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.string().regex(/^3\.1\.\d+$/),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    servers: z.array(z.looseObject({ url: z.string() })),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.record(z.string(), z.unknown()),
  })
  .openapi("OpenApiDocument");

/** `GET /healthz`: the process answers. */
const stallSchema = z.object({
  route: z
    .string()
    .nullable()
    .openapi({ description: "the matched route pattern; null: no request was running" }),
  method: z.string().nullable(),
  ms: z.number().int().openapi({ description: "how long the event loop did not turn" }),
  at: z.string().openapi({ description: "when it turned again (ISO 8601)" }),
});
/** The data directory's disk, in `/healthz` and `/readyz` (issue #48). */
export const storageHealthSchema = z
  .object({
    state: z.enum(["ok", "full", "read-only", "missing"]).openapi({
      description:
        "ok, or why nothing can be written: the disk is full, mounted read-only, or the data directory is gone. While not ok, reads are served and writes answer 503 `service_unavailable` (details.reason `storage_unavailable`)",
    }),
    since: z.string().nullable().openapi({ description: "when the fault began (ISO 8601); null while ok" }),
    freeBytes: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "free space on the data directory's disk" }),
    floorBytes: z.number().int().openapi({
      description: "LORE_MIN_FREE_MB (at most a tenth of the disk): below it new syncs wait",
    }),
    lowOnSpace: z.boolean().openapi({ description: "free space is below the floor" }),
  })
  .openapi("StorageHealth");
/** `GET /healthz`: the process answers; the event loop's recent delay and its last stall (issue #34). */
export const healthSchema = z
  .object({
    status: z.literal("ok"),
    eventLoop: z.object({
      delayP99Ms: z
        .number()
        .int()
        .openapi({ description: "99th percentile of the loop's delay, last 1–2 minutes" }),
      lastStall: stallSchema
        .nullable()
        .openapi({ description: "the last time a task held the loop past the budget" }),
    }),
    storage: storageHealthSchema,
  })
  .openapi("Health");
/** `GET /readyz`: the store is open and migrated. */
export const readinessSchema = z
  .object({
    status: z.literal("ready"),
    schemaVersion: z.number().int().openapi({ description: "the store's migration level" }),
    storage: storageHealthSchema,
    searchIndex: z
      .object({
        maxChunks: z.number().int().openapi({ description: "LORE_INDEX_MAX_CHUNKS" }),
        chunks: z.number().int().openapi({ description: "chunks this process holds in memory" }),
        workspaces: z.number().int().openapi({ description: "workspaces whose chunks it holds" }),
      })
      .optional()
      .openapi({
        description: "only with LORE_INDEX_MAX_CHUNKS set: what this replica's search index holds",
      }),
  })
  .openapi("Readiness");
