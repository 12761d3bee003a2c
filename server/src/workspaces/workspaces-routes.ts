import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./workspaces-api.ts";

export function workspacesRoutes({ access, workspaces }: Pick<Services, "access" | "workspaces">) {
  return [
    endpoint(api.listWorkspaces, (c) => {
      const results = workspaces.listFor(access.requireUser(c.get("principal")).id);
      return c.json({ count: results.length, next: null, previous: null, results });
    }),
    endpoint(api.createWorkspace, async (c, input) => {
      const user = access.requireUser(c.get("principal"));
      const body = await input.json();
      return c.json(await workspaces.create(user.id, body.name), 201);
    }),
    endpoint(api.listMembers, (c, input) => {
      const id = input.id("workspaceId");
      access.requireWorkspace(c.get("principal"), id, "viewer");
      const results = workspaces.members(id);
      return c.json({ count: results.length, next: null, previous: null, results });
    }),
    endpoint(api.addMember, async (c, input) => {
      const id = input.id("workspaceId");
      const myRole = access.requireWorkspace(c.get("principal"), id, "admin");
      return c.json(await workspaces.addMember(id, myRole, await input.json()), 201);
    }),
    endpoint(api.updateMember, async (c, input) => {
      const id = input.id("workspaceId");
      const myRole = access.requireWorkspace(c.get("principal"), id, "admin");
      const target = workspaces.membership(id, input.id("userId"));
      const body = await input.json();
      return c.json(await workspaces.changeRole(target, myRole, body.role));
    }),
    endpoint(api.removeMember, async (c, input) => {
      const id = input.id("workspaceId");
      const principal = c.get("principal");
      const me = access.requireUser(principal);
      access.requireWorkspace(principal, id, "viewer");
      const target = workspaces.membership(id, input.id("userId"));
      // Anyone may leave; removing others needs admin, removing an owner needs owner.
      const myRole = access.requireWorkspace(principal, id, target.userId === me.id ? "viewer" : "admin");
      await workspaces.removeMember(target, myRole);
      return c.body(null, 204);
    }),
  ];
}
