import { createSecretKey, type KeyObject, randomUUID } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";
import { AppError } from "../errors.ts";

/** Verified tokens kept: enough for the clients active at once; ~0.8 KB each. */
const VERIFIED_CACHE_SIZE = 2_000;

export type TokenKind = "access" | "refresh" | "visitor";

export interface TokenClaims {
  sub: string;
  kind: TokenKind;
  /** The user's token version at issue (logout bumps it); for visitors, the agent id. */
  ver: number;
  aud?: string;
}

/** Signs and checks Lore's HS256 JWTs; the token kind is part of the claims so one can't stand in for another. */
export class TokenSigner {
  private readonly key: KeyObject;
  // Verified tokens, so a client's repeated requests skip the HMAC: the most recently used ones, in
  // use order (a hit moves to the end, the least recently used go first).
  private readonly verified = new Map<string, TokenClaims & { exp: number; jti: string }>();

  constructor(
    secret: string,
    private readonly ttl: Record<TokenKind, number>,
  ) {
    this.key = createSecretKey(Buffer.from(secret, "utf8"));
  }

  sign(claims: TokenClaims): Promise<string> {
    const jwt = new SignJWT({ kind: claims.kind, ver: claims.ver })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(claims.sub)
      .setIssuedAt()
      .setJti(randomUUID())
      .setIssuer("lore")
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.ttl[claims.kind]);
    if (claims.aud) jwt.setAudience(claims.aud);
    return jwt.sign(this.key);
  }

  /** Verifies signature, algorithm, expiry and kind; maps every failure to the contract's 401 codes. */
  async verify(
    token: string,
    kind: TokenKind,
    audience?: string,
  ): Promise<TokenClaims & { exp: number; jti: string }> {
    const cached = this.verified.get(token);
    if (cached && cached.kind === kind && cached.aud === audience && cached.exp * 1000 > Date.now()) {
      this.verified.delete(token);
      this.verified.set(token, cached);
      return cached;
    }
    const claims = await this.verifyUncached(token, kind, audience);
    this.verified.set(token, { ...claims, ...(audience ? { aud: audience } : {}) });
    for (const oldest of this.verified.keys()) {
      if (this.verified.size <= VERIFIED_CACHE_SIZE) break;
      this.verified.delete(oldest);
    }
    return claims;
  }

  private async verifyUncached(
    token: string,
    kind: TokenKind,
    audience?: string,
  ): Promise<TokenClaims & { exp: number; jti: string }> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: "lore",
        ...(audience ? { audience } : {}),
      });
      if (payload.kind !== kind || typeof payload.sub !== "string" || typeof payload.ver !== "number") {
        throw new AppError("invalid_token", `This is not a valid ${kind} token`);
      }
      return { sub: payload.sub, kind, ver: payload.ver, exp: payload.exp ?? 0, jti: payload.jti ?? "" };
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof errors.JWTExpired) {
        const exp = typeof error.payload.exp === "number" ? error.payload.exp : 0;
        throw new AppError("token_expired", "The token has expired", {
          expired_at: new Date(exp * 1000).toISOString(),
        });
      }
      throw new AppError("invalid_token", "The token is invalid");
    }
  }
}
