import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { ApiKey } from "@lore/shared";
import { AppError, notFound } from "../errors.ts";
import type { Logger } from "../log/logger.ts";
import type { AgentRecord, ApiKeyRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

const KEY_PREFIX = "lore_sk_";

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

export function toApiKey(k: ApiKeyRecord): ApiKey {
  return {
    id: k.id,
    agentId: k.agentId,
    name: k.name,
    prefix: k.prefix,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
  };
}

/** Agent API keys: shown once, stored as SHA-256, compared in constant time. */
export class ApiKeysService {
  private readonly byHash = new Map<string, ApiKeyRecord>();
  private readonly lastUsedFlush = new Map<string, string>();

  constructor(private readonly store: Store) {
    this.index();
    // Shared mode: keys created or revoked on another replica (after the table re-read them).
    store.feed.on("api_keys", async () => this.index());
  }

  private index(): void {
    this.byHash.clear();
    for (const k of this.store.apiKeys.all()) this.byHash.set(k.hash, k);
  }

  async create(agent: AgentRecord, name: string): Promise<ApiKey & { key: string }> {
    const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
    const record: ApiKeyRecord = {
      id: randomUUID(),
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      name,
      prefix: key.slice(0, KEY_PREFIX.length + 6),
      hash: sha256(key).toString("hex"),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
    };
    await this.store.apiKeys.put(record);
    this.byHash.set(record.hash, record);
    return { ...toApiKey(record), key };
  }

  list(agentId: string): ApiKey[] {
    return this.store.apiKeys
      .filter((k) => k.agentId === agentId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .map((k) => toApiKey({ ...k, lastUsedAt: this.lastUsedFlush.get(k.id) ?? k.lastUsedAt }));
  }

  async revoke(agentId: string, keyId: string): Promise<void> {
    const record = this.store.apiKeys.get(keyId);
    if (!record || record.agentId !== agentId) throw notFound("api_key", keyId);
    this.byHash.delete(record.hash);
    await this.store.apiKeys.delete([keyId]);
  }

  /** Resolves a presented key; unknown or revoked → 401 invalid_api_key. */
  authenticate(presented: string): ApiKeyRecord {
    const digest = sha256(presented);
    const record = this.byHash.get(digest.toString("hex"));
    // The map lookup finds the candidate; the constant-time compare is the actual check.
    if (
      !record ||
      !timingSafeEqual(Buffer.from(record.hash, "hex"), digest) ||
      !this.store.apiKeys.get(record.id)
    ) {
      throw new AppError("invalid_api_key", "The API key is invalid or has been revoked");
    }
    this.lastUsedFlush.set(record.id, new Date().toISOString());
    return record;
  }

  private flushTimer: NodeJS.Timeout | null = null;

  /** Flushes last-used times every `intervalMs` until `stop()`. */
  startFlushing(logger: Logger, intervalMs = 10_000): void {
    this.flushTimer = setInterval(
      () => void this.flushLastUsed().catch((e) => logger.warn("api key flush failed", { error: String(e) })),
      intervalMs,
    );
    this.flushTimer.unref();
  }

  /** Stops the periodic flush and writes what is pending. */
  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = null;
    await this.flushLastUsed();
  }

  /** Writes last-used times in one batch instead of one commit per request. */
  async flushLastUsed(): Promise<void> {
    if (this.lastUsedFlush.size === 0) return;
    const updates: ApiKeyRecord[] = [];
    for (const [id, at] of this.lastUsedFlush) {
      const record = this.store.apiKeys.get(id);
      if (record) updates.push({ ...record, lastUsedAt: at });
    }
    this.lastUsedFlush.clear();
    await this.store.apiKeys.putMany(updates);
    for (const u of updates) this.byHash.set(u.hash, u);
  }

  isKeyLike(token: string): boolean {
    return token.startsWith(KEY_PREFIX);
  }
}
