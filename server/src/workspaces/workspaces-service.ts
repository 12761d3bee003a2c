import { randomUUID } from "node:crypto";
import type { Invitation, InvitationPreview, Member, Role, Workspace } from "@lore/shared";
import type { Access } from "../auth/access.ts";
import type { UsersService } from "../auth/users-service.ts";
import { AppError, notFound } from "../errors.ts";
import type { InvitationRecord, MembershipRecord, UserRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

/** How long an invitation waits for its invitee. */
const INVITATION_TTL_MS = 7 * 86_400_000;

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

  /**
   * Invites an email to the workspace; only owners invite owners. Nobody joins without accepting,
   * and the answer is the same whether the email belongs to a user or not.
   */
  async invite(
    workspaceId: string,
    inviter: UserRecord,
    myRole: Role,
    input: { email: string; role: Role },
  ): Promise<Invitation> {
    if (input.role === "owner" && myRole !== "owner")
      throw new AppError("permission_denied", "Only owners can invite owners");
    const now = new Date();
    const record: InvitationRecord = {
      id: randomUUID(),
      workspaceId,
      email: input.email,
      role: input.role,
      invitedBy: inviter.id,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    };
    await this.forgetExpiredInvitations(workspaceId);
    await this.store.invitations.transact(() => {
      const user = this.users.findByEmail(input.email);
      if (user && this.store.memberships.find((m) => m.workspaceId === workspaceId && m.userId === user.id)) {
        throw new AppError("conflict", "This user is already a member", { userId: user.id });
      }
      const pending = this.pendingIn(workspaceId).find((i) => i.email === input.email);
      if (pending) {
        throw new AppError("conflict", "This email is already invited", { invitationId: pending.id });
      }
      return { rows: [record], result: null };
    });
    return this.toInvitation(record);
  }

  /** The workspace's invitations not yet accepted, declined or expired. */
  invitations(workspaceId: string): Invitation[] {
    return this.pendingIn(workspaceId).map((i) => this.toInvitation(i));
  }

  /** The invitations waiting for this user's email. */
  invitationsFor(user: UserRecord): Invitation[] {
    const now = new Date().toISOString();
    return this.store.invitations
      .filter((i) => i.email === user.email && i.expiresAt > now)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((i) => this.toInvitation(i));
  }

  /** Takes back a pending invitation of the workspace. */
  async revokeInvitation(workspaceId: string, invitationId: string): Promise<void> {
    const invitation = this.pendingIn(workspaceId).find((i) => i.id === invitationId);
    if (!invitation) throw notFound("invitation", invitationId);
    await this.store.invitations.delete([invitation.id]);
  }

  /**
   * The invitee joins with the invited role (a member already keeps their role), if the inviter is
   * still a member whose role may grant it (admin, owner for owner): else 403 (issue #34).
   */
  async accept(user: UserRecord, invitationId: string): Promise<Workspace> {
    const invitation = this.invitationOf(user, invitationId);
    const workspace = this.store.workspaces.get(invitation.workspaceId);
    if (!workspace) throw notFound("invitation", invitationId);
    const membership = await this.store.memberships.transact(() => {
      // The grant is the inviter's: it holds only while they are a member who may still grant the role.
      const required: Role = invitation.role === "owner" ? "owner" : "admin";
      const inviterRole = this.access.roleIn(invitation.invitedBy, workspace.id);
      if (!inviterRole || !this.access.atLeast(inviterRole, required)) {
        throw new AppError(
          "permission_denied",
          "Whoever invited you can no longer grant this role; ask the workspace for a new invitation",
          { required },
        );
      }
      const existing = this.store.memberships.find(
        (m) => m.workspaceId === workspace.id && m.userId === user.id,
      );
      if (existing) return { rows: [], result: existing };
      const created: MembershipRecord = {
        id: randomUUID(),
        workspaceId: workspace.id,
        userId: user.id,
        role: invitation.role,
        createdAt: new Date().toISOString(),
      };
      return { rows: [created], result: created };
    });
    await this.store.invitations.delete([invitation.id]);
    return { id: workspace.id, name: workspace.name, role: membership.role, createdAt: workspace.createdAt };
  }

  /** What an invitation link shows before logging in; unknown or expired is 404. */
  preview(invitationId: string): InvitationPreview {
    const i = this.store.invitations.get(invitationId);
    if (!i || i.expiresAt <= new Date().toISOString()) throw notFound("invitation", invitationId);
    const { workspaceName, email, role, invitedBy, expiresAt } = this.toInvitation(i);
    const accountExists = this.users.findByEmail(email) !== undefined;
    return { workspaceName, email, role, invitedBy, expiresAt, accountExists };
  }

  /**
   * A new person's account for the invited email, joined to the workspace: the link is the proof
   * (it went to that address). An email that has an account already logs in instead (409).
   */
  async signUp(invitationId: string, input: { firstName: string; lastName: string; password: string }) {
    const { email, accountExists } = this.preview(invitationId);
    if (accountExists)
      throw new AppError("conflict", "This e-mail address has an account: log in to accept", {
        field: "email",
      });
    const user = await this.users.createUser({ email, ...input });
    const workspace = await this.accept(user, invitationId);
    return { user, workspace };
  }

  async decline(user: UserRecord, invitationId: string): Promise<void> {
    await this.store.invitations.delete([this.invitationOf(user, invitationId).id]);
  }

  /** A pending invitation to this user's email; anyone else's is 404, as if it did not exist. */
  private invitationOf(user: UserRecord, invitationId: string): InvitationRecord {
    const invitation = this.store.invitations.get(invitationId);
    if (!invitation || invitation.email !== user.email || invitation.expiresAt <= new Date().toISOString())
      throw notFound("invitation", invitationId);
    return invitation;
  }

  private pendingIn(workspaceId: string): InvitationRecord[] {
    const now = new Date().toISOString();
    return this.store.invitations
      .filter((i) => i.workspaceId === workspaceId && i.expiresAt > now)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  private async forgetExpiredInvitations(workspaceId: string): Promise<void> {
    const now = new Date().toISOString();
    const expired = this.store.invitations.filter((i) => i.workspaceId === workspaceId && i.expiresAt <= now);
    if (expired.length > 0) await this.store.invitations.delete(expired.map((i) => i.id));
  }

  private toInvitation(i: InvitationRecord): Invitation {
    return {
      id: i.id,
      workspaceId: i.workspaceId,
      workspaceName: this.store.workspaces.get(i.workspaceId)?.name ?? "",
      email: i.email,
      role: i.role,
      invitedBy: this.store.users.get(i.invitedBy)?.email ?? "",
      createdAt: i.createdAt,
      expiresAt: i.expiresAt,
    };
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
