/**
 * Load soak: a second process (the real `lore serve`) takes mixed traffic on loopback — JSON and
 * SSE queries, widget sessions, searches, list calls, uploads, new sources and re-syncs — for a
 * bounded time. Reports throughput, error rate (429s counted apart), p50/p95 per window and the
 * server's RSS over time.
 *
 *   node_modules/.bin/tsx bench/src/soak.ts --minutes 10        → bench/results/soak.json
 *
 * `runSoak({ seconds: 20 })` is the smoke version `npm test` runs (test/reliability/soak.test.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ADMIN_EMAIL, ADMIN_PASSWORD, repoRoot, startServerProcess } from "../../test/helpers/server.ts";

export interface SoakOptions {
  seconds: number;
  /** Concurrent client loops. */
  concurrency?: number;
  /** Length of one reporting window (s): a minute for the real soak, less for the smoke. */
  windowSeconds?: number;
  log?: (line: string) => void;
}

export interface SoakWindow {
  startSecond: number;
  requests: number;
  errors: number;
  rateLimited: number;
  p50Ms: number;
  p95Ms: number;
  rssMb: number;
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
  /** Set when the server process died during the soak: when, and the end of its output. */
  serverDied: { second: number; exit: string; outputTail: string } | null;
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

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
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
  const server = await startServerProcess({ LORE_LOG_LEVEL: "error", LORE_SYNC_CONCURRENCY: "2" });
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
    for (let i = 0; i < 300; i++) {
      const s = await json("GET", `/data-sources/${kbId}/`, token);
      if (s.body.status === "ready") break;
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

    const actions: Array<[number, string, () => Promise<void>]> = [
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
          // Keep the store bounded: every other upload is deleted again (exercising purge).
          if (body.id && uploads % 2 === 0) {
            const t1 = performance.now();
            record("delete_source", t1, (await json("DELETE", `/data-sources/${body.id}/`, token)).status);
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
    const totalWeight = actions.reduce((n, [w]) => n + w, 0);
    const pick = () => {
      let r = Math.random() * totalWeight;
      for (const [w, , fn] of actions) {
        r -= w;
        if (r <= 0) return fn;
      }
      return actions[0]?.[2] ?? (async () => undefined);
    };

    const sampler = setInterval(
      () => rss.push({ second: Math.round((performance.now() - started) / 1000), mb: rssMb(server.pid) }),
      1000,
    );
    rss.push({ second: 0, mb: rssMb(server.pid) });
    let lastLog = started;
    let serverDied: SoakReport["serverDied"] = null;
    void server.waitForExit().then((exit) => {
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
    clearInterval(sampler);
    rss.push({ second: Math.round((performance.now() - started) / 1000), mb: rssMb(server.pid) });
    const elapsed = (performance.now() - started) / 1000;

    const isError = (s: Sample) => s.status === 0 || (s.status >= 400 && s.status !== 429);
    const windows: SoakWindow[] = [];
    for (let w = 0; w * windowSeconds < elapsed; w++) {
      const inWindow = samples.filter((s) => s.at >= w * windowSeconds && s.at < (w + 1) * windowSeconds);
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
    };
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { minutes: { type: "string", default: "10" }, concurrency: { type: "string", default: "8" } },
  });
  const report = await runSoak({
    seconds: Number(values.minutes) * 60,
    concurrency: Number(values.concurrency),
    log: (l) => console.log(l),
  });
  const out = join(repoRoot, "bench", "results", "soak.json");
  writeFileSync(out, `${JSON.stringify({ generatedAt: new Date().toISOString(), ...report }, null, 2)}\n`);
  console.log(
    JSON.stringify(
      { ...report, rss: { ...report.rss, samples: undefined }, windows: report.windows },
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
