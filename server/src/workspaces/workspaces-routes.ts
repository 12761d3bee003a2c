import { randomUUID } from "node:crypto";
import {
  addMemberRequestSchema,
  createWorkspaceRequestSchema,
  type Member,
  updateMemberRequestSchema,
  type Workspace,
} from "@lore/shared";
import { Hono } from "hono";
import { AppError, notFound } from "../errors.ts";
import type { AppEnv } from "../http/principal.ts";
import { pathId, readJson } from "../http/validate.ts";
import type { Services } from "../services.ts";
import type { MembershipRecord } from "../store/records.ts";

export function workspacesRoutes(s: Services) {
  const { store, access } = s;

  const toMember = (m: MembershipRecord): Member => {
    const u = store.users.get(m.userId);
    return {
      userId: m.userId,
      email: u?.email ?? "",
      firstName: u?.firstName ?? "",
      lastName: u?.lastName ?? "",
      role: m.role,
    };
  };
  const membership = (workspaceId: string, userId: string) => {
    const m = store.memberships.find((x) => x.workspaceId === workspaceId && x.userId === userId);
    if (!m) throw notFound("member", userId);
    return m;
  };
  const owners = (workspaceId: string) =>
    store.memberships.filter((m) => m.workspaceId === workspaceId && m.role === "owner").length;

  return new Hono<AppEnv>()
    .get("/", (c) => {
      const user = access.requireUser(c.get("principal"));
      const results: Workspace[] = access.workspacesOf(user.id).map(({ workspace, role }) => ({
        id: workspace.id,
        name: workspace.name,
        role,
        createdAt: workspace.createdAt,
      }));
      return c.json({ count: results.length, next: null, previous: null, results });
    })
    .post("/", async (c) => {
      const user = access.requireUser(c.get("principal"));
      const body = await readJson(c, createWorkspaceRequestSchema);
      const now = new Date().toISOString();
      const workspace = { id: randomUUID(), name: body.name, personal: false, createdAt: now };
      await store.workspaces.put(workspace);
      await store.memberships.put({
        id: randomUUID(),
        workspaceId: workspace.id,
        userId: user.id,
        role: "owner",
        createdAt: now,
      });
      return c.json(
        { id: workspace.id, name: workspace.name, role: "owner", createdAt: now } satisfies Workspace,
        201,
      );
    })
    .get("/:id/members/", (c) => {
      const id = pathId(c, "id", "workspace");
      access.requireWorkspace(c.get("principal"), id, "viewer");
      const results = store.memberships.filter((m) => m.workspaceId === id).map(toMember);
      return c.json({ count: results.length, next: null, previous: null, results });
    })
    .post("/:id/members/", async (c) => {
      const id = pathId(c, "id", "workspace");
      const myRole = access.requireWorkspace(c.get("principal"), id, "admin");
      const body = await readJson(c, addMemberRequestSchema);
      if (body.role === "owner" && myRole !== "owner")
        throw new AppError("permission_denied", "Only owners can add owners");
      const user = s.users.findByEmail(body.email);
      if (!user) {
        throw new AppError("validation_error", "No user has this email", {
          fields: { email: ["no user with this email"] },
        });
      }
      const record: MembershipRecord = {
        id: randomUUID(),
        workspaceId: id,
        userId: user.id,
        role: body.role,
        createdAt: new Date().toISOString(),
      };
      await store.memberships.transact(() => {
        if (store.memberships.find((m) => m.workspaceId === id && m.userId === user.id)) {
          throw new AppError("conflict", "This user is already a member", { userId: user.id });
        }
        return { rows: [record], result: null };
      });
      return c.json(toMember(record), 201);
    })
    .patch("/:id/members/:userId/", async (c) => {
      const id = pathId(c, "id", "workspace");
      const myRole = access.requireWorkspace(c.get("principal"), id, "admin");
      const target = membership(id, pathId(c, "userId", "member"));
      const body = await readJson(c, updateMemberRequestSchema);
      if ((body.role === "owner" || target.role === "owner") && myRole !== "owner") {
        throw new AppError("permission_denied", "Only owners can grant or change the owner role");
      }
      if (target.role === "owner" && body.role !== "owner" && owners(id) <= 1) {
        throw new AppError("conflict", "A workspace keeps at least one owner");
      }
      const updated = await store.memberships.put({ ...target, role: body.role });
      return c.json(toMember(updated));
    })
    .delete("/:id/members/:userId/", async (c) => {
      const id = pathId(c, "id", "workspace");
      const principal = c.get("principal");
      const me = access.requireUser(principal);
      access.requireWorkspace(principal, id, "viewer");
      const target = membership(id, pathId(c, "userId", "member"));
      // Anyone may leave; removing others needs admin, removing an owner needs owner.
      const myRole = access.requireWorkspace(principal, id, target.userId === me.id ? "viewer" : "admin");
      if (target.role === "owner" && myRole !== "owner")
        throw new AppError("permission_denied", "Only owners can remove owners");
      if (target.role === "owner" && owners(id) <= 1)
        throw new AppError("conflict", "A workspace keeps at least one owner");
      await store.memberships.delete([target.id]);
      return c.body(null, 204);
    });
}
