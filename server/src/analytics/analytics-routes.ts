import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./analytics-api.ts";

/** `GET /analytics/agents/{id}/`: viewers and up, or the agent's own API key. */
export function analyticsRoutes({ access, analytics }: Pick<Services, "access" | "analytics">) {
  return [
    endpoint(api.agentAnalytics, (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      return c.json(analytics.report(agent.id, input.query()));
    }),
  ];
}
