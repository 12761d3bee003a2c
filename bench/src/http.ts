/**
 * HTTP throughput and concurrent streams, server in its own process, load generated from this one:
 * - autocannon, 64 connections, 10 s: `GET /api/agents/` and `POST /api/agents/{id}/query/`
 *   (extractive, a SQuAD article as knowledge), requests/s and latency p50/p99.
 * - concurrent SSE streams: N streaming queries against an OpenAI-compatible fake that streams one
 *   token every `tokenDelayMs`, so all N stay open at once; server RSS per stream from /proc.
 *
 *   node_modules/.bin/tsx bench/src/http.ts [--streams 1000] [--duration 10]
 */
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { startFakeOpenAI } from "../../test/fakes/openai-server.ts";
import { loadSquad } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { readRssKiB, startBenchServer } from "./lib/server.ts";
import { round } from "./lib/stats.ts";

export interface LoadRow {
  endpoint: string;
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  non2xx: number;
  errors: number;
}

export interface StreamsResult {
  requested: number;
  /** Streams that had received their first token while all were open. */
  open: number;
  completed: number;
  failed: number;
  rssBeforeMiB: number | null;
  rssPeakMiB: number | null;
  kiBPerStream: number | null;
  tokenDelayMs: number;
}

async function load(endpoint: string, options: Parameters<typeof autocannon>[0]): Promise<LoadRow> {
  const r = await autocannon(options);
  return {
    endpoint,
    connections: options.connections ?? 10,
    seconds: options.duration ?? 10,
    requestsPerSecond: round(r.requests.average, 0),
    latencyP50: r.latency.p50,
    latencyP99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

async function articleEntries() {
  const data = loadSquad();
  const article = data.articles[0];
  const content = (article?.paragraphIndexes ?? [])
    .map((i) => data.paragraphs[i]?.context ?? "")
    .join("\n\n");
  return {
    entries: [{ title: article?.title ?? "Article", content }],
    questions: data.questions.slice(0, 50),
  };
}

export async function runHttpLoad(duration = 10): Promise<LoadRow[]> {
  const server = await startBenchServer();
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const { entries, questions } = await articleEntries();
    const source = await client.createTextSource("Article", entries);
    await client.waitReady(source.id);
    const agent = await client.createAgent("Load", { dataSourceIds: [source.id] });
    const headers = { Authorization: `Bearer ${client.accessToken}`, "Content-Type": "application/json" };
    const rows: LoreRows = [];
    // Short warm-up so JIT and caches are hot.
    await load("warm-up", { url: `${server.api}/agents/`, connections: 8, duration: 2, headers });
    rows.push(
      await load("GET /api/agents/", { url: `${server.api}/agents/`, connections: 64, duration, headers }),
    );
    log(`http: ${JSON.stringify(rows.at(-1))}`);
    rows.push(
      await load("POST /api/agents/{id}/query/ (extractive)", {
        url: `${server.api}/agents/${agent.id}/query/`,
        method: "POST",
        connections: 64,
        duration,
        headers,
        body: JSON.stringify({ message: questions[0]?.question ?? "What happened?" }),
      }),
    );
    log(`http: ${JSON.stringify(rows.at(-1))}`);
    rows.push(
      await load("POST /api/agents/{id}/search/", {
        url: `${server.api}/agents/${agent.id}/search/`,
        method: "POST",
        connections: 64,
        duration,
        headers,
        body: JSON.stringify({ query: questions[1]?.question ?? "What happened?" }),
      }),
    );
    log(`http: ${JSON.stringify(rows.at(-1))}`);
    return rows;
  } finally {
    await server.close();
  }
}

type LoreRows = LoadRow[];

/** Opens `n` streaming queries at once against a slow model and measures the server's memory. */
export async function runStreams(n = 1000, tokenDelayMs = 1000): Promise<StreamsResult> {
  const fake = await startFakeOpenAI({
    tokenDelayMs,
    answer: "Streams stay open while this long answer trickles out one word at a time to every client [1]",
  });
  const server = await startBenchServer({
    LORE_CHAT_MODEL: "openai:fake-chat",
    LORE_OPENAI_BASE_URL: fake.url,
    LORE_OPENAI_API_KEY: "sk-bench",
  });
  const controllers: AbortController[] = [];
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const { entries, questions } = await articleEntries();
    const source = await client.createTextSource("Article", entries);
    await client.waitReady(source.id);
    const agent = await client.createAgent("Streams", { dataSourceIds: [source.id] });
    // One stream first so lazy initialisation is not counted per stream.
    await client.query(agent.id, questions[0]?.question ?? "Hello?");
    await new Promise((r) => setTimeout(r, 1000));
    const rssBefore = readRssKiB(server.pid);
    let firstTokens = 0;
    let completed = 0;
    let failed = 0;
    let peak = rssBefore ?? 0;
    const streams = Array.from({ length: n }, async (_, i) => {
      const controller = new AbortController();
      controllers.push(controller);
      try {
        const res = await fetch(`${server.api}/agents/${agent.id}/query/`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${client.accessToken}`,
            "Content-Type": "application/json",
            Accept: "text/event-stream",
          },
          body: JSON.stringify({ message: questions[i % questions.length]?.question ?? "Hello?" }),
          signal: controller.signal,
        });
        if (!res.ok || !res.body) {
          failed++;
          await res.text();
          return;
        }
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        let sawToken = false;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          if (!sawToken && buffer.includes(`"type":"token"`)) {
            sawToken = true;
            firstTokens++;
          }
          if (buffer.includes(`"type":"error"`)) {
            failed++;
            return;
          }
          if (buffer.includes(`"type":"done"`)) {
            completed++;
            return;
          }
          if (buffer.length > 65_536) buffer = buffer.slice(-1024);
        }
      } catch {
        if (!controller.signal.aborted) failed++;
      }
    });
    // Wait until every stream got its first token (or failed), sampling RSS meanwhile.
    const deadline = Date.now() + 120_000;
    while (firstTokens + failed + completed < n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      peak = Math.max(peak, readRssKiB(server.pid) ?? 0);
    }
    const openAtOnce = firstTokens - completed;
    await new Promise((r) => setTimeout(r, 1000));
    peak = Math.max(peak, readRssKiB(server.pid) ?? 0);
    log(
      `http: ${n} streams requested, ${firstTokens} streaming, ${completed} done, ${failed} failed, rss ${peak} KiB`,
    );
    for (const c of controllers) c.abort();
    await Promise.all(streams);
    return {
      requested: n,
      open: openAtOnce,
      completed,
      failed,
      rssBeforeMiB: rssBefore === null ? null : round(rssBefore / 1024, 0),
      rssPeakMiB: round(peak / 1024, 0),
      kiBPerStream: rssBefore === null || openAtOnce <= 0 ? null : round((peak - rssBefore) / openAtOnce, 1),
      tokenDelayMs,
    };
  } finally {
    for (const c of controllers) c.abort();
    await server.close();
    await fake.close();
  }
}

export async function runHttp(
  options: { streams?: number; duration?: number; resultsDir?: string } = {},
): Promise<{ load: LoadRow[]; streams: StreamsResult; path: string }> {
  const loadRows = await runHttpLoad(options.duration ?? 10);
  const streams = await runStreams(options.streams ?? 1000);
  const path = writeResult("http", { load: loadRows, streams }, options.resultsDir);
  return { load: loadRows, streams, path };
}

export function httpTable(load: readonly LoadRow[], streams: StreamsResult): string {
  const t = markdownTable(
    ["endpoint", "connections", "seconds", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors"],
    load.map((r) => [
      r.endpoint,
      r.connections,
      r.seconds,
      r.requestsPerSecond,
      r.latencyP50,
      r.latencyP99,
      r.non2xx,
      r.errors,
    ]),
  );
  return `${t}\n\nSSE: ${streams.open}/${streams.requested} streams open at once (${streams.failed} failed), server RSS ${streams.rssBeforeMiB} → ${streams.rssPeakMiB} MiB, ${streams.kiBPerStream} KiB per stream`;
}

function arg(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runHttp({ streams: arg("--streams"), duration: arg("--duration") });
  console.log(httpTable(result.load, result.streams));
  console.log(`wrote ${result.path}`);
}
