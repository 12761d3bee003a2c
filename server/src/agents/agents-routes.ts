import type { Agent } from "@lore/shared";
import { AppError } from "../errors.ts";
import { publicPrefix } from "../http/forwarded.ts";
import { pageJsonResponse, paginate } from "../http/pagination.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import { PREVIEW_TTL_SECONDS, signPreviewGrant } from "../site/preview-grant.ts";
import type { AgentRecord } from "../store/records.ts";
import * as api from "./agents-api.ts";
import { checkSuggestedQuestions } from "./check-suggested.ts";

export function agentsRoutes({
  access,
  agents,
  apiKeys,
  conversations,
  corrections,
  handoffs,
  answerDeps,
  config,
  widgetOrigins,
}: Pick<
  Services,
  | "access"
  | "agents"
  | "apiKeys"
  | "conversations"
  | "corrections"
  | "handoffs"
  | "answerDeps"
  | "config"
  | "widgetOrigins"
>) {
  return [
    endpoint(api.listAgents, (c, input) => {
      const principal = c.get("principal");
      const query = input.query();
      let records: AgentRecord[];
      if (principal.kind === "apiKey") {
        const own = agents.byId(principal.key.agentId);
        records = own ? [own] : [];
      } else {
        const user = access.requireUser(principal);
        const ids = new Set(access.workspacesOf(user.id).map((w) => w.workspace.id));
        if (query.workspace_id && !ids.has(query.workspace_id))
          throw new AppError("not_found", "workspace not found", {
            resource: "workspace",
            id: query.workspace_id,
          });
        records = agents.listForWorkspaces(query.workspace_id ? new Set([query.workspace_id]) : ids);
      }
      // The body c.json(page of toAgent) would send, from each agent's cached JSON.
      const page = paginate(c, records, query);
      const results = page.results.map((a) => agents.toAgentJson(a));
      return pageJsonResponse<Agent>(c, { ...page, results });
    }),
    endpoint(api.createAgent, async (c, input) => {
      const user = access.requireUser(c.get("principal"));
      const body = await input.json();
      const workspaceId = body.workspaceId ?? access.defaultWorkspaceId(user.id);
      access.requireWorkspace(c.get("principal"), workspaceId, "editor");
      return c.json(agents.toAgent(await agents.create(workspaceId, body)), 201);
    }),
    endpoint(api.getAgent, (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      return c.json(agents.toAgent(agent));
    }),
    endpoint(api.updateAgent, async (c, input) => {
      const principal = c.get("principal");
      const agent = access.agent(principal, input.id("agentId"), "write");
      const patch = await input.json();
      if (principal.kind === "apiKey") agents.checkKeyPatch(agent, patch);
      return c.json(agents.toAgent(await agents.update(agent, patch)));
    }),
    endpoint(api.createPreview, (c, input) => {
      access.requireUser(c.get("principal"));
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      const exp = Math.floor(Date.now() / 1000) + PREVIEW_TTL_SECONDS;
      const grant = signPreviewGrant(config.jwtSecret, { agentId: agent.id, widgetId: agent.widgetId, exp });
      const expiresAt = new Date(exp * 1000).toISOString();
      // Under a proxy's path prefix, the demo page is there too.
      return c.json({ url: `${publicPrefix(c)}/?preview=${encodeURIComponent(grant)}`, expiresAt }, 201);
    }),
    endpoint(api.deleteAgent, async (c, input) => {
      const principal = c.get("principal");
      access.requireUser(principal); // a key cannot delete its own agent
      const agent = access.agent(principal, input.id("agentId"), "write");
      await agents.remove(agent);
      await conversations.removeForAgent(agent.id);
      await corrections.removeForAgent(agent.id);
      await widgetOrigins.removeForAgent(agent.id);
      await handoffs.removeForAgent(agent.id);
      return c.body(null, 204);
    }),
    endpoint(api.checkSuggestedQuestions, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      return c.json({ results: await checkSuggestedQuestions(answerDeps, agent, c.req.raw.signal) });
    }),
    endpoint(api.listApiKeys, (c, input) => {
      access.requireUser(c.get("principal"));
      const agent = access.agent(c.get("principal"), input.id("agentId"), "manageKeys");
      const results = apiKeys.list(agent.id);
      return c.json({ count: results.length, next: null, previous: null, results });
    }),
    endpoint(api.createApiKey, async (c, input) => {
      access.requireUser(c.get("principal"));
      const agent = access.agent(c.get("principal"), input.id("agentId"), "manageKeys");
      const body = await input.json();
      return c.json(await apiKeys.create(agent, body.name), 201);
    }),
    endpoint(api.revokeApiKey, async (c, input) => {
      access.requireUser(c.get("principal"));
      const agent = access.agent(c.get("principal"), input.id("agentId"), "manageKeys");
      await apiKeys.revoke(agent.id, input.id("keyId"));
      return c.body(null, 204);
    }),
  ];
}
