import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createApp } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { startShutdownWatchdog } from "./http/shutdown-watchdog.ts";
import { endOpenStreams, openStreamCount } from "./http/sse.ts";
import { flushLogs } from "./log/logger.ts";
import { wordVectorsIn } from "./retrieval/word-vectors.ts";
import { keepDefinitionsIn, warmWordNet } from "./retrieval/wordnet.ts";
import { createServices, type Services } from "./services.ts";
import { startBackupControl } from "./store/backup.ts";
import { restrictUmask, secureDataDir } from "./store/permissions.ts";
import { warmTokenizer } from "./text/tokens.ts";

export interface RunningServer {
  url: string;
  services: Services;
  /**
   * Graceful shutdown: `/readyz` answers 503, and `delayMs` later the listener closes (new
   * connections are refused); in-flight requests and answer streams get until `graceMs` to finish,
   * then open streams end with an `error` event and remaining connections close; then background
   * work stops and the journal is flushed.
   */
  drain(options: { delayMs: number; graceMs: number }): Promise<DrainReport>;
  close(): Promise<void>;
}

export interface DrainReport {
  /** Answer streams still open at the deadline, ended with an `error` event. */
  streamsEnded: number;
  /** Connections still open after that, closed by force. */
  forced: boolean;
}

// After the deadline's error events, how long streams get to reach their clients before the cut.
const STREAM_END_MS = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The port cannot be bound: said in one line, before anything is written to the data directory. */
export class ListenError extends Error {}

function listenError(error: unknown, host: string, port: number): ListenError {
  const code = (error as { code?: unknown }).code;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (code === "EADDRINUSE")
    return new ListenError(
      `Lore cannot listen on ${where}: the address is already in use (another Lore, or another program). Stop it or set LORE_PORT to a free port.`,
    );
  if (code === "EACCES")
    return new ListenError(
      `Lore cannot listen on ${where}: permission denied (ports below 1024 need privileges). Set LORE_PORT.`,
    );
  if (code === "EADDRNOTAVAIL")
    return new ListenError(
      `Lore cannot listen on ${where}: no such address on this machine. Check LORE_HOST.`,
    );
  return new ListenError(
    `Lore cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/** Binds and releases the port, so a taken one stops start-up before the admin user or any table is written. */
async function checkListenable(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", (error) => reject(listenError(error, host, port)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Starts the HTTP server on the configured host and port (0 picks a free port). */
export async function startServer(config: Config): Promise<RunningServer> {
  restrictUmask();
  await checkListenable(config.host, config.port);
  const loosened = secureDataDir(config.dataDir);
  // WordNet's built definition index is kept for the next start, in the data directory.
  keepDefinitionsIn(join(config.dataDir, "cache"));
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
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(s));
    // Taken between the check and now: still one line, not an unhandled 'error' event.
    s.once("error", (error) => reject(listenError(error, config.host, config.port)));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  const closed = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url,
    services,
    async drain({ delayMs, graceMs }) {
      services.lifecycle.startDraining();
      await sleep(delayMs);
      const listenerClosed = closed();
      const inTime = await Promise.race([listenerClosed.then(() => true), sleep(graceMs).then(() => false)]);
      let streamsEnded = 0;
      let forced = false;
      if (!inTime) {
        streamsEnded = endOpenStreams();
        forced = !(await Promise.race([
          listenerClosed.then(() => true),
          sleep(STREAM_END_MS).then(() => false),
        ]));
        if (forced && "closeAllConnections" in server) server.closeAllConnections();
        await listenerClosed;
      }
      await control.close();
      await services.stop({ cut: !inTime });
      return { streamsEnded, forced };
    },
    async close() {
      await closed();
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
  let running: RunningServer;
  try {
    running = await startServer(config);
  } catch (error) {
    if (error instanceof ListenError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  // The last guard: a background task's failure nobody caught is logged (once a minute for the same
  // message) and the server goes on serving; every known job catches its own and retries.
  const rejectionsLogged = new Map<string, number>();
  process.on("unhandledRejection", (reason) => {
    const message = reason instanceof Error ? reason.message : String(reason);
    running.services.storage.noteFailure(reason);
    const now = Date.now();
    if (now - (rejectionsLogged.get(message) ?? 0) < 60_000) return;
    rejectionsLogged.set(message, now);
    running.services.logger.error("a background task failed; the server goes on", {
      error: reason instanceof Error ? (reason.stack ?? message) : message,
    });
  });
  running.services.logger.info("listening", {
    url: running.url,
    api: `${running.url}${config.apiPrefix}/`,
    dataDir: config.dataDir,
  });
  flushLogs(); // the batched "listening" line first
  console.log(`Lore is running at ${running.url}/ (API under ${running.url}${config.apiPrefix}/)`);
  // Ready first, then the tokenizer every answer counts with (~0.7 s), the word vectors (~50 ms) and
  // WordNet's definition index (~0.5 s, in slices that let requests through), before the first
  // question rather than during it.
  setImmediate(() => {
    warmTokenizer();
    wordVectorsIn(config.dictionariesDir);
    warmWordNet().catch(() => undefined);
  });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    running.services.logger.info("shutting down", { signal, streams: openStreamCount() });
    // A last resort past the grace period, should stopping background work hang.
    const force = setTimeout(() => process.exit(1), config.shutdownDelayMs + config.shutdownGraceMs + 20_000);
    force.unref();
    const report = await running.drain({ delayMs: config.shutdownDelayMs, graceMs: config.shutdownGraceMs });
    running.services.logger.info("stopped", { ...report });
    flushLogs();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  // Those handlers run when the loop turns; this thread ends the process if one task holds it past the deadline.
  const { logger } = running.services;
  startShutdownWatchdog({
    delayMs: config.shutdownDelayMs,
    graceMs: config.shutdownGraceMs,
    onForce(stalledMs) {
      logger.error("shutdown forced: the event loop is blocked", { stalledMs, streams: openStreamCount() });
      process.exit(1);
    },
    onUnavailable: (reason) =>
      logger.warn("shutdown watchdog unavailable: a blocked event loop delays SIGTERM", { reason }),
  });
}
