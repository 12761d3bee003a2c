import { existsSync } from "node:fs";
import { join } from "node:path";
import { AgentsService } from "./agents/agents-service.ts";
import { ApiKeysService } from "./agents/api-keys-service.ts";
import { AnalyticsService } from "./analytics/analytics-service.ts";
import type { AnswerDeps } from "./answers/answer-question.ts";
import { createModelRegistry } from "./answers/chat-models.ts";
import { Access } from "./auth/access.ts";
import { AuthService } from "./auth/auth-service.ts";
import { createRedisFailureCounter } from "./auth/login-throttle.ts";
import { createRedisSpentTokens } from "./auth/spent-tokens.ts";
import { TokenSigner } from "./auth/tokens.ts";
import { UsersService } from "./auth/users-service.ts";
import type { Config } from "./config.ts";
import { ConversationsService } from "./conversations/conversations-service.ts";
import { CorrectionsService } from "./corrections/corrections-service.ts";
import { SecretBox } from "./crypto/secret-box.ts";
import { withoutPaths } from "./errors.ts";
import { EventBus } from "./events/event-bus.ts";
import { createSmtpMailer, type Mailer, notifyOwnersByMail } from "./handoffs/handoff-mailer.ts";
import { HandoffsService } from "./handoffs/handoffs-service.ts";
import { AnswerReplay } from "./http/answer-replay.ts";
import { Lifecycle } from "./http/lifecycle.ts";
import { createMemoryRateLimiter, type RateLimiter } from "./http/rate-limiter.ts";
import { connectRedis } from "./http/redis.ts";
import { createRedisRateLimiter } from "./http/redis-rate-limiter.ts";
import { type LoopWatchdog, startLoopWatchdog } from "./http/watchdog.ts";
import { createLocalLease, createRedisLease } from "./jobs/lease.ts";
import { ReplicaPresence, replicaIdOf } from "./jobs/replica-presence.ts";
import { SyncRunner } from "./jobs/sync-runner.ts";
import { createLogger, type Logger } from "./log/logger.ts";
import { ChunkIndex } from "./retrieval/chunk-index.ts";
import type { Embedder } from "./retrieval/embedder.ts";
import { createHashedEmbedder } from "./retrieval/embedders/hashed-embedder.ts";
import { createOpenAIEmbedder } from "./retrieval/embedders/openai-embedder.ts";
import { ScanHelper } from "./retrieval/scan-helper.ts";
import { wordVectorsFile, wordVectorsIn } from "./retrieval/word-vectors.ts";
import { createDocumentLister } from "./sources/connectors/index.ts";
import { createNotionLister, createWebLister } from "./sources/connectors/remote.ts";
import { countPendingEntries } from "./sources/connectors/text.ts";
import { DirectoryFileStorage, type FileStorage, TableFileStorage } from "./sources/file-storage.ts";
import { chunkInWorker, closeParseWorkers } from "./sources/parsing/parse-in-worker.ts";
import { connectorConfig, purgeDataSources, SourcesService } from "./sources/sources-service.ts";
import { TextEntryStore } from "./sources/text-entry-store.ts";
import { RedisChangeFeed, singleProcessFeed } from "./store/change-feed.ts";
import { markCleanStop, takeCleanStop } from "./store/clean-stop.ts";
import { startMaintenance } from "./store/maintenance.ts";
import { StorageHealth } from "./store/storage-health.ts";
import { named, Store } from "./store/store.ts";
import { createDictionaryTranslator } from "./text/translate/query-translator.ts";
import { WebhooksService } from "./webhooks/webhooks-service.ts";
import { WidgetOriginsService } from "./widget-api/widget-origins-service.ts";
import { ModelProviderService } from "./workspaces/model-provider-service.ts";
import { WorkspacesService } from "./workspaces/workspaces-service.ts";

