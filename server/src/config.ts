import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { type ProxyTrust, parseProxyTrust } from "./http/client-ip.ts";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((v) => v === "true" || v === "1" || v === "yes");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const modelName = z.string().regex(/^(extractive|openai:.+)$/, "must be 'extractive' or 'openai:<model>'");

const envSchema = z.object({
  LORE_DATA_DIR: z.string().min(1).default("./data"),
  LORE_HOST: z.string().min(1).default("127.0.0.1"),
  LORE_PORT: int(0, 65535).default(8787),
  LORE_API_PREFIX: z
    .string()
    .regex(/^(\/[A-Za-z0-9._-]+)+$/, "must look like /api")
    .default("/api"),
  // The server's root as clients reach it (a proxy's path prefix included), normalised without a trailing slash.
  LORE_PUBLIC_URL: z
    .string()
    .url()
    .refine(
      (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) && !/[?#]/.test(v),
      "must be an http(s) URL without query",
    )
    .transform((v) => {
      const url = new URL(v);
      return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
    })
    .optional(),
  LORE_JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  LORE_ACCESS_TOKEN_TTL: int(1, 30 * 86400).default(3600),
  LORE_REFRESH_TOKEN_TTL: int(60, 365 * 86400).default(604800),
  LORE_VISITOR_TOKEN_TTL: int(60, 30 * 86400).default(86400),
  LORE_REFRESH_ROTATION: bool.default(false),
  LORE_REFRESH_REUSE_GRACE: int(0, 3600).default(60),
  LORE_ADMIN_EMAIL: z.string().email().optional(),
  LORE_ADMIN_PASSWORD: z.string().min(1).optional(),
  LORE_LIMIT_USER_PER_HOUR: int(1, 10_000_000).default(1000),
  LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: int(1, 10_000_000).default(60),
  LORE_LIMIT_ANON_PER_HOUR: int(1, 10_000_000).default(100),
  LORE_LIMIT_LOGIN_FAILURES: int(1, 10_000).default(10),
  LORE_LIMIT_HANDOFFS_PER_HOUR: int(1, 10_000).default(5),
  LORE_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/.+/, "must be an smtp:// or smtps:// URL")
    .optional(),
  LORE_SMTP_FROM: z.string().min(3).default("Lore <lore@localhost>"),
  LORE_PRODUCTION: bool.default(false),
  LORE_TRUST_PROXY: z
    .string()
    .default("false")
    .transform((v, ctx) => {
      const trust = parseProxyTrust(v);
      if (!trust)
        ctx.addIssue({
          code: "custom",
          message: "must be true, false, a hop count or a list of proxy CIDRs",
        });
      return trust ?? { kind: "none" as const };
    }),
  LORE_OUTBOUND_ALLOWLIST: z.string().default(""),
  LORE_CHAT_MODEL: modelName.default("extractive"),
  LORE_EMBEDDING_MODEL: z
    .string()
    .regex(/^(|hashed|openai:.+)$/, "must be empty, 'hashed' or 'openai:<model>'")
    .default(""),
  LORE_OPENAI_BASE_URL: z.string().url().optional(),
  LORE_OPENAI_API_KEY: z.string().default(""),
  LORE_OPENAI_TIMEOUT_MS: int(100, 600_000).default(60_000),
  LORE_STREAM_RESUME_GRACE_MS: int(0, 600_000).default(10_000),
  LORE_NOTION_BASE_URL: z.string().url().default("https://api.notion.com"),
  LORE_MAX_UPLOAD_BYTES: int(1024, 2 ** 40).default(50 * 1024 * 1024),
  LORE_MAX_JSON_BYTES: int(1024, 2 ** 30).default(12 * 1024 * 1024),
  LORE_MAX_BULK_BYTES: int(1024, 2 ** 40).default(1024 * 1024 * 1024),
  LORE_CORS_ORIGINS: z.string().default("*"),
  LORE_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  LORE_SYNC_CONCURRENCY: int(1, 16).default(1),
  LORE_SYNC_WORKSPACES: int(1, 64).default(4),
  LORE_PARSE_TIMEOUT_MS: int(100, 600_000).default(20_000),
  LORE_SYNC_HISTORY: int(1, 100_000).default(100),
  LORE_MIN_FREE_MB: int(0, 10_000_000).default(512),
  LORE_LANCE_INDEX_CACHE_MB: int(1, 1_000_000).default(256),
  LORE_LANCE_METADATA_CACHE_MB: int(1, 1_000_000).default(64),
  LORE_WEB_DELAY_MS: int(0, 60_000).default(250),
  LORE_WEBHOOK_RETRY_BASE_MS: int(10, 3_600_000).default(2000),
  LORE_WEBHOOK_MAX_ATTEMPTS: int(1, 50).default(8),
  LORE_WEBHOOK_TIMEOUT_MS: int(100, 120_000).default(10_000),
  LORE_SITE_DIR: z.string().min(1).optional(),
  LORE_DICTIONARIES_DIR: z.string().min(1).default("./dictionaries"),
  LORE_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, "must be a redis:// or rediss:// URL")
    .optional(),
  LORE_STORAGE_URI: z.string().min(1).optional(),
  LORE_SHUTDOWN_DELAY_MS: int(0, 600_000).default(0),
  LORE_SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
  LORE_WATCHDOG_BUDGET_MS: int(10, 600_000).default(100),
  LORE_INDEX_MAX_CHUNKS: int(1, 1_000_000_000).optional(),
  LORE_SEARCH_THREADS: int(1, 2).optional(),
});

