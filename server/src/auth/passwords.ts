import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const KEY_LENGTH = 64;
const COST = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, COST, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`, all base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, , , , salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A hash of a random password, so unknown emails take as long as wrong passwords. */
export const dummyHashPromise: Promise<string> = hashPassword(randomBytes(16).toString("hex"));

/** The password policy applied when a password is set: the messages name what is missing. */
export function checkPasswordPolicy(password: string, email?: string): string[] {
  const problems: string[] = [];
  if (password.length < 10) problems.push("must be at least 10 characters");
  if (password.length > 1024) problems.push("must be at most 1024 characters");
  if (new Set(password).size < 4) problems.push("must use at least 4 different characters");
  if (email && password.toLowerCase().includes(email.split("@")[0]?.toLowerCase() || "\u0000")) {
    problems.push("must not contain the email name");
  }
  if (/^(password|123456|qwerty|letmein)/i.test(password)) problems.push("is too common");
  return problems;
}
