import { randomUUID } from "node:crypto";
import type { User } from "@lore/shared";
import { AppError } from "../errors.ts";
import type { UserRecord, WorkspaceRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { checkPasswordPolicy, hashPassword } from "./passwords.ts";

export function toUser(u: UserRecord): User {
  return { id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName };
}

export interface CreateUserInput {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
}

/** Users and their personal workspace. Email uniqueness is checked and written in one queue turn. */
export class UsersService {
  constructor(private readonly store: Store) {}

  findByEmail(email: string): UserRecord | undefined {
    const wanted = email.trim().toLowerCase();
    return this.store.users.find((u) => u.email === wanted);
  }

  async createUser(input: CreateUserInput): Promise<UserRecord> {
    const email = input.email.trim().toLowerCase();
    const problems = checkPasswordPolicy(input.password, email);
    if (problems.length > 0) {
      throw new AppError("validation_error", "The password does not meet the policy", {
        fields: { password: problems },
      });
    }
    const passwordHash = await hashPassword(input.password);
    const now = new Date().toISOString();
    const user: UserRecord = {
      id: randomUUID(),
      email,
      firstName: input.firstName ?? "",
      lastName: input.lastName ?? "",
      passwordHash,
      tokenVersion: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.users.transact(() => {
      if (this.findByEmail(email)) {
        throw new AppError("conflict", "A user with this email already exists", { field: "email" });
      }
      return { rows: [user], result: user };
    });
    const workspace: WorkspaceRecord = {
      id: randomUUID(),
      name: `${input.firstName || email.split("@")[0]}'s workspace`,
      personal: true,
      createdAt: now,
    };
    await this.store.workspaces.put(workspace);
    await this.store.memberships.put({
      id: randomUUID(),
      workspaceId: workspace.id,
      userId: user.id,
      role: "owner",
      createdAt: now,
    });
    return user;
  }

  async setPassword(email: string, password: string): Promise<UserRecord> {
    const user = this.findByEmail(email);
    if (!user) throw new AppError("not_found", "User not found", { resource: "user", id: email });
    const problems = checkPasswordPolicy(password, user.email);
    if (problems.length > 0) {
      throw new AppError("validation_error", "The password does not meet the policy", {
        fields: { password: problems },
      });
    }
    const updated = {
      ...user,
      passwordHash: await hashPassword(password),
      tokenVersion: user.tokenVersion + 1,
      updatedAt: new Date().toISOString(),
    };
    return this.store.users.put(updated);
  }

  async bumpTokenVersion(userId: string): Promise<void> {
    await this.store.users.transact(() => {
      const user = this.store.users.get(userId);
      if (!user) return { rows: [], result: undefined };
      return {
        rows: [{ ...user, tokenVersion: user.tokenVersion + 1, updatedAt: new Date().toISOString() }],
        result: undefined,
      };
    });
  }

  /** Creates the configured admin on an empty store (first run). */
  async ensureAdmin(admin: { email: string; password: string } | null): Promise<UserRecord | null> {
    if (!admin || this.store.users.size > 0) return null;
    return this.createUser({
      email: admin.email,
      password: admin.password,
      firstName: "Admin",
      lastName: "",
    });
  }
}
