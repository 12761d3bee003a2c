import type { Role } from "@lore/shared";
import { AppError, notFound } from "../errors.ts";
import type { AgentRecord, UserRecord, WorkspaceRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import type { Principal } from "./principal.ts";

const roleRank: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

/** What a caller wants to do with an agent, and the least workspace role that allows it. */
export type AgentAction = "read" | "query" | "write" | "manageKeys";
const agentActionRole: Record<AgentAction, Role> = {
  read: "viewer",
  query: "viewer",
  write: "editor",
  manageKeys: "admin",
};
// An API key acts on its own agent only, and never manages keys.
const keyAllows: Record<AgentAction, boolean> = { read: true, query: true, write: true, manageKeys: false };

/** Tenancy and roles in one place: other tenants' resources are 404, too-low roles 403. */
export class Access {
  constructor(private readonly store: Store) {}

  roleIn(userId: string, workspaceId: string): Role | null {
    return (
      this.store.memberships.find((m) => m.userId === userId && m.workspaceId === workspaceId)?.role ?? null
    );
  }

  workspacesOf(userId: string): Array<{ workspace: WorkspaceRecord; role: Role }> {
    const out: Array<{ workspace: WorkspaceRecord; role: Role }> = [];
    for (const m of this.store.memberships.filter((m) => m.userId === userId)) {
      const workspace = this.store.workspaces.get(m.workspaceId);
      if (workspace) out.push({ workspace, role: m.role });
    }
    return out.sort((a, b) => a.workspace.createdAt.localeCompare(b.workspace.createdAt));
  }

  /** The workspace a user's new resources go to when none is named: their personal one, else the first. */
  defaultWorkspaceId(userId: string): string {
    const list = this.workspacesOf(userId);
    const chosen = list.find((w) => w.workspace.personal && w.role === "owner") ?? list[0];
    if (!chosen) throw new AppError("permission_denied", "You are not a member of any workspace");
    return chosen.workspace.id;
  }

  requireUser(principal: Principal): UserRecord {
    if (principal.kind === "user") return principal.user;
    if (principal.kind === "apiKey") {
      throw new AppError("permission_denied", "API keys can only be used on their own agent");
    }
    throw new AppError("not_authenticated", "Authentication is required");
  }

  /** The caller's role in a workspace, at least `minRole`; not a member → 404. */
  requireWorkspace(principal: Principal, workspaceId: string, minRole: Role): Role {
    const user = this.requireUser(principal);
    const role = this.roleIn(user.id, workspaceId);
    if (!role) throw notFound("workspace", workspaceId);
    if (roleRank[role] < roleRank[minRole]) {
      throw new AppError("permission_denied", `This needs the ${minRole} role in the workspace`, {
        required: minRole,
        role,
      });
    }
    return role;
  }

  atLeast(role: Role, minRole: Role): boolean {
    return roleRank[role] >= roleRank[minRole];
  }

  agent(principal: Principal, agentId: string, action: AgentAction): AgentRecord {
    if (principal.kind === "anonymous") throw new AppError("not_authenticated", "Authentication is required");
    if (principal.kind === "apiKey") {
      if (principal.key.agentId !== agentId || !keyAllows[action]) {
        throw new AppError("permission_denied", "This API key does not allow this", { agentId });
      }
      const agent = this.store.agents.get(agentId);
      if (!agent) throw notFound("agent", agentId);
      return agent;
    }
    const agent = this.store.agents.get(agentId);
    const role = agent ? this.roleIn(principal.user.id, agent.workspaceId) : null;
    if (!agent || !role) throw notFound("agent", agentId);
    const needed = agentActionRole[action];
    if (roleRank[role] < roleRank[needed]) {
      throw new AppError("permission_denied", `This needs the ${needed} role in the workspace`, {
        required: needed,
        role,
      });
    }
    return agent;
  }
}
