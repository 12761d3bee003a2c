import { AgentsService } from "./agents/agents-service.ts";
import { ApiKeysService } from "./agents/api-keys-service.ts";
import { Access } from "./auth/access.ts";
import { AuthService } from "./auth/auth-service.ts";
import { TokenSigner } from "./auth/tokens.ts";
import { UsersService } from "./auth/users-service.ts";
import type { Config } from "./config.ts";
import { createLogger, type Logger } from "./http/logger.ts";
import { createMemoryRateLimiter, type RateLimiter } from "./http/rate-limiter.ts";
import { Store } from "./store/store.ts";

/** Everything the routes depend on, built once. */
export interface Services {
  config: Config;
  logger: Logger;
  store: Store;
  tokens: TokenSigner;
  users: UsersService;
  auth: AuthService;
  access: Access;
  agents: AgentsService;
  apiKeys: ApiKeysService;
  limiter: RateLimiter;
  /** Background work to stop on shutdown. */
  stop(): Promise<void>;
}

export async function createServices(config: Config, overrides: { logger?: Logger } = {}): Promise<Services> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const store = await Store.open(config.dataDir);
  const tokens = new TokenSigner(config.jwtSecret, {
    access: config.accessTokenTtl,
    refresh: config.refreshTokenTtl,
    visitor: config.visitorTokenTtl,
  });
  const users = new UsersService(store);
  const auth = new AuthService(store, users, tokens, config.limits.loginFailures);
  const access = new Access(store);
  const agents = new AgentsService(store, { model: config.chatModel });
  const apiKeys = new ApiKeysService(store);
  const limiter = createMemoryRateLimiter();

  const admin = await users.ensureAdmin(config.admin);
  if (admin) logger.info("created the admin user", { email: admin.email });

  const timers = [
    setInterval(() => void apiKeys.flushLastUsed().catch((e) => logger.warn("api key flush failed", { error: String(e) })), 10_000),
    setInterval(() => void store.compact().catch((e) => logger.warn("compaction failed", { error: String(e) })), 60_000),
  ];
  for (const t of timers) t.unref();

  return {
    config,
    logger,
    store,
    tokens,
    users,
    auth,
    access,
    agents,
    apiKeys,
    limiter,
    async stop() {
      for (const t of timers) clearInterval(t);
      await apiKeys.flushLastUsed();
      await store.close();
    },
  };
}
