/**
 * Load soak: a second process (the real `lore serve`) takes mixed traffic on loopback — JSON and
 * SSE queries, widget sessions, searches, list calls, uploads, new sources and re-syncs — for a
 * bounded time. The data stays steady (every upload and new source is deleted again, conversations
 * beyond the newest 100 too), so the server's memory should be flat after warm-up. Reports throughput, error
 * rate (429s counted apart), p50/p95 per window, the server's RSS / JS heap / external memory
 * (sampled inside the child by memory-probe.mjs), their slopes over the second half (`trend`) and
 * the corpus size over time.
 *
 *   node_modules/.bin/tsx bench/src/soak.ts --minutes 10        → bench/results/soak.json
 *     --env MALLOC_ARENA_MAX=2     extra environment for the server child (repeatable)
 *     --snapshots 60,540           heap snapshots of the server at these seconds (into --out's dir)
 *     --only query,list            run only these actions (to find which traffic grows memory)
 *     --gc-every 10                a full collection before every 10th memory sample (live heap)
 *     --out path.json              where the report goes
 *
 * `runSoak({ seconds: 20 })` is the smoke version `npm test` runs (test/reliability/soak.test.ts).
 */
import {
  type Dirent,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ADMIN_EMAIL, ADMIN_PASSWORD, repoRoot, startServerProcess } from "../../test/helpers/server.ts";

export interface SoakOptions {
  seconds: number;
  /** Concurrent client loops. */
  concurrency?: number;
  /** Length of one reporting window (s): a minute for the real soak, less for the smoke. */
  windowSeconds?: number;
  log?: (line: string) => void;
  /** Extra environment for the server child (e.g. MALLOC_ARENA_MAX). */
  env?: Record<string, string>;
  /** Seconds at which the server writes a heap snapshot (SIGUSR2) into `snapshotDir`. */
  heapSnapshotsAt?: number[];
  snapshotDir?: string;
  /** Run only these actions (diagnostics: which traffic makes memory grow); all by default. */
  only?: string[];
  /** Uploaded sources kept alive at once; older ones are deleted, so the corpus stays bounded. */
  keptUploads?: number;
  /** Every this many seconds the server runs a full collection before its memory sample (0: never). */
  gcEverySeconds?: number;
}

/** The server's memory at one second, as its own process sees it (bytes → MB). */
export interface MemorySample {
  second: number;
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  rssAnonMb: number;
  rssFileMb: number;
  threads: number;
  /** Taken right after a full collection (`gcEverySeconds`): the heap is what is live. */
  afterGc: boolean;
}

/** What the server holds: live sources, their documents and chunks, conversations, bytes on disk. */
export interface CorpusSample {
  second: number;
  sources: number;
  documents: number;
  chunks: number;
  conversations: number;
  diskMb: number;
}

export interface SoakWindow {
  startSecond: number;
  requests: number;
  errors: number;
  rateLimited: number;
  p50Ms: number;
  p95Ms: number;
  /** Highest and lowest RSS sampled in the window. */
  rssMb: number;
  rssMinMb: number;
  /** Highest JS heap in use / external / array buffers in the window. */
  heapUsedMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** Corpus at the window's last sample. */
  corpus: Omit<CorpusSample, "second"> | null;
}

export interface SoakReport {
  seconds: number;
  concurrency: number;
  requests: number;
  throughputPerSecond: number;
  errors: number;
  errorRate: number;
  rateLimited: number;
  errorSamples: string[];
  byAction: Record<string, { requests: number; errors: number; p95Ms: number }>;
  windows: SoakWindow[];
  rss: { startMb: number; maxMb: number; endMb: number; samples: Array<{ second: number; mb: number }> };
  memory: MemorySample[];
  corpus: CorpusSample[];
  /** Memory after warm-up: least-squares slopes (MB/min) over the second half of the run. */
  trend: { fromSecond: number; rssMbPerMin: number; heapUsedMbPerMin: number; externalMbPerMin: number };
  heapSnapshots: string[];
  /** Set when the server process died during the soak: when, and the end of its output. */
  serverDied: { second: number; exit: string; outputTail: string } | null;
  /** Lines the server logged at error level (the soak runs it with LORE_LOG_LEVEL=error): count and the last 20. */
  serverErrors: { count: number; last: string[] };
}

