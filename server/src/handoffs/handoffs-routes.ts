import { paginate } from "../http/pagination.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./handoffs-api.ts";

/** The owner's side of handoffs: the list to work through, and resolving. */
export function handoffsRoutes({
  access,
  handoffs,
  config,
  store,
}: Pick<Services, "access" | "handoffs" | "config" | "store">) {
  return [
    endpoint(api.handoffSummary, (c) => {
      const user = access.requireUser(c.get("principal"));
      const workspaces = new Set(access.workspacesOf(user.id).map((w) => w.workspace.id));
      const readable = (agentId: string) => workspaces.has(store.agents.get(agentId)?.workspaceId ?? "");
      return c.json({ open: handoffs.openByAgent(readable), emailNotices: config.smtp !== null });
    }),
    endpoint(api.listHandoffs, (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      const { page, page_size, status } = input.query();
      return c.json(paginate(c, handoffs.list(agent.id, status), { page, page_size }));
    }),
    endpoint(api.updateHandoff, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      const handoff = handoffs.get(agent.id, input.id("handoffId"));
      const body = await input.json();
      return c.json(await handoffs.setStatus(handoff, body.status));
    }),
  ];
}
