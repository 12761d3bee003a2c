import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const PREFIX = "enc:v1:";

/** AES-256-GCM for secrets at rest (Notion tokens, webhook secrets), keyed from the server secret. */
export class SecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(hkdfSync("sha256", serverSecret, "lore-secret-box", "v1", 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return `${PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
  }

  open(sealed: string): string {
    if (!sealed.startsWith(PREFIX)) return sealed;
    const raw = Buffer.from(sealed.slice(PREFIX.length), "base64url");
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  }
}

/** What a secret looks like in API responses: never whole. */
export function maskSecret(plain: string): string {
  return plain.length <= 8 ? "••••" : `${plain.slice(0, 7)}…${plain.slice(-4)}`;
}
