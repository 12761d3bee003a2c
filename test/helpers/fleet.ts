/**
 * Several `lore serve` processes in shared mode — one Redis, one storage location, each replica its
 * own data directory — behind a round-robin proxy, as a deployment runs them:
 *
 *   const fleet = await startFleet(3);
 *   await fleet.request("GET", "/agents/", { token });     // through the proxy
 *   fleet.replicas[1].kill("SIGKILL");                      // the proxy routes around it
 *   await fleet.close();
 *
 * The proxy behaves like nginx or HAProxy with active health checks: it polls `/readyz` every 100 ms
 * and sends requests only to ready replicas, and it tries the next replica when a connection is
 * refused (the request was never sent, so it is safe to send again).
 */
import { rmSync } from "node:fs";
import { createServer, request as httpRequestRaw, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startRedis, type TestRedis } from "./redis.ts";
import {
  httpRequest,
  makeTempDir,
  type RequestOptions,
  type ServerProcess,
  startServerProcess,
  type TestResponse,
} from "./server.ts";

export const FLEET_SECRET = "fleet-test-secret-0123456789abcdef0123456789";

export interface Fleet {
  /** The proxy's base URL and API root. */
  url: string;
  api: string;
  replicas: ServerProcess[];
  redis: TestRedis;
  /** The storage location every replica shares (LORE_STORAGE_URI). */
  storage: string;
  /** The settings every replica runs with (Redis, storage, JWT secret, the caller's `env`). */
  env: Record<string, string>;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** Straight to one replica, bypassing the proxy. */
  direct<T = unknown>(
    replica: number,
    method: string,
    path: string,
    options?: RequestOptions,
  ): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

interface Backend {
  replica: ServerProcess;
  ready: boolean;
}

/** Starts Redis, `count` replicas on one storage location (the first creates the admin), and the proxy. */
export async function startFleet(count: number, env: Record<string, string> = {}): Promise<Fleet> {
  const redis = await startRedis();
  const storage = makeTempDir("lore-fleet-storage-");
  const shared = {
    LORE_REDIS_URL: redis.url,
    LORE_STORAGE_URI: storage,
    LORE_JWT_SECRET: FLEET_SECRET,
    // The proxy's health check sees 503 before the listener closes.
    LORE_SHUTDOWN_DELAY_MS: "400",
    ...env,
  };
  const first = await startServerProcess(shared);
  const rest = await Promise.all(Array.from({ length: count - 1 }, () => startServerProcess(shared)));
  // Each replica loads its tokenizer and WordNet right after it starts listening (about a second of
  // CPU each on two cores): the tests measure the fleet once that start-up work is done.
  await Promise.all([first, ...rest].map((replica) => settled(replica.url)));
  const backends: Backend[] = [first, ...rest].map((replica) => ({ replica, ready: true }));
  const proxy = await startProxy(backends);
  const base = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
  const api = `${base}/api`;
  return {
    url: base,
    api,
    replicas: backends.map((b) => b.replica),
    redis,
    storage,
    env: shared,
    request: (method, path, options) => httpRequest(api, method, path, options),
    direct: (replica, method, path, options) => {
      const target = backends[replica]?.replica;
      if (!target) throw new Error(`no replica ${replica}`);
      return httpRequest(target.api, method, path, options);
    },
    async close() {
      proxy.stop();
      await new Promise((resolve) => proxy.server.close(resolve));
      await Promise.all(backends.map((b) => b.replica.close()));
      await redis.close();
      rmSync(storage, { recursive: true, force: true });
    },
  };
}

/**
 * Resolves once a server answers `/healthz` within 50 ms twice in a row (at most 15 s): its start-up
 * work after listening is done.
 */
export async function settled(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  let quick = 0;
  while (quick < 2 && Date.now() < deadline) {
    const started = performance.now();
    await fetch(`${url}/healthz`).catch(() => undefined);
    quick = performance.now() - started < 50 ? quick + 1 : 0;
    if (quick < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startProxy(backends: Backend[]): Promise<{ server: Server; stop(): void }> {
  let next = 0;
  const check = async (backend: Backend) => {
    try {
      const res = await fetch(`${backend.replica.url}/readyz`, { signal: AbortSignal.timeout(500) });
      backend.ready = res.status === 200;
    } catch {
      backend.ready = false;
    }
  };
  const timer = setInterval(() => void Promise.all(backends.map(check)), 100);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const tried = new Set<Backend>();
      const attempt = () => {
        const ready = backends.filter((b) => b.ready && !tried.has(b));
        const candidates = ready.length > 0 ? ready : backends.filter((b) => !tried.has(b));
        const backend = candidates[next++ % Math.max(1, candidates.length)];
        if (!backend) {
          res.writeHead(502, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: "bad_gateway", message: "no replica answered", details: {} }));
          return;
        }
        tried.add(backend);
        const target = new URL(req.url ?? "/", backend.replica.url);
        const upstream = httpRequestRaw(
          target,
          { method: req.method, headers: { ...req.headers, host: target.host } },
          (answer: IncomingMessage) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on("error", (error: NodeJS.ErrnoException) => {
          // Never connected: the replica is down or gone; the request is safe to send elsewhere.
          if (error.code === "ECONNREFUSED" && !res.headersSent) {
            backend.ready = false;
            attempt();
            return;
          }
          if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: "bad_gateway", message: String(error.code), details: {} }));
        });
        upstream.end(body);
      };
      attempt();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, stop: () => clearInterval(timer) };
}