export interface StorageConfig {
  /** What LanceDB connects to. */
  readonly uri: string;
  /** A local path, an object store, or LanceDB Cloud/Enterprise (`db://`). */
  readonly kind: "local" | "object" | "cloud";
  /** Set by LORE_STORAGE_URI (not the default `<dataDir>/lance`): uploaded files are kept there too. */
  readonly custom: boolean;
}

export interface Config {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  readonly apiPrefix: string;
  /** The server's root as clients reach it, without a trailing slash (LORE_PUBLIC_URL); see http/forwarded.ts. */
  readonly publicUrl: string | null;
  readonly jwtSecret: string;
  readonly accessTokenTtl: number;
  readonly refreshTokenTtl: number;
  readonly visitorTokenTtl: number;
  /** Refresh hands out a new refresh token and spends the old one; a reuse past `reuseGraceSeconds` revokes. */
  readonly refreshRotation: { enabled: boolean; reuseGraceSeconds: number };
  readonly admin: { email: string; password: string } | null;
  readonly limits: {
    userPerHour: number;
    agentQueriesPerMinute: number;
    anonPerHour: number;
    loginFailures: number;
    /** Contact requests per widget visitor and hour (four times as many per client IP). */
    handoffsPerHour: number;
  };
  /** Where handoff notices are e-mailed from; null: no e-mail, webhooks and the console only. */
  readonly smtp: { url: string; from: string } | null;
  readonly production: boolean;
  /** Which proxies may append to X-Forwarded-For: the client IP is the rightmost address not theirs. */
  readonly proxyTrust: ProxyTrust;
  readonly outboundAllowlist: readonly string[];
  readonly chatModel: string;
  readonly embeddingModel: string;
  readonly openai: { baseUrl: string | null; apiKey: string; timeoutMs: number };
  /** How long an API answer stream whose client dropped goes on, waiting for it to resume (Last-Event-ID). */
  readonly streamResumeGraceMs: number;
  readonly notionBaseUrl: string;
  readonly maxUploadBytes: number;
  readonly maxJsonBytes: number;
  /** Cap of a streamed bulk body (`POST /data-sources/{id}/entries/`), read item by item. */
  readonly maxBulkBytes: number;
  readonly corsOrigins: readonly string[];
  readonly logLevel: "debug" | "info" | "warn" | "error" | "silent";
  readonly syncConcurrency: number;
  /** Workspaces whose syncs run side by side (each up to syncConcurrency), taken in turn. */
  readonly syncWorkspaces: number;
  /** One document's parse time budget: past it the document fails with the reason. */
  readonly parseTimeoutMs: number;
  /** Finished sync runs kept per source; older ones are deleted. */
  readonly syncHistory: number;
  /** Below this much free space on the data directory's disk (capped at a tenth of the disk), new syncs wait. */
  readonly minFreeMb: number;
  /** LanceDB cache bounds, MB. */
  readonly lanceCache: { indexMb: number; metadataMb: number };
  readonly webDelayMs: number;
  /** Outbound webhooks: delays double from retryBaseMs between attempts. */
  readonly webhooks: { retryBaseMs: number; maxAttempts: number; timeoutMs: number };
  /**
   * Shared mode: rate limits and login throttles are counted in this Redis, across every replica
   * using it; null: in this process's memory (the single-process default).
   */
  readonly redisUrl: string | null;
  /** LORE_STORAGE_URI: the LanceDB tables, shared by every replica in shared mode. */
  readonly storage: StorageConfig;
  /** Directory with widget/, demo/ and console/ to serve; null: beside the bundle or in the source tree. */
  readonly siteDir: string | null;
  /** LORE_DICTIONARIES_DIR: the bilingual dictionaries `scripts/compile-dictionaries.mjs` compiled (issue #53). */
  readonly dictionariesDir: string;
  /** On SIGTERM, how long `/readyz` answers 503 before the listener closes (for a proxy's health checks). */
  readonly shutdownDelayMs: number;
  /** On SIGTERM, how long in-flight requests and answer streams then get to finish. */
  readonly shutdownGraceMs: number;
  /** A task holding the event loop this long or longer is logged with its request (`event loop blocked`). */
  readonly watchdogBudgetMs: number;
  /**
   * Partitioned search index: a workspace's chunks load into memory at its first search, and past
   * this many held chunks the least recently searched workspaces are let go; null: every workspace is
   * held (loaded at start, with a snapshot).
   */
  readonly indexMaxChunks: number | null;
  /**
   * Threads a big search's postings are scored on: 2 splits them with a worker (scan-helper.ts), 1
   * keeps them on the event loop; default 2 where the machine has two cores or more.
   */
  readonly searchThreads: number;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Parses the environment once; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => k.startsWith("LORE_") && v !== undefined),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const e = parsed.data;
  if ((e.LORE_ADMIN_EMAIL === undefined) !== (e.LORE_ADMIN_PASSWORD === undefined)) {
    throw new ConfigError(
      "Invalid configuration:\n  LORE_ADMIN_EMAIL and LORE_ADMIN_PASSWORD must be set together",
    );
  }
  if (
    (e.LORE_CHAT_MODEL.startsWith("openai:") || e.LORE_EMBEDDING_MODEL.startsWith("openai:")) &&
    !e.LORE_OPENAI_BASE_URL
  ) {
    throw new ConfigError("Invalid configuration:\n  LORE_OPENAI_BASE_URL is required for openai: models");
  }
  const dataDir = resolve(e.LORE_DATA_DIR);
  const storage = storageOf(e.LORE_STORAGE_URI, dataDir);
  if (e.LORE_REDIS_URL && !e.LORE_JWT_SECRET) {
    throw new ConfigError(
      "Invalid configuration:\n  LORE_JWT_SECRET is required with LORE_REDIS_URL: every replica must sign and verify the same tokens",
    );
  }
  if (storage.custom && !e.LORE_JWT_SECRET) {
    throw new ConfigError(
      "Invalid configuration:\n  LORE_JWT_SECRET is required with LORE_STORAGE_URI: secrets stored there are sealed with a key derived from it, which must not live in one data directory",
    );
  }
  const list = (s: string) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean);
  return {
    dataDir,
    host: e.LORE_HOST,
    port: e.LORE_PORT,
    apiPrefix: e.LORE_API_PREFIX,
    publicUrl: e.LORE_PUBLIC_URL ?? null,
    jwtSecret: e.LORE_JWT_SECRET ?? loadOrCreateSecret(dataDir),
    accessTokenTtl: e.LORE_ACCESS_TOKEN_TTL,
    refreshTokenTtl: e.LORE_REFRESH_TOKEN_TTL,
    visitorTokenTtl: e.LORE_VISITOR_TOKEN_TTL,
    refreshRotation: { enabled: e.LORE_REFRESH_ROTATION, reuseGraceSeconds: e.LORE_REFRESH_REUSE_GRACE },
    admin:
      e.LORE_ADMIN_EMAIL && e.LORE_ADMIN_PASSWORD
        ? { email: e.LORE_ADMIN_EMAIL.toLowerCase(), password: e.LORE_ADMIN_PASSWORD }
        : null,
    limits: {
      userPerHour: e.LORE_LIMIT_USER_PER_HOUR,
      agentQueriesPerMinute: e.LORE_LIMIT_AGENT_QUERIES_PER_MINUTE,
      anonPerHour: e.LORE_LIMIT_ANON_PER_HOUR,
      loginFailures: e.LORE_LIMIT_LOGIN_FAILURES,
      handoffsPerHour: e.LORE_LIMIT_HANDOFFS_PER_HOUR,
    },
    smtp: e.LORE_SMTP_URL ? { url: e.LORE_SMTP_URL, from: e.LORE_SMTP_FROM } : null,
    production: e.LORE_PRODUCTION,
    proxyTrust: e.LORE_TRUST_PROXY,
    outboundAllowlist: list(e.LORE_OUTBOUND_ALLOWLIST),
    chatModel: e.LORE_CHAT_MODEL,
    embeddingModel: e.LORE_EMBEDDING_MODEL,
    openai: {
      baseUrl: e.LORE_OPENAI_BASE_URL ?? null,
      apiKey: e.LORE_OPENAI_API_KEY,
      timeoutMs: e.LORE_OPENAI_TIMEOUT_MS,
    },
    streamResumeGraceMs: e.LORE_STREAM_RESUME_GRACE_MS,
    notionBaseUrl: e.LORE_NOTION_BASE_URL,
    maxUploadBytes: e.LORE_MAX_UPLOAD_BYTES,
    maxJsonBytes: e.LORE_MAX_JSON_BYTES,
    maxBulkBytes: e.LORE_MAX_BULK_BYTES,
    corsOrigins: list(e.LORE_CORS_ORIGINS),
    logLevel: e.LORE_LOG_LEVEL,
    syncConcurrency: e.LORE_SYNC_CONCURRENCY,
    syncWorkspaces: e.LORE_SYNC_WORKSPACES,
    parseTimeoutMs: e.LORE_PARSE_TIMEOUT_MS,
    syncHistory: e.LORE_SYNC_HISTORY,
    minFreeMb: e.LORE_MIN_FREE_MB,
    lanceCache: { indexMb: e.LORE_LANCE_INDEX_CACHE_MB, metadataMb: e.LORE_LANCE_METADATA_CACHE_MB },
    webDelayMs: e.LORE_WEB_DELAY_MS,
    webhooks: {
      retryBaseMs: e.LORE_WEBHOOK_RETRY_BASE_MS,
      maxAttempts: e.LORE_WEBHOOK_MAX_ATTEMPTS,
      timeoutMs: e.LORE_WEBHOOK_TIMEOUT_MS,
    },
    redisUrl: e.LORE_REDIS_URL ?? null,
    storage,
    siteDir: e.LORE_SITE_DIR ?? null,
    dictionariesDir: resolve(e.LORE_DICTIONARIES_DIR),
    shutdownDelayMs: e.LORE_SHUTDOWN_DELAY_MS,
    shutdownGraceMs: e.LORE_SHUTDOWN_GRACE_MS,
    watchdogBudgetMs: e.LORE_WATCHDOG_BUDGET_MS,
    indexMaxChunks: e.LORE_INDEX_MAX_CHUNKS ?? null,
    searchThreads: e.LORE_SEARCH_THREADS ?? Math.min(2, availableParallelism()),
  };
}

