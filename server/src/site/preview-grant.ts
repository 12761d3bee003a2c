import { createHmac, timingSafeEqual } from "node:crypto";

/** How long a preview opened from the console keeps working (page and widget requests). */
export const PREVIEW_TTL_SECONDS = 3600;

export interface PreviewClaims {
  agentId: string;
  widgetId: string;
  /** Seconds since the epoch. */
  exp: number;
}

// A key of its own, derived from the JWT secret: a grant is never mistaken for a token, nor the reverse.
function keyOf(secret: string): Buffer {
  return createHmac("sha256", secret).update("lore preview grant v1").digest();
}

/** `payload.signature`, both base64url: the agent's widget may be shown on the demo page until `exp`. */
export function signPreviewGrant(secret: string, claims: PreviewClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const signature = createHmac("sha256", keyOf(secret)).update(payload).digest("base64url");
  return `${payload}.${signature}`;
}

/** The grant's claims when its signature holds and it has not expired; null otherwise. */
export function verifyPreviewGrant(
  secret: string,
  grant: string | null | undefined,
  now = Date.now(),
): PreviewClaims | null {
  if (!grant || grant.length > 1000) return null;
  const [payload = "", signature = "", extra] = grant.split(".");
  if (extra !== undefined) return null;
  const expected = createHmac("sha256", keyOf(secret)).update(payload).digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Partial<PreviewClaims>;
    if (
      typeof claims.agentId !== "string" ||
      typeof claims.widgetId !== "string" ||
      typeof claims.exp !== "number"
    )
      return null;
    return claims.exp * 1000 > now
      ? { agentId: claims.agentId, widgetId: claims.widgetId, exp: claims.exp }
      : null;
  } catch {
    return null;
  }
}

/** The preview grant a request from the demo page carries: the `preview` parameter of its page URL (Referer). */
export function previewGrantOfPage(referer: string | undefined): string | null {
  if (!referer) return null;
  try {
    return new URL(referer).searchParams.get("preview");
  } catch {
    return null;
  }
}
