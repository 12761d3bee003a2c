import { serve } from "@hono/node-server";
import { createApp } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { flushLogs } from "./log/logger.ts";
import { createServices, type Services } from "./services.ts";
import { startBackupControl } from "./store/backup.ts";
import { restrictUmask, secureDataDir } from "./store/permissions.ts";

export interface RunningServer {
  url: string;
  services: Services;
  close(): Promise<void>;
}

/** Starts the HTTP server on the configured host and port (0 picks a free port). */
export async function startServer(config: Config): Promise<RunningServer> {
  restrictUmask();
  const loosened = secureDataDir(config.dataDir);
  const services = await createServices(config);
  if (loosened.length > 0) {
    services.logger.warn("data directory was readable by other users; tightened to 0700/0600", {
      dataDir: config.dataDir,
      paths: loosened.length,
      examples: loosened.slice(0, 5),
    });
  }
  // `lore backup` asks this process for a consistent snapshot over a socket in the data dir.
  const control = await startBackupControl(config.dataDir, services.store.db);
  const app = createApp(services);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  return {
    url,
    services,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await control.close();
      await services.stop();
    },
  };
}

/** `lore serve`: config from the environment, graceful shutdown on SIGINT/SIGTERM. */
export async function main(env: Record<string, string | undefined>): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const running = await startServer(config);
  running.services.logger.info("listening", {
    url: running.url,
    api: `${running.url}${config.apiPrefix}/`,
    dataDir: config.dataDir,
  });
  flushLogs(); // the batched "listening" line first
  console.log(`Lore is running at ${running.url}/ (API under ${running.url}${config.apiPrefix}/)`);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    running.services.logger.info("shutting down", { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await running.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}