interface Sample {
  at: number;
  action: string;
  ms: number;
  status: number;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return (
    Math.round((sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0) * 10) / 10
  );
}

/** Least-squares slope of `value` over `second`, per minute (0 with fewer than two samples). */
function slopePerMinute(samples: MemorySample[], value: (m: MemorySample) => number): number {
  if (samples.length < 2) return 0;
  const meanX = samples.reduce((n, m) => n + m.second, 0) / samples.length;
  const meanY = samples.reduce((n, m) => n + value(m), 0) / samples.length;
  let num = 0;
  let den = 0;
  for (const m of samples) {
    num += (m.second - meanX) * (value(m) - meanY);
    den += (m.second - meanX) ** 2;
  }
  return den === 0 ? 0 : Math.round((num / den) * 60 * 10) / 10;
}

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

const MB = 1024 * 1024;
const round = (bytes: number) => Math.round(bytes / MB);
const PROBE = resolve(dirname(new URL(import.meta.url).pathname), "memory-probe.mjs");

function readMemoryLog(file: string, startedAtMs: number): MemorySample[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: MemorySample[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const { afterGc, ...m } = JSON.parse(line) as Record<string, number> & { afterGc?: boolean };
    const at = m.at ?? 0;
    if (at < startedAtMs) continue;
    out.push({
      second: Math.round((at - startedAtMs) / 1000),
      rssMb: round(m.rss ?? 0),
      heapUsedMb: round(m.heapUsed ?? 0),
      heapTotalMb: round(m.heapTotal ?? 0),
      externalMb: round(m.external ?? 0),
      arrayBuffersMb: round(m.arrayBuffers ?? 0),
      rssAnonMb: round(m.rssAnon ?? 0),
      rssFileMb: round(m.rssFile ?? 0),
      threads: m.threads ?? 0,
      afterGc: afterGc === true,
    });
  }
  return out;
}

function withoutSecond({ second: _s, ...rest }: CorpusSample): Omit<CorpusSample, "second"> {
  return rest;
}

function directoryBytes(dir: string): number {
  let total = 0;
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0; // removed while walking (compaction, deletes)
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    try {
      total += entry.isDirectory() ? directoryBytes(path) : statSync(path).size;
    } catch {
      // removed while walking
    }
  }
  return total;
}

