import { requestUrl } from "../http/pagination.ts";
import { endpoint } from "../http/route.ts";
import { buildOpenApiDocument } from "../openapi/document.ts";
import type { Services } from "../services.ts";
import * as api from "./meta-api.ts";

/** Health checks and the OpenAPI document. */
export function metaRoutes({ config, store }: Pick<Services, "config" | "store">) {
  return [
    endpoint(api.health, (c) => c.json({ status: "ok" as const })),
    endpoint(api.readiness, (c) => c.json({ status: "ready" as const, schemaVersion: store.schemaVersion })),
    // servers[0] is this server's API base, as the client reached it.
    endpoint(api.openApiDocument, (c) =>
      c.json(
        buildOpenApiDocument(
          config.apiPrefix,
          config.publicUrl?.replace(/\/$/, "") ?? requestUrl(c, config.trustProxy).origin,
        ),
      ),
    ),
  ];
}
