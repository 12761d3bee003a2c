import { setTimeout } from "node:timers/promises";
import type { LoginRequest, LoginResponse, RefreshResponse } from "@lore/shared";
import { AppError } from "../errors.ts";
import type { UserRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";
import { dummyHashPromise, verifyPassword } from "./passwords.ts";
import type { TokenSigner } from "./tokens.ts";
import { toUser, type UsersService } from "./users-service.ts";

const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** The account slow-down: the first wait past the limit, doubling with each further failure, and its ceiling. */
const SLOWDOWN_BASE_MS = 250;
const SLOWDOWN_MAX_MS = 10_000;

/**
 * Counts failed logins per (account, IP) pair, per IP and per account, each in a 15-minute window.
 * A pair or an IP past its limit is refused; an account past it is only slowed down, so failures
 * sent by someone else never lock its owner out.
 */
class LoginThrottle {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limit: number) {}

  /** Throws 429 for a locked pair or IP; otherwise the milliseconds the attempt waits before it is checked. */
  check(account: string, ip: string): number {
    const now = Date.now();
    this.refuseOver(`ip:${ip}`, this.limit * 5, "login_failures_per_ip", now);
    this.refuseOver(`pair:${account}|${ip}`, this.limit, "login_failures_per_account_ip", now);
    const failed = this.count(`account:${account}`, now);
    if (failed < this.limit) return 0;
    return Math.min(SLOWDOWN_MAX_MS, SLOWDOWN_BASE_MS * 2 ** (failed - this.limit));
  }

  fail(account: string, ip: string): void {
    const now = Date.now();
    for (const key of [`ip:${ip}`, `pair:${account}|${ip}`, `account:${account}`]) {
      const entry = this.failures.get(key);
      if (!entry || entry.resetAt <= now)
        this.failures.set(key, { count: 1, resetAt: now + FAILURE_WINDOW_MS });
      else entry.count += 1;
    }
    if (this.failures.size > 100_000) {
      for (const [k, v] of this.failures) if (v.resetAt <= now) this.failures.delete(k);
    }
  }

  /** The right password from this IP: its pair starts over (the account's slow-down decays with its window). */
  succeed(account: string, ip: string): void {
    this.failures.delete(`pair:${account}|${ip}`);
  }

  private count(key: string, now: number): number {
    const entry = this.failures.get(key);
    return entry && entry.resetAt > now ? entry.count : 0;
  }

  private refuseOver(key: string, limit: number, name: string, now: number): void {
    if (this.count(key, now) < limit) return;
    const retryAfter = Math.ceil(((this.failures.get(key)?.resetAt ?? now) - now) / 1000);
    throw new AppError(
      "rate_limited",
      "Too many failed logins; try again later",
      { limit: name, retryAfter },
      { "Retry-After": String(retryAfter) },
    );
  }
}

export interface AuthOptions {
  loginFailureLimit: number;
  refreshRotation: { enabled: boolean; reuseGraceSeconds: number };
}

export class AuthService {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly store: Store,
    private readonly users: UsersService,
    private readonly tokens: TokenSigner,
    private readonly options: AuthOptions,
  ) {
    this.throttle = new LoginThrottle(options.loginFailureLimit);
  }

  async login(input: LoginRequest, clientIp: string): Promise<LoginResponse> {
    const wait = this.throttle.check(input.email, clientIp);
    if (wait > 0) await setTimeout(wait);
    const user = this.users.findByEmail(input.email);
    const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHashPromise));
    if (!user || !ok) {
      this.throttle.fail(input.email, clientIp);
      throw new AppError("invalid_credentials", "The email or password is incorrect");
    }
    this.throttle.succeed(input.email, clientIp);
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
    const use = await this.store.usedTokens.transact(() => {
      const spent = this.store.usedTokens.get(claims.jti);
      if (spent) {
        // Records from before the grace period existed carry no spentAt: NaN is never within it.
        const within = now - Date.parse(spent.spentAt ?? "") <= rotation.reuseGraceSeconds * 1000;
        return { rows: [], result: within ? "again" : "replayed" };
      }
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
