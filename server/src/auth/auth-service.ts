import { setTimeout } from "node:timers/promises";
import type { LoginRequest, LoginResponse, RefreshResponse } from "@lore/shared";
import { AppError } from "../errors.ts";
import type { UserRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { type FailureCounter, LoginThrottle } from "./login-throttle.ts";
import { dummyHashPromise, verifyPassword } from "./passwords.ts";
import type { SpentTokens } from "./spent-tokens.ts";
import type { TokenSigner } from "./tokens.ts";
import { toUser, type UsersService } from "./users-service.ts";

export interface AuthOptions {
  loginFailureLimit: number;
  /** Where failed logins are counted: this process by default, Redis in shared mode. */
  loginFailures?: FailureCounter;
  refreshRotation: { enabled: boolean; reuseGraceSeconds: number };
  /** Shared mode: spent refresh tokens are decided in Redis, once for the fleet. */
  spentTokens?: SpentTokens;
}

export class AuthService {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly store: Store,
    private readonly users: UsersService,
    private readonly tokens: TokenSigner,
    private readonly options: AuthOptions,
  ) {
    this.throttle = new LoginThrottle(options.loginFailureLimit, options.loginFailures);
  }

  async login(input: LoginRequest, clientIp: string): Promise<LoginResponse> {
    const wait = await this.throttle.check(input.email, clientIp);
    if (wait > 0) await setTimeout(wait);
    const user = this.users.findByEmail(input.email);
    const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHashPromise));
    if (!user || !ok) {
      await this.throttle.fail(input.email, clientIp);
      throw new AppError("invalid_credentials", "The email or password is incorrect");
    }
    await this.throttle.succeed(input.email, clientIp);
    return { ...(await this.issuePair(user)), user: toUser(user) };
  }

  /**
   * A new access token. The refresh token stays valid until it expires or the user logs out, unless
   * rotation is on: then it is spent, a new one comes back, and presenting it again past the grace
   * period (two tabs refreshing at once) means it leaked, so every token of the user is revoked.
   */
  async refresh(refreshToken: string): Promise<RefreshResponse> {
    const claims = await this.tokens.verify(refreshToken, "refresh");
    const user = this.liveUser(claims);
    const rotation = this.options.refreshRotation;
    if (!rotation.enabled) return { access: await this.sign(user, "access") };
    const now = Date.now();
    // Redis unreachable: the table below decides, as on one process.
    const fleetFirst = await this.options.spentTokens
      ?.spend(claims.jti, now, claims.exp * 1000 - now)
      .catch(() => undefined);
    // A use that began before the first one was recorded (`now` is read before the awaits) is
    // concurrent with it: 0 ms apart, never negative, so a grace of 0 still refuses it. Records from
    // before the grace period existed carry no spentAt: NaN is never within it.
    const again = (firstSpentAt: number) =>
      Math.max(0, now - firstSpentAt) < rotation.reuseGraceSeconds * 1000 ? "again" : "replayed";
    const use = await this.store.usedTokens.transact(() => {
      // Another replica spent it first (its record may not have reached this one yet).
      if (fleetFirst !== undefined && fleetFirst !== null) return { rows: [], result: again(fleetFirst) };
      const spent = this.store.usedTokens.get(claims.jti);
      if (spent) return { rows: [], result: again(Date.parse(spent.spentAt ?? "")) };
      const record = {
        id: claims.jti,
        userId: user.id,
        expiresAt: new Date(claims.exp * 1000).toISOString(),
        spentAt: new Date(now).toISOString(),
      };
      return { rows: [record], result: "first" };
    });
    if (use === "replayed") {
      await this.users.bumpTokenVersion(user.id);
      throw new AppError("invalid_token", "This refresh token was already used; sign in again");
    }
    this.forgetExpiredTokens();
    return this.issuePair(user);
  }

  /** The cookie session's refresh: `refresh` and the user too, for the console to show who it is. */
  async refreshSession(
    refreshToken: string,
  ): Promise<{ access: string; refresh?: string; user: ReturnType<typeof toUser> }> {
    const result = await this.refresh(refreshToken);
    const claims = await this.tokens.verify(result.access, "access");
    return { ...result, user: toUser(this.liveUser(claims)) };
  }

  /** Logout by refresh token (the cookie session): false when the token was already no longer valid. */
  async logoutByRefresh(refreshToken: string): Promise<boolean> {
    try {
      const user = this.liveUser(await this.tokens.verify(refreshToken, "refresh"));
      await this.logout(user);
      return true;
    } catch (error) {
      if (error instanceof AppError) return false;
      throw error;
    }
  }

  private forgetExpiredTokens(): void {
    const now = new Date().toISOString();
    const expired = this.store.usedTokens.filter((t) => t.expiresAt < now).map((t) => t.id);
    if (expired.length > 0) void this.store.usedTokens.delete(expired).catch(() => undefined);
  }

  /** Resolves an access token to its user; logout and deletion make every earlier token invalid. */
  async userFromAccessToken(token: string): Promise<UserRecord> {
    return this.liveUser(await this.tokens.verify(token, "access"));
  }

  async logout(user: UserRecord): Promise<void> {
    await this.users.bumpTokenVersion(user.id);
  }

  /** The token's user, unless deleted or logged out since the token was issued. */
  private liveUser(claims: { sub: string; ver: number }): UserRecord {
    const user = this.store.users.get(claims.sub);
    if (!user || user.tokenVersion !== claims.ver)
      throw new AppError("invalid_token", "The token is no longer valid");
    return user;
  }

  private async issuePair(user: UserRecord): Promise<{ access: string; refresh: string }> {
    const [access, refresh] = await Promise.all([this.sign(user, "access"), this.sign(user, "refresh")]);
    return { access, refresh };
  }

  private sign(user: UserRecord, kind: "access" | "refresh"): Promise<string> {
    return this.tokens.sign({ sub: user.id, kind, ver: user.tokenVersion });
  }
}