/** Everything the routes depend on, built once. */
export interface Services {
  config: Config;
  logger: Logger;
  store: Store;
  events: EventBus;
  tokens: TokenSigner;
  secrets: SecretBox;
  /** Each workspace's model server, set in the console (the environment's wins). */
  modelProviders: ModelProviderService;
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
  /** Visitors' requests for a person (the handoff form). */
  handoffs: HandoffsService;
  /** E-mail out (handoff notices, invitations); null without LORE_SMTP_URL. */
  mailer: Mailer | null;
  /** Question/answer pairs owners wrote; answers come from them first. */
  corrections: CorrectionsService;
  answerDeps: AnswerDeps;
  /** Per-agent usage: counts the answers announced on the event bus; the analytics reader. */
  analytics: AnalyticsService;
  /** Outbound webhook subscriptions and their durable deliveries. */
  webhooks: WebhooksService;
  /** Where each agent's widget loads and where it was refused. */
  widgetOrigins: WidgetOriginsService;
  workspaces: WorkspacesService;
  /** Answer streams kept for clients reconnecting with Last-Event-ID. */
  answerReplay: AnswerReplay;
  /** The data directory's disk: ok, full, read-only or missing (writes are refused while not ok). */
  storage: StorageHealth;
  /** Serving or draining for shutdown (readiness reads it). */
  lifecycle: Lifecycle;
  /** The event-loop watchdog: stalls logged with their request, `/healthz` reports the last. */
  watchdog: LoopWatchdog;
  /**
   * Background work to stop on shutdown. `cut`: connections were closed with requests maybe still
   * running, whose writes could land unannounced (shared mode: the next start has the others reload).
   */
  stop(options?: { cut?: boolean }): Promise<void>;
}

