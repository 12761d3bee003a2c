import { randomUUID } from "node:crypto";
import type { Member, Role, Workspace } from "@lore/shared";
import type { Access } from "../auth/access.ts";
import type { UsersService } from "../auth/users-service.ts";
import { AppError, notFound } from "../errors.ts";
import type { MembershipRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

/** Workspaces and their members: who belongs where with which role, and the rules for changing it. */
export class WorkspacesService {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly users: UsersService,
  ) {}

  /** The user's workspaces with their role in each. */
  listFor(userId: string): Workspace[] {
    return this.access.workspacesOf(userId).map(({ workspace, role }) => ({
      id: workspace.id,
      name: workspace.name,
      role,
      createdAt: workspace.createdAt,
    }));
  }

  /** A new shared workspace owned by its creator. */
  async create(ownerId: string, name: string): Promise<Workspace> {
    const createdAt = new Date().toISOString();
    const workspace = { id: randomUUID(), name, personal: false, createdAt };
    await this.store.workspaces.put(workspace);
    await this.store.memberships.put({
      id: randomUUID(),
      workspaceId: workspace.id,
      userId: ownerId,
      role: "owner",
      createdAt,
    });
    return { id: workspace.id, name, role: "owner", createdAt };
  }

  members(workspaceId: string): Member[] {
    return this.store.memberships.filter((m) => m.workspaceId === workspaceId).map((m) => this.toMember(m));
  }

  /** Adds an existing user by email; only owners add owners. */
  async addMember(workspaceId: string, myRole: Role, input: { email: string; role: Role }): Promise<Member> {
    if (input.role === "owner" && myRole !== "owner")
      throw new AppError("permission_denied", "Only owners can add owners");
    const user = this.users.findByEmail(input.email);
    if (!user) {
      throw new AppError("validation_error", "No user has this email", {
        fields: { email: ["no user with this email"] },
      });
    }
    const record: MembershipRecord = {
      id: randomUUID(),
      workspaceId,
      userId: user.id,
      role: input.role,
      createdAt: new Date().toISOString(),
    };
    await this.store.memberships.transact(() => {
      if (this.store.memberships.find((m) => m.workspaceId === workspaceId && m.userId === user.id)) {
        throw new AppError("conflict", "This user is already a member", { userId: user.id });
      }
      return { rows: [record], result: null };
    });
    return this.toMember(record);
  }

  /** A member of the workspace, else 404. */
  membership(workspaceId: string, userId: string): MembershipRecord {
    const m = this.store.memberships.find((x) => x.workspaceId === workspaceId && x.userId === userId);
    if (!m) throw notFound("member", userId);
    return m;
  }

  /** Only owners grant or change the owner role; the last owner stays. */
  async changeRole(target: MembershipRecord, myRole: Role, role: Role): Promise<Member> {
    if ((role === "owner" || target.role === "owner") && myRole !== "owner") {
      throw new AppError("permission_denied", "Only owners can grant or change the owner role");
    }
    if (target.role === "owner" && role !== "owner" && this.owners(target.workspaceId) <= 1) {
      throw new AppError("conflict", "A workspace keeps at least one owner");
    }
    return this.toMember(await this.store.memberships.put({ ...target, role }));
  }

  /** Only owners remove owners; the last owner stays. */
  async removeMember(target: MembershipRecord, myRole: Role): Promise<void> {
    if (target.role === "owner" && myRole !== "owner")
      throw new AppError("permission_denied", "Only owners can remove owners");
    if (target.role === "owner" && this.owners(target.workspaceId) <= 1)
      throw new AppError("conflict", "A workspace keeps at least one owner");
    await this.store.memberships.delete([target.id]);
  }

  private owners(workspaceId: string): number {
    return this.store.memberships.filter((m) => m.workspaceId === workspaceId && m.role === "owner").length;
  }

  private toMember(m: MembershipRecord): Member {
    const u = this.store.users.get(m.userId);
    return {
      userId: m.userId,
      email: u?.email ?? "",
      firstName: u?.firstName ?? "",
      lastName: u?.lastName ?? "",
      role: m.role,
    };
  }
}
