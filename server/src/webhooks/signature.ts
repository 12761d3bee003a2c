import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A new signing secret: `whsec_` and 32 random bytes. */
export function createWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** The `Lore-Signature` header value: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${mac}`;
}

/**
 * What a receiver does: recompute the HMAC over the raw body, compare in constant time, and refuse
 * timestamps older than the tolerance (replays). Any of several `v1=` values may match (secret rotation).
 */
export function verifyWebhook(
  secret: string,
  header: string,
  body: string,
  toleranceSeconds = 300,
  now = Date.now(),
): boolean {
  const parts = header.split(",").map((p) => p.trim().split("="));
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(`${t}.${body}`).digest("hex"));
  return parts.some(
    ([k, v]) =>
      k === "v1" &&
      v !== undefined &&
      v.length === expected.length &&
      timingSafeEqual(Buffer.from(v), expected),
  );
}
