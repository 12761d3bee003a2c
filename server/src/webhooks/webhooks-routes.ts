import type { Context } from "hono";
import { paginate } from "../http/pagination.ts";
import type { AppEnv } from "../http/principal.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./webhooks-api.ts";

/** Webhook subscriptions of a workspace (admins and owners) and their delivery logs. */
export function webhooksRoutes({ access, webhooks }: Pick<Services, "access" | "webhooks">) {
  const workspace = (c: Context<AppEnv>, input: { id(name: "workspaceId"): string }) => {
    const id = input.id("workspaceId");
    access.requireWorkspace(c.get("principal"), id, "admin");
    return id;
  };
  const hook = (c: Context<AppEnv>, input: { id(name: "workspaceId" | "webhookId"): string }) =>
    webhooks.get(workspace(c, input), input.id("webhookId"));

  return [
    endpoint(api.listWebhooks, (c, input) =>
      c.json(paginate(c, webhooks.list(workspace(c, input)), input.query())),
    ),
    endpoint(api.createWebhook, async (c, input) => {
      const workspaceId = workspace(c, input);
      return c.json(await webhooks.create(workspaceId, await input.json()), 201);
    }),
    endpoint(api.getWebhook, (c, input) => {
      const { secret: _secret, ...rest } = hook(c, input);
      return c.json(rest);
    }),
    endpoint(api.updateWebhook, async (c, input) => {
      const found = hook(c, input);
      return c.json(await webhooks.update(found, await input.json()));
    }),
    endpoint(api.deleteWebhook, async (c, input) => {
      await webhooks.remove(hook(c, input));
      return c.body(null, 204);
    }),
    endpoint(api.listDeliveries, (c, input) => {
      const found = hook(c, input);
      const query = input.query();
      return c.json(paginate(c, webhooks.listDeliveries(found, query.status), query));
    }),
  ];
}
