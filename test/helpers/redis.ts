/**
 * A real redis-server (Debian's package, installed by `npm test` like Chromium) on a free loopback
 * port, without persistence, for the shared-mode tests:
 *
 *   const redis = await startRedis();   // redis.url is redis://127.0.0.1:PORT
 *   await redis.close();
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";

export const redisServerPath = process.env.LORE_REDIS_SERVER ?? "/usr/bin/redis-server";

export interface TestRedis {
  url: string;
  port: number;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<TestRedis> {
  if (!existsSync(redisServerPath))
    throw new Error(`${redisServerPath} is missing: run \`npm test\` once (it installs redis-server)`);
  const port = await freePort();
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
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async close() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
