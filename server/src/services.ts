import { join } from "node:path";
import { AgentsService } from "./agents/agents-service.ts";
import { ApiKeysService } from "./agents/api-keys-service.ts";
import { AnalyticsService } from "./analytics/analytics-service.ts";
import type { AnswerDeps } from "./answers/answer-question.ts";
import type { AnswerRecorder } from "./answers/answer-record.ts";
import { Access } from "./auth/access.ts";
import { AuthService } from "./auth/auth-service.ts";
import { TokenSigner } from "./auth/tokens.ts";
import { UsersService } from "./auth/users-service.ts";
import type { Config } from "./config.ts";
import { ConversationsService } from "./conversations/conversations-service.ts";
import { SecretBox } from "./crypto/secret-box.ts";
import { AppError } from "./errors.ts";
import { EventBus } from "./events/event-bus.ts";
import { createExtractiveModel } from "./generation/extractive-model.ts";
import { createOpenAIChatModel } from "./generation/openai-model.ts";
import type { ChatModel } from "./generation/types.ts";
import { createLogger, type Logger } from "./http/logger.ts";
import { createMemoryRateLimiter, type RateLimiter } from "./http/rate-limiter.ts";
import { SyncRunner } from "./jobs/sync-runner.ts";
import { ChunkIndex } from "./retrieval/chunk-index.ts";
import type { Embedder } from "./retrieval/embedder.ts";
import { createHashedEmbedder } from "./retrieval/embedders/hashed-embedder.ts";
import { createOpenAIEmbedder } from "./retrieval/embedders/openai-embedder.ts";
import { createDocumentLister } from "./sources/connectors/index.ts";
import { createNotionLister, createWebLister } from "./sources/connectors/remote.ts";
import { FileStorage } from "./sources/file-storage.ts";
import { closeParseWorkers, parseInWorker } from "./sources/parsing/parse-in-worker.ts";
import { SourcesService } from "./sources/sources-service.ts";
import type { AgentRecord, MessageRecord } from "./store/records.ts";
import { Store } from "./store/store.ts";
import { WebhooksService } from "./webhooks/webhooks-service.ts";

/** Everything the routes depend on, built once. */
export interface Services {
  config: Config;
  logger: Logger;
  store: Store;
  events: EventBus;
  tokens: TokenSigner;
  secrets: SecretBox;
  users: UsersService;
  auth: AuthService;
  access: Access;
  agents: AgentsService;
  apiKeys: ApiKeysService;
  limiter: RateLimiter;
  index: ChunkIndex;
  runner: SyncRunner;
  sources: SourcesService;
  conversations: ConversationsService;
  answerDeps: AnswerDeps;
  /** Per-agent usage: the default answer recorder and the analytics reader. */
  analytics: AnalyticsService;
  /** Outbound webhook subscriptions and their durable deliveries. */
  webhooks: WebhooksService;
  /** Records a visitor's or caller's rating of an answer. */
  feedback(
    agent: AgentRecord,
    message: MessageRecord,
    rating: "up" | "down",
    comment: string | null,
  ): Promise<void>;
  /** Background work to stop on shutdown. */
  stop(): Promise<void>;
}

export interface ServiceOverrides {
  logger?: Logger;
  recorder?: (
    services: Omit<Services, "answerDeps" | "analytics" | "webhooks" | "feedback" | "stop">,
  ) => AnswerRecorder;
}

function createEmbedder(config: Config): Embedder | null {
  if (config.embeddingModel === "") return null;
  if (config.embeddingModel === "hashed") return createHashedEmbedder();
  return createOpenAIEmbedder({
    baseURL: config.openai.baseUrl ?? "",
    apiKey: config.openai.apiKey,
    model: config.embeddingModel.slice("openai:".length),
  });
}

