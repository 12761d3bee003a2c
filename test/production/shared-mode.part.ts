import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import type { ErrorBody, QueryResponse } from "@lore/shared";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../helpers/redis.ts";
import { ADMIN_EMAIL, makeTempDir, runCli, startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource, waitForSettled } from "../ingestion/source-helpers.ts";

/** Every replica signs and verifies with the same secret (required in shared mode). */
const SECRET = "shared-mode-test-secret-0123456789abcdef";
let redis: TestRedis;
const servers: TestServer[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await redis?.close();
});

async function fleet(count: number, env: Record<string, string>): Promise<TestServer[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startTestServer(env)));
  servers.push(...started);
  return started;
}

/** Anonymous requests, round robin over the servers; the statuses in order. */
async function roundRobin(targets: TestServer[], requests: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < requests; i++) {
    const server = targets[i % targets.length];
    if (!server) throw new Error("no server");
    statuses.push((await server.request("GET", "/agents/")).status);
  }
  return statuses;
}

const wrongLogin = (server: TestServer) =>
  server.request<ErrorBody>("POST", "/auth/login/", {
    body: { email: ADMIN_EMAIL, password: "not-the-password" },
  });

/** `lore serve` on a fresh data directory with `env`, expected to refuse to start. */
async function serveOnce(env: Record<string, string>) {
  const dataDir = makeTempDir();
  try {
    return await runCli(["serve"], { LORE_DATA_DIR: dataDir, LORE_PORT: "0", ...env });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("shared mode (LORE_REDIS_URL)", { timeout: 120_000 }, () => {
  it("drops the chunks a dead sync indexed but never recorded when their source syncs again", async () => {
    const [server] = await fleet(1, { LORE_REDIS_URL: redis.url, LORE_JWT_SECRET: SECRET });
    if (!server) throw new Error("no server");
    const { access } = await server.login();
    const source = await readyTextSource(server, access, "Harbour", [
      { title: "Crane", content: "The harbour crane lifts forty tonnes." },
    ]);
    // What a replica killed between indexing a document and recording it leaves behind: the
    // document's chunks in the index, and no document record.
    const documentId = randomUUID();
    await server.services.index.replaceDocuments([
      {
        documentId,
        chunks: [
          {
            id: randomUUID(),
            workspaceId: source.workspaceId,
            dataSourceId: source.id,
            documentId,
            documentVersion: "v1",
            ordinal: 0,
            text: "The ghost ferry sails at midnight from the old pier.",
            title: "Ghost ferry",
            headingPath: [],
            page: null,
            sourceUrl: null,
            kind: "text",
            tokenCount: 11,
          },
        ],
      },
    ]);
    const agent = await createAgent(server, access, { dataSourceIds: [source.id] });
    const cited = async () => {
      const res = await call<QueryResponse>(server, "POST", `/agents/${agent.id}/query/`, access, {
        message: "When does the ghost ferry sail?",
      });
      expect(res.status).toBe(200);
      return res.body.sources.map((c) => c.documentId);
    };
    expect(await cited()).toContain(documentId);
    // The next sync of the source, under its lease, removes them before it indexes anything.
    expect((await call(server, "POST", `/data-sources/${source.id}/sync/`, access)).status).toBe(202);
    await waitForSettled(server, access, source.id);
    expect(await cited()).not.toContain(documentId);
  });

  it("counts a rate limit once for the fleet: 6 an hour is 6 across two replicas, not 6 each", async () => {
    const limit = { LORE_LIMIT_ANON_PER_HOUR: "6" };
    const shared = await fleet(2, { ...limit, LORE_REDIS_URL: redis.url, LORE_JWT_SECRET: SECRET });
    const statuses = await roundRobin(shared, 9);
    expect(statuses.slice(0, 6).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(6)).toEqual([429, 429, 429]);
    const refused = await shared[0]?.request<ErrorBody>("GET", "/agents/");
    expect(refused?.body.details).toMatchObject({ limit: "anonymous_per_hour", max: 6 });
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);

    // Without Redis each process counts alone: the same traffic passes.
    const alone = await fleet(2, limit);
    expect((await roundRobin(alone, 9)).every((s) => s === 401)).toBe(true);
  });

  it("counts failed logins for the fleet: a guesser switching replicas is locked out as on one", async () => {
    const [a, b] = await fleet(2, {
      LORE_LIMIT_LOGIN_FAILURES: "2",
      LORE_REDIS_URL: redis.url,
      LORE_JWT_SECRET: SECRET,
    });
    if (!a || !b) throw new Error("no servers");
    expect((await wrongLogin(a)).status).toBe(401);
    expect((await wrongLogin(b)).status).toBe(401);
    // Two failures in total for this account and address: refused on either replica, even the right password.
    const locked = await a.request<ErrorBody>("POST", "/auth/login/", {
      body: { email: ADMIN_EMAIL, password: "correct-horse-battery" },
    });
    expect(locked.status).toBe(429);
    expect(locked.body.details).toMatchObject({ limit: "login_failures_per_account_ip" });
    expect((await wrongLogin(b)).status).toBe(429);
  });

  it("keeps serving on each replica's own counts while Redis is down", async () => {
    const own = await startRedis();
    try {
      const [server] = await fleet(1, {
        LORE_LIMIT_ANON_PER_HOUR: "3",
        LORE_REDIS_URL: own.url,
        LORE_JWT_SECRET: SECRET,
      });
      if (!server) throw new Error("no server");
      expect((await server.request("GET", "/agents/")).status).toBe(401);
      await own.close();
      // The limit still holds, counted in memory, and nothing fails for want of Redis.
      expect(await roundRobin([server], 4)).toEqual([401, 401, 401, 429]);
    } finally {
      await own.close();
    }
  });

  it("refuses to start when LORE_REDIS_URL cannot be reached, naming the variable", async () => {
    const closed = await startRedis();
    await closed.close();
    const result = await serveOnce({ LORE_REDIS_URL: closed.url, LORE_JWT_SECRET: SECRET });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot reach Redis");
  });

  it("refuses shared mode without LORE_JWT_SECRET: replicas would reject each other's tokens", async () => {
    const result = await serveOnce({ LORE_REDIS_URL: redis.url });
    expect(result.code).toBe(2); // a configuration error
    expect(result.stderr).toContain("LORE_JWT_SECRET is required with LORE_REDIS_URL");
  });

  it("refuses a LORE_STORAGE_URI it cannot use, naming the variable", async () => {
    const result = await serveOnce({ LORE_STORAGE_URI: "ftp://example.com/x" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("LORE_STORAGE_URI");
  });
});
