import { entryKeySchema, fileSourceFieldsSchema } from "@lore/shared";
import type { Context } from "hono";
import { AppError, parseWith } from "../errors.ts";
import { isMultipart, readMultipart } from "../http/multipart.ts";
import { paginate } from "../http/pagination.ts";
import type { AppEnv } from "../http/principal.ts";
import { endpoint } from "../http/route.ts";
import { assertPublicUrl, OutboundError } from "../net/outbound.ts";
import { outboundAdvice } from "../net/outbound-advice.ts";
import type { Services } from "../services.ts";
import type { DocumentRecord } from "../store/records.ts";
import { matcher } from "./connectors/web.ts";
import { bulkFormat, capBytes, chunksOf } from "./entry-stream.ts";
import { SUPPORTED_EXTENSIONS } from "./parsing/detect-kind.ts";
import * as api from "./sources-api.ts";
import { toSyncRun } from "./sources-service.ts";

/** A web source must point at a public address (or one the allowlist names): refused up front, checked again on every fetch. */
async function checkOutboundUrl(url: string, allowlist: readonly string[]): Promise<void> {
  try {
    await assertPublicUrl(url, allowlist);
  } catch (error) {
    if (error instanceof OutboundError) {
      throw new AppError("validation_error", "The URL cannot be fetched", {
        fields: { "config.url": [outboundAdvice(error)] },
      });
    }
    throw error;
  }
}

/** Pages listed in each half of a rules preview. */
const PREVIEW_LISTED = 200;

/** The `{key}` of an entry route (percent-decoded by the router). */
function entryKey(c: Context<AppEnv>): string {
  return parseWith(entryKeySchema, c.req.param("key") ?? "", "The entry key is invalid");
}

/** Public shape of a document: no tenant or storage bookkeeping. */
function toDocument({ workspaceId: _w, externalId: _e, storedFile: _s, ...doc }: DocumentRecord) {
  return doc;
}

