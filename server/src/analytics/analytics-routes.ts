import { analyticsQuerySchema } from "@lore/shared";
import { Hono } from "hono";
import type { AppEnv } from "../http/principal.ts";
import { parseQuery, pathId } from "../http/validate.ts";
import type { Services } from "../services.ts";

/** `GET /analytics/agents/{id}/`: viewers and up, or the agent's own API key. */
export function analyticsRoutes(s: Services) {
  return new Hono<AppEnv>().get("/agents/:id/", (c) => {
    const agent = s.access.agent(c.get("principal"), pathId(c, "id", "agent"), "read");
    const query = parseQuery(c, analyticsQuerySchema);
    return c.json(s.analytics.report(agent.id, query));
  });
}
