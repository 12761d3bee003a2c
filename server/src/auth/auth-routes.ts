import { loginRequestSchema, refreshRequestSchema, type Workspace } from "@lore/shared";
import { Hono } from "hono";
import type { AppEnv } from "../http/principal.ts";
import { readJson } from "../http/validate.ts";
import type { Services } from "../services.ts";
import { toUser } from "./users-service.ts";

export function authRoutes(s: Services) {
  return new Hono<AppEnv>()
    .post("/login/", async (c) => {
      const body = await readJson(c, loginRequestSchema);
      return c.json(await s.auth.login(body, c.get("clientIp")));
    })
    .post("/token/refresh/", async (c) => {
      const body = await readJson(c, refreshRequestSchema);
      return c.json(await s.auth.refresh(body.refresh));
    })
    .post("/logout/", async (c) => {
      await s.auth.logout(s.access.requireUser(c.get("principal")));
      return c.body(null, 204);
    })
    .get("/me/", (c) => {
      const user = s.access.requireUser(c.get("principal"));
      const workspaces: Workspace[] = s.access.workspacesOf(user.id).map(({ workspace, role }) => ({
        id: workspace.id,
        name: workspace.name,
        role,
        createdAt: workspace.createdAt,
      }));
      return c.json({ user: toUser(user), workspaces });
    });
}
