import type { LoginRequest, LoginResponse } from "@lore/shared";
import { AppError } from "../errors.ts";
import type { UserRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { dummyHashPromise, verifyPassword } from "./passwords.ts";
import type { TokenSigner } from "./tokens.ts";
import { toUser, type UsersService } from "./users-service.ts";

const FAILURE_WINDOW_MS = 15 * 60 * 1000;

/** Counts failed logins per account and per IP; past the limit, logins are refused for the window. */
class LoginThrottle {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limit: number) {}

  check(keys: string[]): void {
    const now = Date.now();
    for (const key of keys) {
      const entry = this.failures.get(key);
      if (entry && entry.resetAt > now && entry.count >= this.limit * (key.startsWith("ip:") ? 5 : 1)) {
        const retryAfter = Math.ceil((entry.resetAt - now) / 1000);
        throw new AppError(
          "rate_limited",
          "Too many failed logins; try again later",
          {
            limit: key.startsWith("ip:") ? "login_failures_per_ip" : "login_failures_per_account",
            retryAfter,
          },
          { "Retry-After": String(retryAfter) },
        );
      }
    }
  }

  fail(keys: string[]): void {
    const now = Date.now();
    for (const key of keys) {
      const entry = this.failures.get(key);
      if (!entry || entry.resetAt <= now)
        this.failures.set(key, { count: 1, resetAt: now + FAILURE_WINDOW_MS });
      else entry.count += 1;
    }
    if (this.failures.size > 100_000) {
      for (const [k, v] of this.failures) if (v.resetAt <= now) this.failures.delete(k);
    }
  }

  clear(key: string): void {
    this.failures.delete(key);
  }
}

export class AuthService {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly store: Store,
    private readonly users: UsersService,
    private readonly tokens: TokenSigner,
    loginFailureLimit: number,
  ) {
    this.throttle = new LoginThrottle(loginFailureLimit);
  }

  async login(input: LoginRequest, clientIp: string): Promise<LoginResponse> {
    const keys = [`account:${input.email}`, `ip:${clientIp}`];
    this.throttle.check(keys);
    const user = this.users.findByEmail(input.email);
    const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHashPromise));
    if (!user || !ok) {
      this.throttle.fail(keys);
      throw new AppError("invalid_credentials", "The email or password is incorrect");
    }
    this.throttle.clear(`account:${input.email}`);
    return { ...(await this.issue(user)), user: toUser(user) };
  }

  /**
   * Rotates: the presented refresh token is spent. Presenting a spent one again means it leaked,
   * so every token of the user is revoked (as by logout).
   */
  async refresh(refreshToken: string): Promise<{ access: string; refresh: string }> {
    const claims = await this.tokens.verify(refreshToken, "refresh");
    const user = this.store.users.get(claims.sub);
    if (!user || user.tokenVersion !== claims.ver)
      throw new AppError("invalid_token", "The refresh token is no longer valid");
    const fresh = await this.store.usedTokens.transact(() => {
      if (this.store.usedTokens.get(claims.jti)) return { rows: [], result: false };
      const spent = { id: claims.jti, userId: user.id, expiresAt: new Date(claims.exp * 1000).toISOString() };
      return { rows: [spent], result: true };
    });
    if (!fresh) {
      await this.users.bumpTokenVersion(user.id);
      throw new AppError("invalid_token", "This refresh token was already used; sign in again");
    }
    this.forgetExpiredTokens();
    return this.issue(user);
  }

  private forgetExpiredTokens(): void {
    const now = new Date().toISOString();
    const expired = this.store.usedTokens.filter((t) => t.expiresAt < now).map((t) => t.id);
    if (expired.length > 0) void this.store.usedTokens.delete(expired).catch(() => undefined);
  }

  /** Resolves an access token to its user; logout and deletion make every earlier token invalid. */
  async userFromAccessToken(token: string): Promise<UserRecord> {
    const claims = await this.tokens.verify(token, "access");
    const user = this.store.users.get(claims.sub);
    if (!user || user.tokenVersion !== claims.ver)
      throw new AppError("invalid_token", "The token is no longer valid");
    return user;
  }

  async logout(user: UserRecord): Promise<void> {
    await this.users.bumpTokenVersion(user.id);
  }

  private async issue(user: UserRecord): Promise<{ access: string; refresh: string }> {
    const [access, refresh] = await Promise.all([
      this.tokens.sign({ sub: user.id, kind: "access", ver: user.tokenVersion }),
      this.tokens.sign({ sub: user.id, kind: "refresh", ver: user.tokenVersion }),
    ]);
    return { access, refresh };
  }
}