export interface ServiceOverrides {
  logger?: Logger;
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

/** The store at LORE_STORAGE_URI; an object store or LanceDB Cloud that cannot be reached stops start-up with the reason. */
async function openStore(config: Config, feed: RedisChangeFeed | null): Promise<Store> {
  try {
    return await Store.open(config.dataDir, config.lanceCache, {
      storageUri: config.storage.uri,
      feed: feed ?? singleProcessFeed,
    });
  } catch (error) {
    if (config.storage.kind === "local") throw error;
    throw new Error(
      `LORE_STORAGE_URI: cannot open ${config.storage.uri}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export async function createServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  // Shared mode: what replicas must count together lives in Redis (checked before anything opens).
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, { logger }) : null;
  // Before the tables load: every change published after this point reaches this replica.
  const feed = redis ? await RedisChangeFeed.open(redis, logger) : null;
  // Before anything commits: whether the last run left every commit announced (see `stop`). Taken in
  // any mode: a run without Redis in between announced nothing.
  const stoppedCleanly = takeCleanStop(config.dataDir) && feed !== null;
  // Background jobs run once across the fleet: each under a lease in Redis.
  const lease = redis ? createRedisLease(redis) : createLocalLease();
  const store = await openStore(config, feed);
  const storage = new StorageHealth(config.dataDir, logger, config.minFreeMb).start();
  storage.beforeResumingFromMissing(() => store.reopenTables());
  const events = new EventBus();
  const tokens = new TokenSigner(config.jwtSecret, {
    access: config.accessTokenTtl,
    refresh: config.refreshTokenTtl,
    visitor: config.visitorTokenTtl,
  });
  const secrets = new SecretBox(config.jwtSecret);
  const modelProviders = new ModelProviderService(store, secrets, config);
  const users = new UsersService(store);
  const auth = new AuthService(store, users, tokens, {
    loginFailureLimit: config.limits.loginFailures,
    loginFailures: redis ? createRedisFailureCounter(redis) : undefined,
    refreshRotation: config.refreshRotation,
    spentTokens: redis ? createRedisSpentTokens(redis) : undefined,
  });
  const access = new Access(store);
  const agents = new AgentsService(store, {
    model: config.chatModel,
    // As the chunk index decides: without an embedder every search is keyword.
    semanticSearch: config.embeddingModel !== "",
  });
  const apiKeys = new ApiKeysService(store);
  const limiter = redis ? createRedisRateLimiter(redis) : createMemoryRateLimiter();
  const embedder = createEmbedder(config);
  ScanHelper.configure(config.searchThreads);
  const index = await named(
    "retrieval_chunks",
    ChunkIndex.open(store.db, {
      embedder,
      // The in-memory index is saved beside the tables and loaded instead of rebuilt when still current.
      snapshotPath: join(config.dataDir, "index", "chunks.snapshot"),
      feed: store.feed,
      maxChunks: config.indexMaxChunks ?? undefined,
      log: (message, fields) => logger.info(message, fields),
      logError: (message, fields) => logger.error(message, fields),
      // Keyword search's meaning evidence: English word vectors compiled beside the dictionaries.
      wordVectors: () => wordVectorsIn(config.dictionariesDir),
    }),
  );
  const vectorsFile = wordVectorsFile(config.dictionariesDir);
  if (!existsSync(vectorsFile))
    logger.warn("no word vectors: English keyword search ranks by words alone", { file: vectorsFile });
  // Shared mode: a snapshot (or this replica's last run) may predate other replicas' writes.
  if (feed) logger.info("search index caught up with storage", await index.reconcile());
  logger.info("search index ready", { ...index.startup, chunks: index.size });
  // A damaged snapshot costs a rebuild from the table, not an answer: said where operators look.
  if (index.startup.reason?.startsWith("damaged snapshot"))
    logger.warn("the search-index snapshot was damaged; the index was rebuilt from retrieval_chunks", {
      reason: withoutPaths(index.startup.reason),
    });
  const files: FileStorage = config.storage.custom
    ? await TableFileStorage.open(store.db)
    : new DirectoryFileStorage(join(config.dataDir, "files"));
  const entries = await named("text_entries", TextEntryStore.open(store.db, store.feed));
  // Shared mode on a shared path: journals live in the storage, and the fleet replays a dead replica's.
  const journals =
    feed && config.storage.kind === "local" && config.storage.custom
      ? join(config.storage.uri, "journals")
      : null;
  const presence: ReplicaPresence | null =
    redis && journals
      ? new ReplicaPresence({
          redis,
          lease,
          logger,
          journals,
          replicaId: replicaIdOf(config.dataDir),
          replay: async (dir): Promise<void> => {
            await conversations.replayJournal(dir);
            // The dead replica may have committed other writes whose notice died with it.
            await store.feed.reloadEverywhere({ reason: "a replica replayed a dead one's journal" });
          },
        })
      : null;
  await presence?.announce();
  const conversations =
    presence && journals
      ? await presence.ownJournal(() =>
          ConversationsService.open(store, logger, events, join(journals, replicaIdOf(config.dataDir))),
        )
      : await ConversationsService.open(store, logger, events);
  presence?.startSweeping();
  const corrections = await CorrectionsService.open(store, { embedder, logger, events });
  const handoffs = await HandoffsService.open({ store, conversations, events });
  const mailer = config.smtp ? createSmtpMailer(config.smtp.url, config.smtp.from) : null;
  // Stopping it closes the mailer too.
  const mail = mailer ? notifyOwnersByMail({ events, store, logger, mailer }) : null;
  const workspaces = new WorkspacesService(store, access, users);
  const widgetOrigins = await WidgetOriginsService.open(store);

  const listDocuments = createDocumentLister({
    store,
    files,
    entries,
    config: (source) => connectorConfig(secrets, source),
    web: createWebLister(config),
    notion: createNotionLister(config),
  });
  const runner = new SyncRunner(
    store,
    {
      store,
      index,
      chunk: (raw, workspaceId) => chunkInWorker(raw, { workspaceId, timeoutMs: config.parseTimeoutMs }),
      listDocuments,
    },
    events,
    logger,
    {
      concurrency: config.syncConcurrency,
      workspaces: config.syncWorkspaces,
      keepFinished: config.syncHistory,
      purge: (deleted) => purgeDataSources({ store, index, files, entries }, deleted),
      lease,
      storage,
      pendingItems: (source, changedAfter) =>
        source.type === "text"
          ? countPendingEntries(
              entries.list(source.id),
              store.documents.filter((d) => d.dataSourceId === source.id),
              changedAfter,
            )
          : 0,
      expectedDocuments: (source) => (source.type === "text" ? entries.list(source.id).length : 0),
    },
  );
  const sources = new SourcesService(store, runner, index, files, secrets, agents, entries, events, storage);

  const analytics = await named(
    "analytics_events",
    AnalyticsService.open(store.db, {
      logger,
      events,
      storage,
      // A number no other process start has had: analytics rows stay distinct across the fleet.
      shared: feed && redis ? { feed, lease, replicaNumber: await redis.incr("lore:replicas") } : undefined,
    }),
  );
  const webhooks = await WebhooksService.open({ store, events, secrets, config, logger, lease });
  const answerDeps: AnswerDeps = {
    store,
    index,
    conversations,
    corrections,
    events,
    modelFor: createModelRegistry(config, (workspaceId) => modelProviders.connection(workspaceId)),
    translator: createDictionaryTranslator(config.dictionariesDir, logger),
  };

  const admin = await users.ensureAdmin(config.admin);
  if (admin) logger.info("created the admin user", { email: admin.email });
  // Before any sync runs: chunks left by a crash between indexing and recording a document go. Not in
  // shared mode, where such chunks may be another replica's sync between those two steps.
  if (!feed) {
    const orphans = await index.deleteOrphans(new Set([...store.documents.all()].map((d) => d.id)));
    if (orphans > 0) logger.warn("removed chunks of unrecorded documents", { documents: orphans });
  }
  // Every in-memory copy is loaded: from here on other replicas' changes apply as they come.
  feed?.start();
  // If this replica was killed between a commit and its notice, the others read that commit now. A
  // clean stop left none: a rolling restart costs the others nothing.
  if (feed && !stoppedCleanly) {
    logger.info("the last stop was not clean (or is not recorded): the other replicas reload from storage");
    await feed.reloadEverywhere({
      elsewhereOnly: true,
      reason: "a replica started after a stop that was not clean",
    });
  }
  await runner.start();
  webhooks.start();
  // A changed embedding model re-embeds existing chunks in the background; search keeps working meanwhile.
  void index
    .reembedIfModelChanged()
    .then((n) => n > 0 && logger.info("re-embedded chunks for the new embedding model", { chunks: n }))
    .catch((e) => logger.warn("re-embedding failed", { error: String(e) }));

  const watchdog = startLoopWatchdog(config.watchdogBudgetMs, logger);
  const stopMaintenance = startMaintenance({
    store,
    index,
    events,
    logger,
    tables: [entries, widgetOrigins],
    lease,
    storage,
  });
  apiKeys.startFlushing(logger);
  const agentOf = (id: string) => agents.byId(id);
  widgetOrigins.startFlushing(agentOf, logger);

  return {
    config,
    logger,
    store,
    events,
    tokens,
    secrets,
    modelProviders,
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
    handoffs,
    mailer,
    corrections,
    answerDeps,
    analytics,
    webhooks,
    widgetOrigins,
    workspaces,
    answerReplay: new AnswerReplay(redis, config.streamResumeGraceMs),
    storage,
    lifecycle: new Lifecycle(),
    watchdog,
    async stop(options = {}) {
      watchdog.stop();
      storage.stop();
      await stopMaintenance();
      await runner.stop();
      await analytics.stop();
      await webhooks.stop();
      mail?.stop();
      await handoffs.idle();
      await apiKeys.stop();
      await widgetOrigins.stop(agentOf);
      await closeParseWorkers();
      await answerDeps.translator?.close();
      await conversations.close();
      await presence?.stop();
      await corrections.idle();
      await entries.idle();
      // After the syncs stopped: the snapshot matches the table's last version, so the next start loads it.
      await index
        .saveSnapshot()
        .catch((e) => logger.warn("saving the search index failed", { error: String(e) }));
      await store.close();
      await feed?.close();
      // Closing is not an outage to report; Redis down, nothing to say goodbye to.
      redis?.removeAllListeners("close");
      await redis?.quit().catch(() => redis.disconnect());
      // Every commit is announced (nothing can commit now): the next start need not have the others reload.
      if (feed && feed.unsentCount === 0 && !options.cut) {
        try {
          markCleanStop(config.dataDir);
        } catch (error) {
          logger.warn("could not record the clean stop; the next start has the others reload", {
            error: String(error),
          });
        }
      }
      // Last: nothing reads chunk texts after this, and the next start would remove the file anyway.
      index.close();
    },
  };
}
