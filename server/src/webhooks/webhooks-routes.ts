import {
  createWebhookRequestSchema,
  pageQuerySchema,
  updateWebhookRequestSchema,
  webhookDeliveriesQuerySchema,
} from "@lore/shared";
import { type Context, Hono } from "hono";
import { paginate } from "../http/pagination.ts";
import type { AppEnv } from "../http/principal.ts";
import { parseQuery, pathId, readJson } from "../http/validate.ts";
import type { Services } from "../services.ts";

/** Webhook subscriptions of a workspace (admins and owners) and their delivery logs. */
export function webhooksRoutes(s: Services) {
  const { access, webhooks, config } = s;
  const workspace = (c: Context<AppEnv>) => {
    const id = pathId(c, "id", "workspace");
    access.requireWorkspace(c.get("principal"), id, "admin");
    return id;
  };

  return new Hono<AppEnv>()
    .get("/:id/webhooks/", (c) => {
      const workspaceId = workspace(c);
      return c.json(
        paginate(c, webhooks.list(workspaceId), parseQuery(c, pageQuerySchema), config.trustProxy),
      );
    })
    .post("/:id/webhooks/", async (c) => {
      const workspaceId = workspace(c);
      const body = await readJson(c, createWebhookRequestSchema);
      return c.json(await webhooks.create(workspaceId, body), 201);
    })
    .get("/:id/webhooks/:webhookId/", (c) => {
      const hook = webhooks.get(workspace(c), pathId(c, "webhookId", "webhook"));
      const { secret: _secret, ...rest } = hook;
      return c.json(rest);
    })
    .patch("/:id/webhooks/:webhookId/", async (c) => {
      const hook = webhooks.get(workspace(c), pathId(c, "webhookId", "webhook"));
      const body = await readJson(c, updateWebhookRequestSchema);
      return c.json(await webhooks.update(hook, body));
    })
    .delete("/:id/webhooks/:webhookId/", async (c) => {
      const hook = webhooks.get(workspace(c), pathId(c, "webhookId", "webhook"));
      await webhooks.remove(hook);
      return c.body(null, 204);
    })
    .get("/:id/webhooks/:webhookId/deliveries/", (c) => {
      const hook = webhooks.get(workspace(c), pathId(c, "webhookId", "webhook"));
      const query = parseQuery(c, webhookDeliveriesQuerySchema);
      return c.json(paginate(c, webhooks.listDeliveries(hook, query.status), query, config.trustProxy));
    });
}
