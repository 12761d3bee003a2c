import { createDataSourceRequestSchema, pageQuerySchema, updateDataSourceRequestSchema } from "@lore/shared";
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { AppError } from "../errors.ts";
import { paginate } from "../http/pagination.ts";
import type { AppEnv } from "../http/principal.ts";
import { parseQuery, parseWith, pathId, readJson } from "../http/validate.ts";
import { assertPublicUrl, OutboundError } from "../net/outbound.ts";
import type { Services } from "../services.ts";
import { toSyncRun, type UploadedFile } from "./sources-service.ts";

const listQuerySchema = pageQuerySchema.extend({
  workspace_id: z.string().uuid().optional(),
  type: z.enum(["file", "web", "notion", "text"]).optional(),
  status: z.enum(["queued", "syncing", "ready", "failed"]).optional(),
});

const multipartFieldsSchema = z.object({
  name: z.string().trim().min(1).max(200),
  type: z.literal("file"),
  workspaceId: z.string().uuid().optional(),
});

function isMultipart(c: Context): boolean {
  return (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
}

/** Reads a multipart form: its text fields and every `files` part. */
async function readMultipart(c: Context): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  let form: Record<string, string | File | (string | File)[]>;
  try {
    form = await c.req.parseBody({ all: true });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("validation_error", "The multipart body could not be read", {
      fields: { body: ["malformed multipart"] },
    });
  }
  const fields: Record<string, string> = {};
  const files: UploadedFile[] = [];
  for (const [key, value] of Object.entries(form)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === "string") fields[key] = item;
      else if (key === "files" || key === "file" || key === "files[]") {
        files.push({
          name: item.name || "upload",
          type: item.type,
          bytes: new Uint8Array(await item.arrayBuffer()),
        });
      }
    }
  }
  if (files.length === 0) {
    throw new AppError("validation_error", "Attach at least one file as a 'files' part", {
      fields: { files: ["required"] },
    });
  }
  return { fields, files };
}

/** A web source must point at a public address (or one the allowlist names): refused up front, checked again on every fetch. */
async function checkOutboundUrl(url: string, allowlist: readonly string[]): Promise<void> {
  try {
    await assertPublicUrl(url, allowlist);
  } catch (error) {
    if (error instanceof OutboundError) {
      throw new AppError("validation_error", "The URL cannot be fetched", {
        fields: { "config.url": [error.message] },
      });
    }
    throw error;
  }
}

export function sourcesRoutes(s: Services) {
  const { access, sources, config } = s;
  const owned = (c: Context<AppEnv>, minRole: "viewer" | "editor") => {
    const source = sources.get(pathId(c, "id", "data_source"));
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

  return new Hono<AppEnv>()
    .get("/", (c) => {
      const user = access.requireUser(c.get("principal"));
      const query = parseQuery(c, listQuerySchema);
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
          config.trustProxy,
        ),
      );
    })
    .post("/", async (c) => {
      const user = access.requireUser(c.get("principal"));
      if (isMultipart(c)) {
        // Refuse before reading (up to the upload cap) when the caller can create sources nowhere.
        if (!access.workspacesOf(user.id).some((w) => access.atLeast(w.role, "editor"))) {
          throw new AppError("permission_denied", "This needs the editor role in a workspace", {
            required: "editor",
          });
        }
        const { fields, files } = await readMultipart(c);
        const input = parseWith(multipartFieldsSchema, fields);
        const workspaceId = input.workspaceId ?? access.defaultWorkspaceId(user.id);
        access.requireWorkspace(c.get("principal"), workspaceId, "editor");
        return c.json(
          sources.toDataSource(await sources.createFileSource(workspaceId, input.name, files)),
          201,
        );
      }
      const body = await readJson(c, createDataSourceRequestSchema);
      const workspaceId = body.workspaceId ?? access.defaultWorkspaceId(user.id);
      access.requireWorkspace(c.get("principal"), workspaceId, "editor");
      if (body.type === "web") await checkOutboundUrl(body.config.url, config.outboundAllowlist);
      return c.json(sources.toDataSource(await sources.create(workspaceId, body)), 201);
    })
    .get("/:id/", (c) => c.json(sources.toDataSource(owned(c, "viewer"))))
    .patch("/:id/", async (c) => {
      const source = owned(c, "editor");
      const body = await readJson(c, updateDataSourceRequestSchema);
      if (source.type === "web" && typeof body.config?.url === "string")
        await checkOutboundUrl(body.config.url, config.outboundAllowlist);
      return c.json(sources.toDataSource(await sources.update(source, body)));
    })
    .delete("/:id/", async (c) => {
      await sources.remove(owned(c, "editor"));
      return c.body(null, 204);
    })
    .post("/:id/sync/", async (c) => c.json(toSyncRun(await sources.sync(owned(c, "editor"))), 202))
    .post("/:id/files/", async (c) => {
      const source = owned(c, "editor");
      if (!isMultipart(c)) {
        throw new AppError("unsupported_media_type", "Upload files as multipart/form-data", {
          supported: ["multipart/form-data"],
        });
      }
      const { files } = await readMultipart(c);
      const { documents, syncRun } = await sources.addFiles(source, files);
      return c.json(
        {
          documents: documents.map(({ workspaceId: _w, externalId: _e, storedFile: _s, ...d }) => d),
          syncRun: toSyncRun(syncRun),
        },
        201,
      );
    })
    .delete("/:id/files/:documentId/", async (c) => {
      const source = owned(c, "editor");
      await sources.removeFile(source, pathId(c, "documentId", "document"));
      return c.body(null, 204);
    })
    .get("/:id/documents/", (c) => {
      const source = owned(c, "viewer");
      const query = parseQuery(c, pageQuerySchema);
      const docs = sources
        .documents(source.id)
        .map(({ workspaceId: _w, externalId: _e, storedFile: _s, ...d }) => d);
      return c.json(paginate(c, docs, query, config.trustProxy));
    })
    .get("/:id/syncs/", (c) => {
      const source = owned(c, "viewer");
      const query = parseQuery(c, pageQuerySchema);
      const runs = sources.syncRuns(source.id).map(toSyncRun);
      return c.json(paginate(c, runs, query, config.trustProxy));
    });
}