const TOPICS = [
  "harbour",
  "ferry",
  "museum",
  "bakery",
  "library",
  "market",
  "bridge",
  "lighthouse",
  "station",
  "garden",
];

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => undefined);
  const concurrency = options.concurrency ?? 8;
  const windowSeconds = options.windowSeconds ?? 60;
  const keptUploads = options.keptUploads ?? 20;
  const probeDir = mkdtempSync(join(tmpdir(), "lore-soak-"));
  const memoryLog = join(probeDir, "memory.jsonl");
  const snapshotDir = options.snapshotDir ?? probeDir;
  const nodeOptions = [
    process.env.NODE_OPTIONS ?? "",
    `--import=${PROBE}`,
    options.heapSnapshotsAt?.length ? `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotDir}` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const server = await startServerProcess({
    LORE_LOG_LEVEL: "error",
    LORE_SYNC_CONCURRENCY: "2",
    // As `npm start` runs the server (scripts/bootstrap.mjs); `--env MALLOC_ARENA_MAX=…` overrides it.
    MALLOC_ARENA_MAX: "2",
    ...options.env,
    NODE_OPTIONS: nodeOptions,
    SOAK_MEMORY_LOG: memoryLog,
    SOAK_GC_EVERY: String(options.gcEverySeconds ?? 0),
  });
  const origin = "https://soak.example";
  const samples: Sample[] = [];
  const errorSamples: string[] = [];
  const rss: Array<{ second: number; mb: number }> = [];
  try {
    const api = server.api;
    const json = async (
      method: string,
      path: string,
      token: string | null,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    const login = await json("POST", "/auth/login/", null, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const token = String(login.body.access);
    const entries = Array.from({ length: 60 }, (_, i) => {
      const topic = TOPICS[i % TOPICS.length] ?? "town";
      return {
        title: `${topic} note ${i}`,
        content: `The ${topic} opens at ${6 + (i % 5)} o'clock. Note ${i} says the ${topic} is near pier ${i}.`,
      };
    });
    const kb = await json("POST", "/data-sources/", token, {
      name: "Town guide",
      type: "text",
      config: { entries },
    });
    const kbId = String(kb.body.id);
    // Traffic starts once the knowledge base is indexed (else queries answer 503 agent_processing);
    // on a loaded machine that can take far longer than the usual second.
    const readyBy = performance.now() + 60_000;
    for (;;) {
      const s = await json("GET", `/data-sources/${kbId}/`, token);
      if (s.body.status === "ready") break;
      if (performance.now() > readyBy) throw new Error(`knowledge base not ready: ${JSON.stringify(s.body)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const agent = await json("POST", "/agents/", token, {
      name: "Town",
      dataSourceIds: [kbId],
      allowedOrigins: [origin],
    });
    const agentId = String(agent.body.id);
    const widgetId = String(agent.body.widgetId);
    const key = String(
      (await json("POST", `/agents/${agentId}/api-keys/`, token, { name: "soak" })).body.key,
    );

    const started = performance.now();
    const deadline = started + options.seconds * 1000;
    const record = (action: string, t0: number, status: number, detail?: string) => {
      samples.push({ at: (t0 - started) / 1000, action, ms: performance.now() - t0, status });
      if ((status >= 400 && status !== 429) || status === 0) {
        if (errorSamples.length < 20) errorSamples.push(`${action} ${status} ${detail ?? ""}`.slice(0, 300));
      }
    };
    const question = () => `When does the ${TOPICS[Math.floor(Math.random() * TOPICS.length)]} open?`;
    let uploads = 0;
    // Uploads still alive, oldest first; past `keptUploads` the oldest is deleted (exercising purge).
    const kept: string[] = [];
    let forgetting = false;

    const allActions: Array<[number, string, () => Promise<void>]> = [
      [
        30,
        "query",
        async () => {
          const t0 = performance.now();
          const res = await json("POST", `/agents/${agentId}/query/`, Math.random() < 0.5 ? token : key, {
            message: question(),
          });
          record("query", t0, res.status, JSON.stringify(res.body));
        },
      ],
      [
        15,
        "query_sse",
        async () => {
          const t0 = performance.now();
          const res = await fetch(`${api}/agents/${agentId}/query/`, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              Accept: "text/event-stream",
              Authorization: `Bearer ${token}`,
            },
            body: JSON.stringify({ message: question() }),
          });
          const text = await res.text();
          const ok = res.status === 200 && text.includes('"type":"done"');
          record(
            "query_sse",
            t0,
            ok ? 200 : res.status === 200 ? 599 : res.status,
            ok ? undefined : text.slice(-200),
          );
        },
      ],
      [
        15,
        "widget_session",
        async () => {
          const headers = { Origin: origin };
          let t0 = performance.now();
          const config = await json("GET", `/widget/${widgetId}/config/`, null, undefined, headers);
          record("widget_config", t0, config.status);
          t0 = performance.now();
          const first = await json(
            "POST",
            `/widget/${widgetId}/query/`,
            null,
            { message: question() },
            headers,
          );
          record("widget_query", t0, first.status, JSON.stringify(first.body));
          if (first.status !== 200) return;
          t0 = performance.now();
          const follow = await json(
            "POST",
            `/widget/${widgetId}/query/`,
            null,
            {
              message: "And on Sundays?",
              conversationId: first.body.conversationId,
              visitorToken: first.body.visitorToken,
            },
            headers,
          );
          record("widget_query", t0, follow.status, JSON.stringify(follow.body));
        },
      ],
      [
        10,
        "search",
        async () => {
          const t0 = performance.now();
          const res = await json("POST", `/agents/${agentId}/search/`, token, { query: question() });
          record("search", t0, res.status);
        },
      ],
      [
        15,
        "list",
        async () => {
          const paths = [
            "/agents/",
            "/data-sources/?page_size=50",
            `/agents/${agentId}/conversations/?page_size=20`,
            `/data-sources/${kbId}/documents/`,
            `/data-sources/${kbId}/syncs/`,
          ];
          const path = paths[Math.floor(Math.random() * paths.length)] ?? "/agents/";
          const t0 = performance.now();
          const res = await json("GET", path, token);
          record("list", t0, res.status);
        },
      ],
      [
        3,
        "forget",
        async () => {
          // Conversations are data too: beyond the newest 100 they are deleted, 50 at once, so the
          // soak's state is steady. One loop at a time, or two would delete the same ones (404).
          if (forgetting) return;
          forgetting = true;
          try {
            // A page past the end is 404 "Invalid page." (DRF, issue #51): ask for page 3 only once there is one.
            const t = performance.now();
            const first = await json("GET", `/agents/${agentId}/conversations/?page_size=50`, token);
            record("list", t, first.status);
            if (Number(first.body.count ?? 0) <= 100) return;
            const t0 = performance.now();
            const older = await json("GET", `/agents/${agentId}/conversations/?page=3&page_size=50`, token);
            record("list", t0, older.status);
            const results = Array.isArray(older.body.results) ? (older.body.results as { id: string }[]) : [];
            // The page at once, as a console's bulk delete would send it (the server groups them).
            await Promise.all(
              results.map(async ({ id }) => {
                const t1 = performance.now();
                const res = await json("DELETE", `/agents/${agentId}/conversations/${id}/`, token);
                record("delete_conversation", t1, res.status);
              }),
            );
          } finally {
            forgetting = false;
          }
        },
      ],
      [
        5,
        "upload",
        async () => {
          uploads += 1;
          const form = new FormData();
          form.set("name", `Upload ${uploads}`);
          form.set("type", "file");
          form.append(
            "files",
            new Blob([`# Upload ${uploads}\n\nThe kiosk number ${uploads} sells maps and stamps.`], {
              type: "text/markdown",
            }),
            `upload-${uploads}.md`,
          );
          const t0 = performance.now();
          const res = await fetch(`${api}/data-sources/`, {
            method: "POST",
            headers: { Authorization: `Bearer ${token}` },
            body: form,
          });
          const body = (await res.json()) as { id?: string };
          record("upload", t0, res.status);
          if (body.id) kept.push(body.id);
          const oldest = kept.length > keptUploads ? kept.shift() : undefined;
          if (oldest) {
            const t1 = performance.now();
            record("delete_source", t1, (await json("DELETE", `/data-sources/${oldest}/`, token)).status);
          }
        },
      ],
      [
        5,
        "text_source",
        async () => {
          const t0 = performance.now();
          const res = await json("POST", "/data-sources/", token, {
            name: `Notes ${Date.now()}`,
            type: "text",
            config: { entries: [{ title: "Note", content: `Soak note written at ${Date.now()}.` }] },
          });
          record("text_source", t0, res.status);
          if (res.body.id)
            record(
              "delete_source",
              performance.now(),
              (await json("DELETE", `/data-sources/${String(res.body.id)}/`, token)).status,
            );
        },
      ],
      [
        5,
        "sync",
        async () => {
          const t0 = performance.now();
          const res = await json("POST", `/data-sources/${kbId}/sync/`, token);
          record("sync", t0, res.status);
        },
      ],
    ];
    const actions = allActions.filter(([, name]) => !options.only || options.only.includes(name));
    const totalWeight = actions.reduce((n, [w]) => n + w, 0);
    const pick = () => {
      let r = Math.random() * totalWeight;
      for (const [w, , fn] of actions) {
        r -= w;
        if (r <= 0) return fn;
      }
      return actions[0]?.[2] ?? (async () => undefined);
    };

    const corpus: CorpusSample[] = [];
    const sampleCorpus = async () => {
      const second = Math.round((performance.now() - started) / 1000);
      const sources = await json("GET", "/data-sources/?page_size=100", token);
      const conversations = await json("GET", `/agents/${agentId}/conversations/?page_size=1`, token);
      const list = (sources.body.results ?? []) as Array<{ documentCount: number; chunkCount: number }>;
      corpus.push({
        second,
        sources: Number(sources.body.count ?? list.length),
        documents: list.reduce((n, s) => n + s.documentCount, 0),
        chunks: list.reduce((n, s) => n + s.chunkCount, 0),
        conversations: Number(conversations.body.count ?? 0),
        diskMb: round(directoryBytes(server.dataDir)),
      });
    };
    const heapSnapshots: string[] = [];
    const snapshotTimers = (options.heapSnapshotsAt ?? []).map((at) =>
      setTimeout(() => {
        log(`${at} s: heap snapshot requested`);
        server.kill("SIGUSR2");
      }, at * 1000),
    );
    await sampleCorpus();
    const corpusSampler = setInterval(
      () => void sampleCorpus().catch((error: unknown) => log(`corpus sample failed: ${String(error)}`)),
      5000,
    );
    const sampler = setInterval(
      () => rss.push({ second: Math.round((performance.now() - started) / 1000), mb: rssMb(server.pid) }),
      1000,
    );
    rss.push({ second: 0, mb: rssMb(server.pid) });
    let lastLog = started;
    let serverDied: SoakReport["serverDied"] = null;
    let finished = false;
    void server.waitForExit().then((exit) => {
      if (finished) return; // stopped by us after the soak
      serverDied = {
        second: Math.round((performance.now() - started) / 1000),
        exit: String(exit.code ?? exit.signal),
        outputTail: server.output().slice(-4000),
      };
      log(`server died: ${JSON.stringify(serverDied)}`);
    });
    const loops = Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && serverDied === null) {
        try {
          await pick()();
        } catch (error) {
          record("network", performance.now(), 0, String(error));
        }
        if (performance.now() - lastLog > windowSeconds * 1000) {
          lastLog = performance.now();
          log(
            `${Math.round((lastLog - started) / 1000)} s: ${samples.length} requests, rss ${rssMb(server.pid)} MB`,
          );
        }
      }
    });
    await Promise.all(loops);
    finished = true;
    clearInterval(sampler);
    clearInterval(corpusSampler);
    for (const t of snapshotTimers) clearTimeout(t);
    await sampleCorpus();
    const memory = readMemoryLog(memoryLog, Date.now() - (performance.now() - started));
    for (const name of readdirSync(snapshotDir)) {
      if (name.endsWith(".heapsnapshot")) heapSnapshots.push(join(snapshotDir, name));
    }
    rss.push({ second: Math.round((performance.now() - started) / 1000), mb: rssMb(server.pid) });
    const elapsed = (performance.now() - started) / 1000;

    const isError = (s: Sample) => s.status === 0 || (s.status >= 400 && s.status !== 429);
    const windows: SoakWindow[] = [];
    for (let w = 0; w * windowSeconds < elapsed; w++) {
      const inWindow = samples.filter((s) => s.at >= w * windowSeconds && s.at < (w + 1) * windowSeconds);
      const inWindowAt = (second: number) => second >= w * windowSeconds && second < (w + 1) * windowSeconds;
      const inside = memory.filter((m) => inWindowAt(m.second));
      const lastCorpus = corpus.filter((c) => inWindowAt(c.second)).at(-1);
      const mem = rss
        .filter((r) => r.second >= w * windowSeconds && r.second < (w + 1) * windowSeconds)
        .map((r) => r.mb);
      windows.push({
        startSecond: w * windowSeconds,
        requests: inWindow.length,
        errors: inWindow.filter(isError).length,
        rateLimited: inWindow.filter((s) => s.status === 429).length,
        p50Ms: percentile(
          inWindow.map((s) => s.ms),
          50,
        ),
        p95Ms: percentile(
          inWindow.map((s) => s.ms),
          95,
        ),
        rssMb: mem.length ? Math.max(...mem) : 0,
        rssMinMb: mem.length ? Math.min(...mem) : 0,
        heapUsedMb: Math.max(0, ...inside.map((m) => m.heapUsedMb)),
        externalMb: Math.max(0, ...inside.map((m) => m.externalMb)),
        arrayBuffersMb: Math.max(0, ...inside.map((m) => m.arrayBuffersMb)),
        corpus: lastCorpus ? withoutSecond(lastCorpus) : null,
      });
    }
    const byAction: SoakReport["byAction"] = {};
    for (const action of new Set(samples.map((s) => s.action))) {
      const of = samples.filter((s) => s.action === action);
      byAction[action] = {
        requests: of.length,
        errors: of.filter(isError).length,
        p95Ms: percentile(
          of.map((s) => s.ms),
          95,
        ),
      };
    }
    const errors = samples.filter(isError).length;
    const serverErrorLines = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"level":"error"'));
    const fromSecond = Math.round(elapsed / 2);
    const secondHalf = memory.filter((m) => m.second >= fromSecond);
    return {
      serverDied,
      seconds: Math.round(elapsed),
      concurrency,
      requests: samples.length,
      throughputPerSecond: Math.round((samples.length / elapsed) * 10) / 10,
      errors,
      errorRate: samples.length ? errors / samples.length : 0,
      rateLimited: samples.filter((s) => s.status === 429).length,
      errorSamples,
      byAction,
      windows,
      rss: {
        startMb: rss[0]?.mb ?? 0,
        maxMb: Math.max(...rss.map((r) => r.mb)),
        endMb: rss.at(-1)?.mb ?? 0,
        samples: rss,
      },
      memory,
      corpus,
      trend: {
        fromSecond,
        rssMbPerMin: slopePerMinute(secondHalf, (m) => m.rssMb),
        // With collections (gcEverySeconds), the live heap's slope; else the sampled heap's.
        heapUsedMbPerMin: slopePerMinute(
          secondHalf.some((m) => m.afterGc) ? secondHalf.filter((m) => m.afterGc) : secondHalf,
          (m) => m.heapUsedMb,
        ),
        externalMbPerMin: slopePerMinute(secondHalf, (m) => m.externalMb),
      },
      heapSnapshots,
      serverErrors: { count: serverErrorLines.length, last: serverErrorLines.slice(-20) },
    };
  } finally {
    await server.close();
    if (!options.snapshotDir) rmSync(probeDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: "string", default: "10" },
      concurrency: { type: "string", default: "8" },
      env: { type: "string", multiple: true, default: [] },
      snapshots: { type: "string", default: "" },
      only: { type: "string", default: "" },
      "gc-every": { type: "string", default: "0" },
      out: { type: "string", default: join(repoRoot, "bench", "results", "soak.json") },
    },
  });
  const out = resolve(values.out);
  mkdirSync(dirname(out), { recursive: true });
  const env = Object.fromEntries(
    values.env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
  const heapSnapshotsAt = values.snapshots ? values.snapshots.split(",").map(Number) : [];
  const report = await runSoak({
    seconds: Number(values.minutes) * 60,
    concurrency: Number(values.concurrency),
    env,
    heapSnapshotsAt,
    gcEverySeconds: Number(values["gc-every"]),
    ...(values.only ? { only: values.only.split(",") } : {}),
    ...(heapSnapshotsAt.length ? { snapshotDir: dirname(out) } : {}),
    log: (l) => console.log(l),
  });
  writeFileSync(
    out,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), env, ...report }, null, 2)}\n`,
  );
  console.log(
    JSON.stringify(
      { ...report, rss: { ...report.rss, samples: undefined }, memory: undefined, corpus: undefined },
      null,
      2,
    ),
  );
  console.log(`wrote ${out}`);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
