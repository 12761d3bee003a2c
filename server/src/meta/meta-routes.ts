import { openApiDocumentSchema } from "@lore/shared";
import { AppError } from "../errors.ts";
import { publicRoot } from "../http/forwarded.ts";
import { endpoint } from "../http/route.ts";
import { buildOpenApiDocument } from "../openapi/document.ts";
import type { Services } from "../services.ts";
import * as api from "./meta-api.ts";
import { createModelCatalog, withProviderModels } from "./model-catalog.ts";

/** Health checks, the OpenAPI document and the models this server is configured with. */
export function metaRoutes({
  config,
  store,
  lifecycle,
  watchdog,
  access,
  index,
  storage,
  modelProviders,
  answerDeps,
}: Pick<
  Services,
  | "config"
  | "store"
  | "lifecycle"
  | "watchdog"
  | "access"
  | "index"
  | "storage"
  | "modelProviders"
  | "answerDeps"
>) {
  const models = createModelCatalog(config);
  // Which visitor languages are translated for retrieval, and which were asked in without a dictionary.
  const translation = () => ({
    dictionaries: [...(answerDeps.translator?.available ?? [])],
    missing: [...(answerDeps.translator?.missing ?? [])],
  });
  return [
    // Answered by the event loop, so it cannot answer while a task holds it: it reports the last stall after.
    endpoint(api.health, (c) =>
      c.json({ status: "ok" as const, eventLoop: watchdog.state(), storage: storage.report() }),
    ),
    endpoint(api.readiness, (c) => {
      // Fails first on shutdown, so a proxy's health check moves traffic away before the listener closes.
      if (lifecycle.draining)
        throw new AppError("service_unavailable", "The server is shutting down", { reason: "draining" });
      const held = index.heldIndex;
      return c.json({
        status: "ready" as const,
        schemaVersion: store.schemaVersion,
        // Still ready while the disk is at fault: reads are served, writes answer 503 on their own.
        storage: storage.report(),
        ...(held ? { searchIndex: held } : {}),
      });
    }),
    // servers[0] is this server's API base, as the client reached it. Parsed by its own declared
    // schema (two levels deep, cheap), so the document answers as it describes itself.
    endpoint(api.openApiDocument, (c) =>
      c.json(openApiDocumentSchema.parse(buildOpenApiDocument(config.apiPrefix, publicRoot(c)))),
    ),
    endpoint(api.listModels, async (c, input) => {
      const principal = c.get("principal");
      access.requireUser(principal);
      const { workspace_id } = input.query();
      const listed = await models.list();
      if (!workspace_id || listed.modelServer !== "none")
        return c.json({ ...listed, translation: translation() });
      access.requireWorkspace(principal, workspace_id, "viewer");
      return c.json({
        ...(await withProviderModels(listed, modelProviders, workspace_id)),
        translation: translation(),
      });
    }),
  ];
}