/**
 * Where the tables (and, when it is not the default, uploaded files) live: a local path, or an object
 * store / LanceDB Cloud URI whose credentials LanceDB reads from the environment (AWS_*, GOOGLE_*,
 * AZURE_*, LANCEDB_API_KEY).
 */
function storageOf(uri: string | undefined, dataDir: string): StorageConfig {
  if (uri === undefined) return { uri: join(dataDir, "lance"), kind: "local", custom: false };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return { uri: resolve(uri), kind: "local", custom: true };
  if (scheme === "file") return { uri: resolve(new URL(uri).pathname), kind: "local", custom: true };
  if (OBJECT_STORES.has(scheme)) return { uri, kind: "object", custom: true };
  if (scheme === "db") return { uri, kind: "cloud", custom: true };
  throw new ConfigError(
    `Invalid configuration:\n  LORE_STORAGE_URI: unsupported scheme "${scheme}://" (use a path, file://, s3://, gs://, az:// or db://)`,
  );
}

const OBJECT_STORES = new Set(["s3", "s3+ddb", "gs", "az", "abfs"]);

// Kept in the data dir so tokens survive restarts without the operator managing a secret.
function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, "jwt-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString("base64url");
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
    return secret;
  } catch {
    return readFileSync(file, "utf8").trim(); // another process created it first
  }
}
