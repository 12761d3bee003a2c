/**
 * A real redis-server (Debian's package, installed by `npm test` like Chromium) on a free loopback
 * port, without persistence, for the shared-mode tests:
 *
 *   const redis = await startRedis();   // redis.url is redis://127.0.0.1:PORT
 *   await redis.stop();                 // an outage: killed, its keys gone with it
 *   await redis.start();                // back on the same port, empty (no persistence)
 *   await redis.close();
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "./free-port.ts";

export const redisServerPath = process.env.LORE_REDIS_SERVER ?? "/usr/bin/redis-server";

export interface TestRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL, as a crash); its keys are lost. */
  stop(): Promise<void>;
  /** Starts it again on the same port after `stop`. */
  start(): Promise<void>;
  close(): Promise<void>;
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

async function spawnRedis(port: number): Promise<Running> {
  const child: ChildProcess = spawn(
    redisServerPath,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited:\n${output}`));
    });
  });
  return { child, exited };
}

export async function startRedis(): Promise<TestRedis> {
  if (!existsSync(redisServerPath))
    throw new Error(`${redisServerPath} is missing: run \`npm test\` once (it installs redis-server)`);
  const port = await freePort();
  let running: Running | null = await spawnRedis(port);
  const kill = async (signal: NodeJS.Signals) => {
    const current = running;
    running = null;
    if (!current) return;
    if (current.child.exitCode === null) current.child.kill(signal);
    await current.exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => kill("SIGKILL"),
    async start() {
      if (running) return;
      // The port was just released; another process may take it meanwhile (rare): retry briefly.
      for (let attempt = 0; ; attempt++) {
        try {
          running = await spawnRedis(port);
          return;
        } catch (error) {
          if (attempt >= 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
    close: () => kill("SIGTERM"),
  };
}