export function sourcesRoutes({ access, sources, config }: Pick<Services, "access" | "sources" | "config">) {
  const owned = (
    c: Context<AppEnv>,
    input: { id(name: "dataSourceId"): string },
    minRole: "viewer" | "editor",
  ) => {
    const source = sources.get(input.id("dataSourceId"));
    try {
      access.requireWorkspace(c.get("principal"), source.workspaceId, minRole);
    } catch (error) {
      // Another tenant's source does not exist for the caller.
      if (error instanceof AppError && error.code === "not_found")
        throw new AppError("not_found", "data_source not found", { resource: "data_source", id: source.id });
      throw error;
    }
    return source;
  };

  return [
    // Before the `{dataSourceId}` routes, which would read `limits` as an id.
    endpoint(api.uploadLimits, (c) => {
      access.requireUser(c.get("principal"));
      return c.json({
        maxUploadBytes: config.maxUploadBytes,
        supportedExtensions: [...SUPPORTED_EXTENSIONS],
      });
    }),
    endpoint(api.listDataSources, (c, input) => {
      const user = access.requireUser(c.get("principal"));
      const query = input.query();
      const ids = new Set(access.workspacesOf(user.id).map((w) => w.workspace.id));
      if (query.workspace_id && !ids.has(query.workspace_id))
        throw new AppError("not_found", "workspace not found", {
          resource: "workspace",
          id: query.workspace_id,
        });
      const records = sources.list(query.workspace_id ? new Set([query.workspace_id]) : ids, query);
      return c.json(
        paginate(
          c,
          records.map((r) => sources.toDataSource(r)),
          query,
        ),
      );
    }),
    endpoint(api.createDataSource, async (c, input) => {
      const user = access.requireUser(c.get("principal"));
      if (isMultipart(c)) {
        // Refuse before reading (up to the upload cap) when the caller can create sources nowhere.
        if (!access.workspacesOf(user.id).some((w) => access.atLeast(w.role, "editor"))) {
          throw new AppError("permission_denied", "This needs the editor role in a workspace", {
            required: "editor",
          });
        }
        const { fields, files } = await readMultipart(c);
        const form = parseWith(fileSourceFieldsSchema, fields);
        const workspaceId = form.workspaceId ?? access.defaultWorkspaceId(user.id);
        access.requireWorkspace(c.get("principal"), workspaceId, "editor");
        return c.json(
          sources.toDataSource(await sources.createFileSource(workspaceId, form.name, files)),
          201,
        );
      }
      const body = await input.json();
      const workspaceId = body.workspaceId ?? access.defaultWorkspaceId(user.id);
      access.requireWorkspace(c.get("principal"), workspaceId, "editor");
      if (body.type === "web") await checkOutboundUrl(body.config.url, config.outboundAllowlist);
      return c.json(sources.toDataSource(await sources.create(workspaceId, body)), 201);
    }),
    endpoint(api.getDataSource, (c, input) => c.json(sources.toDataSource(owned(c, input, "viewer")))),
    endpoint(api.updateDataSource, async (c, input) => {
      const source = owned(c, input, "editor");
      const body = await input.json();
      if (source.type === "web" && typeof body.config?.url === "string")
        await checkOutboundUrl(body.config.url, config.outboundAllowlist);
      return c.json(sources.toDataSource(await sources.update(source, body)));
    }),
    endpoint(api.previewRules, async (c, input) => {
      const source = owned(c, input, "viewer");
      const rules = await input.json();
      if (source.type !== "web")
        throw new AppError("validation_error", "Only website sources have page rules", {
          fields: { include: ["only website sources have page rules"] },
        });
      const keeps = matcher(rules);
      const urls = [...new Set(sources.documents(source.id).map((d) => d.sourceUrl))].filter(
        (u): u is string => typeof u === "string" && URL.canParse(u),
      );
      const kept = urls.filter((u) => keeps(new URL(u))).sort();
      const dropped = urls.filter((u) => !keeps(new URL(u))).sort();
      return c.json({
        kept: kept.slice(0, PREVIEW_LISTED),
        dropped: dropped.slice(0, PREVIEW_LISTED),
        keptCount: kept.length,
        droppedCount: dropped.length,
      });
    }),
    endpoint(api.deleteDataSource, async (c, input) => {
      await sources.remove(owned(c, input, "editor"));
      return c.body(null, 204);
    }),
    endpoint(api.syncDataSource, async (c, input) =>
      c.json(toSyncRun(await sources.sync(owned(c, input, "editor"))), 202),
    ),
    endpoint(api.uploadFiles, async (c, input) => {
      const source = owned(c, input, "editor");
      if (!isMultipart(c)) {
        throw new AppError("unsupported_media_type", "Upload files as multipart/form-data", {
          supported: ["multipart/form-data"],
        });
      }
      const { files } = await readMultipart(c);
      const { documents, syncRun } = await sources.addFiles(source, files);
      return c.json({ documents: documents.map(toDocument), syncRun: toSyncRun(syncRun) }, 201);
    }),
    endpoint(api.replaceFile, async (c, input) => {
      const source = owned(c, input, "editor");
      if (!isMultipart(c)) {
        throw new AppError("unsupported_media_type", "Upload the file as multipart/form-data", {
          supported: ["multipart/form-data"],
        });
      }
      const { files } = await readMultipart(c);
      const [file] = files;
      if (!file || files.length > 1) {
        throw new AppError("validation_error", "Attach exactly one file to replace a file", {
          fields: { file: [`got ${files.length} files`] },
        });
      }
      const { document, syncRun } = await sources.replaceFile(source, input.id("documentId"), file);
      return c.json({ document: toDocument(document), syncRun: toSyncRun(syncRun) }, 200);
    }),
    endpoint(api.removeFile, async (c, input) => {
      const source = owned(c, input, "editor");
      await sources.removeFile(source, input.id("documentId"));
      return c.body(null, 204);
    }),
    endpoint(api.listDocuments, async (c, input) => {
      const source = owned(c, input, "viewer");
      const docs = sources.documents(source.id).map(toDocument);
      const page = paginate(c, docs, input.query());
      const sections = await sources.sectionTitles(page.results.map((d) => d.id));
      return c.json({
        ...page,
        results: page.results.map((d) => ({ ...d, sections: sections.get(d.id) ?? [] })),
      });
    }),
    endpoint(api.listTextEntries, async (c, input) => {
      const source = owned(c, input, "viewer");
      const page = paginate(c, sources.entryList(source), input.query());
      return c.json({ ...page, results: await sources.withContent(source, page.results) });
    }),
    endpoint(api.putTextEntry, async (c, input) => {
      const source = owned(c, input, "editor");
      const key = entryKey(c);
      const { entry, syncRun, created } = await sources.putEntry(source, { key, ...(await input.json()) });
      const body = { entry, syncRun: syncRun && toSyncRun(syncRun) };
      return created ? c.json(body, 201) : c.json(body, 200);
    }),
    endpoint(api.deleteTextEntry, async (c, input) => {
      await sources.deleteEntry(owned(c, input, "editor"), entryKey(c));
      return c.body(null, 204);
    }),
    endpoint(api.bulkTextEntries, async (c, input) => {
      const source = owned(c, input, "editor");
      const type = c.req.header("content-type") ?? "";
      const format = bulkFormat(type);
      if (!format || !c.req.raw.body) {
        throw new AppError("unsupported_media_type", "Send entries as application/x-ndjson or a JSON array", {
          received: type || null,
          supported: ["application/x-ndjson", "application/json"],
        });
      }
      const body = capBytes(chunksOf(c.req.raw.body), config.maxBulkBytes);
      return c.json(await sources.loadEntries(source, format, body, c.req.raw.signal), 202);
    }),
    endpoint(api.listSyncRuns, (c, input) => {
      const source = owned(c, input, "viewer");
      const runs = sources.syncRuns(source.id).map(toSyncRun);
      return c.json(paginate(c, runs, input.query()));
    }),
  ];
}