export async function createServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const store = await Store.open(config.dataDir, config.lanceCache);
  const events = new EventBus();
  const tokens = new TokenSigner(config.jwtSecret, {
    access: config.accessTokenTtl,
    refresh: config.refreshTokenTtl,
    visitor: config.visitorTokenTtl,
  });
  const secrets = new SecretBox(config.jwtSecret);
  const users = new UsersService(store);
  const auth = new AuthService(store, users, tokens, config.limits.loginFailures);
  const access = new Access(store);
  const agents = new AgentsService(store, { model: config.chatModel });
  const apiKeys = new ApiKeysService(store);
  const limiter = createMemoryRateLimiter();
  const index = await ChunkIndex.open(store.db, { embedder: createEmbedder(config) });
  const files = new FileStorage(join(config.dataDir, "files"));
  const conversations = await ConversationsService.open(store, logger);

  let sources: SourcesService | null = null;
  const listDocuments = createDocumentLister({
    store,
    files,
    config: (source) => sources?.connectorConfig(source) ?? source.config,
    web: createWebLister(config),
    notion: createNotionLister(config),
  });
  const runner = new SyncRunner(
    store,
    { store, index, parse: (raw) => parseInWorker(raw), listDocuments },
    events,
    logger,
    {
      concurrency: config.syncConcurrency,
      keepFinished: config.syncHistory,
      purge: (deleted) => (sources ? sources.purge(deleted) : Promise.resolve()),
    },
  );
  sources = new SourcesService(store, runner, index, files, secrets, agents);

  const models = new Map<string, ChatModel>();
  const modelFor = (name: string): ChatModel => {
    const cached = models.get(name);
    if (cached) return cached;
    let model: ChatModel;
    if (name === "extractive") model = createExtractiveModel();
    else if (name.startsWith("openai:") && config.openai.baseUrl) {
      model = createOpenAIChatModel({
        baseURL: config.openai.baseUrl,
        apiKey: config.openai.apiKey,
        model: name.slice("openai:".length),
        timeoutMs: config.openai.timeoutMs,
      });
    } else {
      throw new AppError(
        "upstream_error",
        `The model ${name} is not configured on this server (set LORE_OPENAI_BASE_URL)`,
      );
    }
    models.set(name, model);
    return model;
  };

  const base = {
    config,
    logger,
    store,
    events,
    tokens,
    secrets,
    users,
    auth,
    access,
    agents,
    apiKeys,
    limiter,
    index,
    runner,
    sources,
    conversations,
  };
  const analytics = await AnalyticsService.open(store.db, { logger, events });
  const recorder = overrides.recorder?.(base) ?? analytics;
  const webhooks = await WebhooksService.open({ store, events, secrets, config, logger });
  const answerDeps: AnswerDeps = { store, index, agents, conversations, recorder, modelFor };

  const admin = await users.ensureAdmin(config.admin);
  if (admin) logger.info("created the admin user", { email: admin.email });
  // Before any sync runs: chunks left by a crash between indexing and recording a document go.
  const orphans = await index.deleteOrphans(new Set([...store.documents.all()].map((d) => d.id)));
  if (orphans > 0) logger.warn("removed chunks of unrecorded documents", { documents: orphans });
  await runner.start();
  webhooks.start();
  // A changed embedding model re-embeds existing chunks in the background; search keeps working meanwhile.
  void index
    .reembedIfModelChanged()
    .then((n) => n > 0 && logger.info("re-embedded chunks for the new embedding model", { chunks: n }))
    .catch((e) => logger.warn("re-embedding failed", { error: String(e) }));

  // Each document write adds LanceDB fragments; compact the index shortly after a sync lands.
  let optimizeTimer: NodeJS.Timeout | null = null;
  events.subscribe((event) => {
    if (event.type !== "data_source.sync.completed" || optimizeTimer) return;
    optimizeTimer = setTimeout(() => {
      optimizeTimer = null;
      void index.optimize().catch((e) => logger.warn("index optimize failed", { error: String(e) }));
    }, 5_000);
    optimizeTimer.unref();
  });

  const timers = [
    setInterval(
      () =>
        void apiKeys.flushLastUsed().catch((e) => logger.warn("api key flush failed", { error: String(e) })),
      10_000,
    ),
    setInterval(
      () => void store.compact().catch((e) => logger.warn("compaction failed", { error: String(e) })),
      60_000,
    ),
    setInterval(
      () => void index.optimize().catch((e) => logger.warn("index optimize failed", { error: String(e) })),
      5 * 60_000,
    ),
  ];
  for (const t of timers) t.unref();

  return {
    ...base,
    answerDeps,
    analytics,
    webhooks,
    async feedback(agent, message, rating, comment) {
      if (message.role !== "assistant") {
        throw new AppError("validation_error", "Only answers can be rated", {
          fields: { messageId: ["not an answer"] },
        });
      }
      await conversations.setFeedback(message, rating, comment);
      events.emit({
        type: "message.feedback",
        workspaceId: agent.workspaceId,
        agentId: agent.id,
        conversationId: message.conversationId,
        messageId: message.id,
        rating,
        comment,
      });
    },
    async stop() {
      for (const t of timers) clearInterval(t);
      if (optimizeTimer) clearTimeout(optimizeTimer);
      await runner.stop();
      await analytics.stop();
      await webhooks.stop();
      await apiKeys.flushLastUsed();
      await closeParseWorkers();
      await conversations.close();
      await store.close();
    },
  };
}
