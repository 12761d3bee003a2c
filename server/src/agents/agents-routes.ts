import {
  createAgentRequestSchema,
  createApiKeyRequestSchema,
  pageQuerySchema,
  updateAgentRequestSchema,
} from "@lore/shared";
import { Hono } from "hono";
import { z } from "zod";
import { AppError } from "../errors.ts";
import { pageJson, paginate } from "../http/pagination.ts";
import type { AppEnv } from "../http/principal.ts";
import { parseQuery, pathId, readJson } from "../http/validate.ts";
import type { Services } from "../services.ts";
import type { AgentRecord } from "../store/records.ts";

const listQuerySchema = pageQuerySchema.extend({ workspace_id: z.string().uuid().optional() });

export function agentsRoutes(s: Services) {
  const { access, agents, apiKeys, config } = s;

  return new Hono<AppEnv>()
    .get("/", (c) => {
      const principal = c.get("principal");
      const query = parseQuery(c, listQuerySchema);
      let records: AgentRecord[];
      if (principal.kind === "apiKey") {
        const own = s.store.agents.get(principal.key.agentId);
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
      const page = paginate(c, records, query, config.trustProxy);
      const results = page.results.map((a) => agents.toAgentJson(a));
      return c.body(pageJson({ ...page, results }), 200, { "Content-Type": "application/json" });
    })
    .post("/", async (c) => {
      const user = access.requireUser(c.get("principal"));
      const body = await readJson(c, createAgentRequestSchema);
      const workspaceId = body.workspaceId ?? access.defaultWorkspaceId(user.id);
      access.requireWorkspace(c.get("principal"), workspaceId, "editor");
      return c.json(agents.toAgent(await agents.create(workspaceId, body)), 201);
    })
    .get("/:id/", (c) => {
      const agent = access.agent(c.get("principal"), pathId(c, "id", "agent"), "read");
      return c.json(agents.toAgent(agent));
    })
    .patch("/:id/", async (c) => {
      const agent = access.agent(c.get("principal"), pathId(c, "id", "agent"), "write");
      const body = await readJson(c, updateAgentRequestSchema);
      return c.json(agents.toAgent(await agents.update(agent, body)));
    })
    .delete("/:id/", async (c) => {
      const principal = c.get("principal");
      access.requireUser(principal); // a key cannot delete its own agent
      const agent = access.agent(principal, pathId(c, "id", "agent"), "write");
      await agents.remove(agent);
      await s.conversations.removeForAgent(agent.id);
      return c.body(null, 204);
    })
    .get("/:id/api-keys/", (c) => {
      access.requireUser(c.get("principal"));
      const agent = access.agent(c.get("principal"), pathId(c, "id", "agent"), "manageKeys");
      const results = apiKeys.list(agent.id);
      return c.json({ count: results.length, next: null, previous: null, results });
    })
    .post("/:id/api-keys/", async (c) => {
      access.requireUser(c.get("principal"));
      const agent = access.agent(c.get("principal"), pathId(c, "id", "agent"), "manageKeys");
      const body = await readJson(c, createApiKeyRequestSchema);
      return c.json(await apiKeys.create(agent, body.name), 201);
    })
    .delete("/:id/api-keys/:keyId/", async (c) => {
      access.requireUser(c.get("principal"));
      const agent = access.agent(c.get("principal"), pathId(c, "id", "agent"), "manageKeys");
      await apiKeys.revoke(agent.id, pathId(c, "keyId", "api_key"));
      return c.body(null, 204);
    });
}
