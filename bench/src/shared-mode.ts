/**
 * Shared mode (issue #17), servers in their own processes over HTTP, Debian's redis-server on a
 * loopback port, one storage directory:
 * - what shared mode costs a request: autocannon (32 connections, `--seconds` each) on `GET
 *   /api/agents/` and an extractive `POST /api/agents/{id}/query/`, one process without Redis
 *   against one replica in shared mode (every request first asks Redis where the change counter is);
 * - how soon another replica serves a write: an agent created on replica A, then read on replica B
 *   at once, 200 times: B's latency for that first read (it includes applying A's change) and how
 *   often it answered 200;
 * - a replica's restart to ready while another replica keeps writing (its snapshot no longer
 *   matches the chunk table, so it rebuilds and reconciles), at the corpus size given.
 *
 *   node_modules/.bin/tsx bench/src/shared-mode.ts [--seconds 10] [--entries 2000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { startRedis } from "../../test/helpers/redis.ts";
import { loadSquad } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { type BenchServer, startBenchServer } from "./lib/server.ts";
import { percentile, round } from "./lib/stats.ts";

export interface SharedModeResult {
  seconds: number;
  throughput: { endpoint: string; single: number; shared: number; ratio: number; sharedP99Ms: number }[];
  propagation: { writes: number; ok: number; p50Ms: number; p95Ms: number; maxMs: number };
  restart: { entries: number; chunks: number; readyMs: number; rssMb: number | null };
}

const SECRET = "shared-mode-bench-secret-0123456789abcdef0123";

async function requestsPerSecond(
  url: string,
  token: string,
  seconds: number,
  body?: unknown,
): Promise<{ rps: number; p99: number }> {
  const r = await autocannon({
    url,
    connections: 32,
    duration: seconds,
    method: body ? "POST" : "GET",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: round(r.requests.average, 0), p99: r.latency.p99 };
}

async function seed(
  client: LoreClient,
  entries: number,
): Promise<{ agentId: string; question: string; chunks: number }> {
  const { paragraphs, questions } = loadSquad();
  const source = await client.createTextSource(
    "Corpus",
    Array.from({ length: entries }, (_, i) => ({
      title: `P${i}`,
      content: paragraphs[i % paragraphs.length]?.context ?? "",
    })),
  );
  const ready = await client.waitReady(source.id, 600_000);
  const agent = await client.createAgent("Shared", { dataSourceIds: [source.id] });
  return {
    agentId: agent.id,
    question: questions[0]?.question ?? "What happened?",
    chunks: ready.chunkCount,
  };
}

export async function runSharedMode(seconds = 10, entries = 2_000): Promise<SharedModeResult> {
  const redis = await startRedis();
  const storage = mkdtempSync(join(tmpdir(), "lore-bench-storage-"));
  const shared = { LORE_REDIS_URL: redis.url, LORE_STORAGE_URI: storage, LORE_JWT_SECRET: SECRET };
  const servers: BenchServer[] = [];
  try {
    const throughput: SharedModeResult["throughput"] = [];
    const measured: Record<string, { single: number; shared: number; p99: number }> = {};
    for (const mode of ["single", "shared"] as const) {
      const server = await startBenchServer(mode === "shared" ? shared : {});
      servers.push(server);
      const client = new LoreClient(server.api);
      await client.login();
      const { agentId, question } = await seed(client, 200);
      const token = client.accessToken;
      await requestsPerSecond(`${server.api}/agents/`, token, 2); // warm-up
      const list = await requestsPerSecond(`${server.api}/agents/`, token, seconds);
      const query = await requestsPerSecond(`${server.api}/agents/${agentId}/query/`, token, seconds, {
        message: question,
      });
      for (const [endpoint, r] of [
        ["GET /api/agents/", list],
        ["POST /api/agents/{id}/query/ (extractive)", query],
      ] as const) {
        const row = measured[endpoint] ?? { single: 0, shared: 0, p99: 0 };
        row[mode] = r.rps;
        if (mode === "shared") row.p99 = r.p99;
        measured[endpoint] = row;
      }
      log(`shared-mode: ${mode} ${JSON.stringify(measured)}`);
      if (mode === "single") {
        await server.close();
        servers.pop();
      }
    }
    for (const [endpoint, r] of Object.entries(measured)) {
      throughput.push({
        endpoint,
        single: r.single,
        shared: r.shared,
        ratio: round(r.shared / r.single, 3),
        sharedP99Ms: r.p99,
      });
    }

    // A second replica on the same storage: writes on A, first reads on B.
    const a = servers[0];
    if (!a) throw new Error("no shared replica");
    const b = await startBenchServer(shared);
    servers.push(b);
    const onA = new LoreClient(a.api);
    await onA.login();
    const onB = new LoreClient(b.api);
    await onB.login();
    const latencies: number[] = [];
    let ok = 0;
    for (let i = 0; i < 200; i++) {
      const agent = await onA.createAgent(`Propagated ${i}`, {});
      const started = performance.now();
      const res = await fetch(`${b.api}/agents/${agent.id}/`, {
        headers: { Authorization: `Bearer ${onB.accessToken}` },
      });
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      if (res.status === 200) ok += 1;
    }
    const propagation = {
      writes: latencies.length,
      ok,
      p50Ms: round(percentile(latencies, 50), 2),
      p95Ms: round(percentile(latencies, 95), 2),
      maxMs: round(Math.max(...latencies), 2),
    };
    log(`shared-mode: propagation ${JSON.stringify(propagation)}`);

    // B restarts while A indexes more: B's snapshot is stale when it comes back.
    const { chunks } = await seed(onA, entries);
    await b.close();
    servers.pop();
    const more = onA.createTextSource("More", [{ title: "Later", content: "Written while B was down." }]);
    const started = performance.now();
    const restarted = await startBenchServer(shared);
    servers.push(restarted);
    const readyMs = round(performance.now() - started, 0);
    await more;
    const restart = { entries, chunks, readyMs, rssMb: rss(restarted) };
    log(`shared-mode: restart ${JSON.stringify(restart)}`);
    return { seconds, throughput, propagation, restart };
  } finally {
    for (const server of servers) await server.close();
    await redis.close();
    rmSync(storage, { recursive: true, force: true });
  }
}

function rss(server: BenchServer): number | null {
  const kib = server.rssKiB();
  return kib === null ? null : round(kib / 1024, 0);
}

export function sharedModeTable(r: SharedModeResult): string {
  return [
    markdownTable(
      ["endpoint (32 connections)", "one process req/s", "shared mode req/s", "ratio", "shared p99 ms"],
      r.throughput.map((t) => [t.endpoint, t.single, t.shared, t.ratio, t.sharedP99Ms]),
    ),
    "",
    markdownTable(
      ["written on A, read on B at once", "200s", "p50 ms", "p95 ms", "max ms"],
      [
        [
          r.propagation.writes,
          r.propagation.ok,
          r.propagation.p50Ms,
          r.propagation.p95Ms,
          r.propagation.maxMs,
        ],
      ],
    ),
    "",
    markdownTable(
      ["replica restart while another writes", "chunks", "to ready ms", "RSS MB"],
      [[`${r.restart.entries} entries`, r.restart.chunks, r.restart.readyMs, r.restart.rssMb]],
    ),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const result = await runSharedMode(arg("--seconds") ?? 10, arg("--entries") ?? 2_000);
  writeResult("shared-mode", { ...result });
  console.log(sharedModeTable(result));
}
