/**
 * `POST /query/` latency of two checkouts of Lore side by side, in one run: the other checkout's
 * server (`--base`, e.g. a worktree of main) and this one's, each in its own process with the
 * help-center articles as a `text` source, asked every help-center question in turn, alternating
 * which side goes first, for `--rounds` rounds after a warm-up. Prints both sides' server-reported
 * latency (the response's `latency` field) and their ratio, and how many answers differ (response,
 * outcome, confidence, source titles): a change meant to be faster only must show 0.
 *
 *   node_modules/.bin/tsx bench/src/query-ab.ts --base ../main [--rounds 3]
 *
 * Not part of `npm run bench` (it needs a second checkout with its dependencies installed).
 */
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadHelpCenter } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { markdownTable } from "./lib/report.ts";
import { type BenchServer, startBenchServer } from "./lib/server.ts";
import { type LatencySummary, round, summarize } from "./lib/stats.ts";

interface Side {
  label: string;
  server: BenchServer;
  client: LoreClient;
  agentId: string;
  latencies: number[];
  /** As the caller sees it: from sending the request to the parsed response. */
  roundTrips: number[];
  answers: Map<string, string>;
}

export async function runQueryAb(basePath: string, rounds = 3) {
  const data = loadHelpCenter();
  const questions = data.questions.flatMap((q) => (q.question ? [q.question] : []));
  const base = (await import(pathToFileURL(resolve(basePath, "bench/src/lib/server.ts")).href)) as {
    startBenchServer: typeof startBenchServer;
  };
  const sides: Side[] = [];
  try {
    for (const [label, start] of [
      ["base", base.startBenchServer],
      ["this", startBenchServer],
    ] as const) {
      const server = await start();
      const client = new LoreClient(server.api);
      sides.push({ label, server, client, agentId: "", latencies: [], roundTrips: [], answers: new Map() });
      await client.login();
      const source = await client.createTextSource(
        "Help center",
        data.articles.map((a) => ({ title: a.title, content: a.content })),
      );
      await client.waitReady(source.id);
      const agent = await client.createAgent("Help center", { dataSourceIds: [source.id] });
      (sides[sides.length - 1] as Side).agentId = agent.id;
    }
    for (const side of sides)
      for (const q of questions.slice(0, 10)) await side.client.query(side.agentId, q);
    for (let r = 0; r < rounds; r++)
      for (const q of questions)
        for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
          const sent = performance.now();
          const res = await side.client.query(side.agentId, q);
          side.roundTrips.push(performance.now() - sent);
          side.latencies.push(res.latency);
          side.answers.set(
            q,
            JSON.stringify([res.response, res.outcome, res.confidence, res.sources.map((s) => s.title)]),
          );
        }
  } finally {
    for (const side of sides) await side.server.close();
  }
  const [a, b] = sides.map((s) => summarize(s.latencies));
  const [aTrip, bTrip] = sides.map((s) => summarize(s.roundTrips));
  const differing = questions.filter((q) => sides[0]?.answers.get(q) !== sides[1]?.answers.get(q)).length;
  return { questions: questions.length, base: a, current: b, baseTrip: aTrip, currentTrip: bTrip, differing };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const basePath = at("--base");
  if (!basePath) throw new Error("--base <path of the other checkout> is required");
  const r = await runQueryAb(basePath, Number(at("--rounds") ?? 3));
  const table = (title: string, base?: LatencySummary, current?: LatencySummary) => {
    if (!base || !current) throw new Error("no latencies measured");
    return markdownTable(
      [title, "n", "p50", "p95", "p99", "mean"],
      [
        ["base", base.n, base.p50, base.p95, base.p99, base.mean],
        ["this", current.n, current.p50, current.p95, current.p99, current.mean],
        [
          "this / base",
          "",
          round(current.p50 / base.p50, 3),
          round(current.p95 / base.p95, 3),
          round(current.p99 / base.p99, 3),
          round(current.mean / base.mean, 3),
        ],
      ],
    );
  };
  console.log(table("server latency ms", r.base, r.current));
  console.log(table("round trip ms", r.baseTrip, r.currentTrip));
  console.log(`answers differing: ${r.differing} of ${r.questions}`);
}
