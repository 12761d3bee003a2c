/**
 * `npm run bench`: every benchmark in sequence (each starts its own server process), a summary
 * table on stdout, JSON in `bench/results/*.json`, the Markdown summary in `bench/results/summary.md`
 * (`summary-partial.md` for an `--only` run) and the block between the result markers of `bench/README.md` replaced with it.
 * Sized to finish within 60 minutes on 2 cores; the latency benchmark gets what time is left.
 *
 *   node_modules/.bin/tsx bench/src/run-all.ts [--only squad,http] [--reuse widget,http] [--budget-min 60] [--no-readme]
 *
 * `scale` (a million chunks, tens of minutes: bench/src/scale.ts) runs only when `--only` names it,
 * with `--chunks N` passed on.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ConsoleSizeRow, type ConsoleTimings, consoleTable, runConsole } from "./console.ts";
import { type DatasetName, hasDatasets } from "./datasets.ts";
import { type FinanceResult, financeTable, runFinanceBench } from "./financebench.ts";
import { type HelpCenterResult, helpcenterTable, runHelpCenter } from "./helpcenter.ts";
import { type CeilingResult, ceilingTable, runHelpCenterCeiling } from "./helpcenter-ceiling.ts";
import { httpTable, type LoadRow, runHttp, type StreamsResult } from "./http.ts";
import { type IngestionRow, ingestionTable, runIngestion } from "./ingestion.ts";
import { type LatencyResult, latencyTable, runLatency } from "./latency.ts";
import { log, machineInfo, markdownTable, resultsDir } from "./lib/report.ts";
import { repoRoot } from "./lib/server.ts";
import { round } from "./lib/stats.ts";
import { type PubmedResult, pubmedTable, runPubmedQa } from "./pubmedqa.ts";
import { runScale, type ScaleResult, scaleTable } from "./scale.ts";
import { runSharedMode, type SharedModeResult, sharedModeTable } from "./shared-mode.ts";
import { runSquad, type SquadResult, squadTable } from "./squad.ts";
import { runTextEntries, type TextEntriesResult, textEntriesTable } from "./text-entries.ts";
import { runWidget, type SizeRow, type WidgetTimings, widgetTable } from "./widget.ts";
import { runXquad, type XquadResult, xquadTable } from "./xquad.ts";

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = arg("--only")?.split(",");
const budgetMs = Number(arg("--budget-min") ?? 60) * 60_000;
const started = Date.now();
const want = (name: string) => !only || only.includes(name);
// `--reuse a,b` (or `all`) renders those benchmarks from their last JSON result instead of running them.
const reuse = arg("--reuse")?.split(",") ?? [];
const reused = (name: string) => reuse.includes("all") || reuse.includes(name);

function lastResult<T>(name: string): Promise<T> {
  const file = join(resultsDir(), `${name}.json`);
  return Promise.resolve(JSON.parse(readFileSync(file, "utf8")) as T);
}

const sections: string[] = [];
const goals: string[][] = [];
const failures: string[] = [];

const skipped: string[] = [];

/** Runs one benchmark; one that needs a missing public dataset is skipped with one line (a failure under CI). */
async function step<T>(
  name: string,
  run: () => Promise<T>,
  render: (r: T) => void,
  needs: DatasetName[] = [],
): Promise<void> {
  if (!want(name)) return;
  const t = Date.now();
  try {
    if (!reused(name) && !hasDatasets(`bench ${name}`, ...needs)) {
      skipped.push(name);
      return;
    }
    log(`── ${name} (elapsed ${round((t - started) / 60_000, 1)} min)`);
    const result = reused(name) ? await lastResult<T>(name) : await run();
    render(result);
    log(`── ${name} done in ${round((Date.now() - t) / 60_000, 1)} min`);
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    failures.push(`${name}: ${message.split("\n").slice(0, 3).join(" ")}`);
    log(`── ${name} FAILED: ${message}`);
  }
}

const mark = (ok: boolean) => (ok ? "met" : "**not met**");

await step(
  "widget",
  () => runWidget(),
  (r: { sizes: SizeRow[]; timings: WidgetTimings | null; notes: string[] }) => {
    sections.push(
      `### Widget (\`tsx bench/src/widget.ts\`)\n\n${widgetTable(r.sizes, r.timings)}\n\n${r.notes.join(" ")}`,
    );
    const loader = r.sizes.find((s) => s.part === "loader");
    const whole = r.sizes.find((s) => s.part.startsWith("whole"));
    goals.push([
      "Widget loader ≤ 2 KB gzip",
      `${loader?.gzipBytes} B`,
      mark((loader?.gzipBytes ?? 1e9) <= 2048),
    ]);
    const english = r.sizes.find((s) => s.part.startsWith("English"));
    goals.push([
      "Whole widget for an English page ≤ 25 KB gzip (goal 20 KB)",
      `${english?.gzipBytes} B`,
      mark((english?.gzipBytes ?? 1e9) <= 25_600),
    ]);
    goals.push([
      "Whole widget ≤ 40 KB gzip",
      `${whole?.gzipBytes} B`,
      mark((whole?.gzipBytes ?? 1e9) <= 40_960),
    ]);
    if (r.timings) {
      goals.push([
        "No host-page long task > 50 ms",
        `${r.timings.longTasks} long tasks, longest ${r.timings.longestTaskMs} ms (${r.timings.afterScriptLongTasks} after the script tag, longest ${r.timings.afterScriptLongestMs} ms; control page without the widget: ${r.timings.controlLongTasks}, longest ${r.timings.controlLongestMs} ms)`,
        mark(r.timings.longestTaskMs <= 50),
      ]);
    }
  },
);

await step(
  "console",
  () => runConsole(),
  (r: { sizes: ConsoleSizeRow[]; timings: ConsoleTimings | null; notes: string[] }) => {
    sections.push(
      `### Owner console (\`tsx bench/src/console.ts\`)\n\n${consoleTable(r.sizes, r.timings)}\n\n${r.notes.join(" ")}`,
    );
    const whole = r.sizes.at(-1);
    goals.push([
      "Console JS + CSS ≤ 60 KB gzip",
      `${whole?.gzipBytes} B`,
      mark((whole?.gzipBytes ?? 1e9) <= 61_440),
    ]);
    if (r.timings) {
      const { listFirstRowsMs: list, transcriptMs: thread } = r.timings;
      goals.push([
        "10,000-conversation list renders ≤ 300 ms",
        `${list.p50} ms p50, ${list.max} ms max`,
        mark(list.p50 <= 300),
      ]);
      goals.push([
        "200-message transcript renders ≤ 300 ms",
        `${thread.p50} ms p50, ${thread.max} ms max`,
        mark(thread.p50 <= 300),
      ]);
    }
  },
);

await step(
  "http",
  () => runHttp(),
  (r: { load: LoadRow[]; streams: StreamsResult }) => {
    sections.push(
      `### HTTP load and SSE streams (\`tsx bench/src/http.ts\`)\n\n${httpTable(r.load, r.streams)}`,
    );
    const agents = r.load.find((l) => l.endpoint.startsWith("GET"));
    goals.push([
      "≥ 5,000 req/s GET /agents/",
      `${agents?.requestsPerSecond} req/s`,
      mark((agents?.requestsPerSecond ?? 0) >= 5000),
    ]);
    goals.push([
      "≥ 1,000 concurrent SSE streams",
      `${r.streams.open}/${r.streams.requested} open, ${r.streams.kiBPerStream} KiB each`,
      mark(r.streams.open >= 1000),
    ]);
  },
  ["squad-v1.1-dev"],
);

await step(
  "latency",
  () => {
    // Runs early so the 100k step is sure to fit; it gets 40% of the budget (1M only if that fits).
    return runLatency({ budgetMinutes: (budgetMs * 0.4) / 60_000 });
  },
  (r: LatencyResult) => {
    sections.push(
      `### Query latency through HTTP, extractive answerer (\`tsx bench/src/latency.ts\`)\n\n${latencyTable(r)}\n\n${r.skipped.map((s) => `- ${s}`).join("\n")}`,
    );
    const at100k = r.rows.find((x) => x.chunks >= 100_000 && x.chunks < 1_000_000);
    if (at100k) {
      goals.push([
        "Query p50 ≤ 40 ms at 100k chunks",
        `${at100k.query.p50} ms`,
        mark(at100k.query.p50 <= 40),
      ]);
      goals.push([
        "Query p95 ≤ 80 ms at 100k chunks",
        `${at100k.query.p95} ms`,
        mark(at100k.query.p95 <= 80),
      ]);
    }
  },
  ["squad-v1.1-dev"],
);

await step(
  "pubmedqa",
  () => runPubmedQa(),
  (r: PubmedResult) => {
    sections.push(`### PubMedQA PQA-L (\`tsx bench/src/pubmedqa.ts\`)\n\n${pubmedTable(r)}`);
    const lore = r.rows[0];
    goals.push([
      "PubMedQA recall@1 ≥ 0.97",
      String(lore?.recall["@1"]),
      mark((lore?.recall["@1"] ?? 0) >= 0.97),
    ]);
  },
  ["pubmedqa-pqal"],
);

await step(
  "squad",
  () => runSquad(),
  (r: SquadResult) => {
    const a = r.answers;
    const f = r.followUps;
    sections.push(
      [
        `### SQuAD v1.1 dev, ${r.articles} articles as documents → ${r.chunks} chunks (\`tsx bench/src/squad.ts\`)`,
        "",
        squadTable(r),
        "",
        markdownTable(
          [
            "extractive answerer (POST /query/)",
            "questions",
            "answer recall",
            "citation precision",
            "first citation right",
            "fallbacks",
            "p50 ms",
            "p95 ms",
          ],
          [
            [
              "Lore (default server)",
              a.questions,
              a.answerRecall,
              a.citationPrecision,
              a.firstCitationPrecision,
              a.fallbacks,
              a.latencyMs.p50,
              a.latencyMs.p95,
            ],
          ],
        ),
        "",
        f
          ? markdownTable(
              [
                "follow-ups with a pronoun",
                "pairs",
                "original question",
                "follow-up, same conversation",
                "follow-up, new conversation",
                "sources hit (same / new)",
              ],
              [
                [
                  "answer recall",
                  f.pairs,
                  f.standaloneRecall,
                  f.withHistoryRecall,
                  f.withoutHistoryRecall,
                  `${f.withHistorySourceRecall} / ${f.withoutHistorySourceRecall}`,
                ],
              ],
            )
          : "",
        r.notes.join(" "),
      ].join("\n"),
    );
    const lore = r.rows.find((x) => x.system === "Lore (default server)");
    goals.push(["SQuAD top-1 ≥ 0.88", String(lore?.recall["@1"]), mark((lore?.recall["@1"] ?? 0) >= 0.88)]);
    goals.push(["SQuAD top-5 ≥ 0.97", String(lore?.recall["@5"]), mark((lore?.recall["@5"] ?? 0) >= 0.97)]);
    goals.push([
      "SQuAD top-20 ≥ 0.97 (issue 7)",
      String(lore?.recall["@20"]),
      mark((lore?.recall["@20"] ?? 0) >= 0.97),
    ]);
    goals.push(["Extractive answer recall ≥ 0.75", String(a.answerRecall), mark(a.answerRecall >= 0.75)]);
    goals.push(["Citation precision ≥ 0.90", String(a.citationPrecision), mark(a.citationPrecision >= 0.9)]);
  },
  ["squad-v1.1-dev"],
);

await step(
  "helpcenter",
  () => runHelpCenter(),
  (r: Omit<HelpCenterResult, "path" | "items">) => {
    sections.push(
      `### Help center: DuckDuckGo help pages, ${r.articles} articles, ${r.questions} questions (\`tsx bench/src/helpcenter.ts\`)\n\n${helpcenterTable(r)}`,
    );
    // The goals are judged on the test half with the articles as `text` entries.
    const lore = r.rows.find(
      (x) => x.system === "Lore (default server)" && x.ingest === "text" && x.half === "test",
    );
    const s = r.halves.find((x) => x.ingest === "text" && x.half === "test");
    const row = (goal: string, value: number | undefined, ok: (v: number) => boolean) =>
      goals.push([
        `Help center (test, text): ${goal}`,
        String(value),
        mark(value !== undefined && ok(value)),
      ]);
    row("hit@1 ≥ 0.75", lore?.recall["@1"], (v) => v >= 0.75);
    row("hit@5 ≥ 0.93", lore?.recall["@5"], (v) => v >= 0.93);
    row("fact containment ≥ 0.65", s?.answers.factContainment, (v) => v >= 0.65);
    row("first citation correct ≥ 0.80", s?.answers.firstCitationCorrect, (v) => v >= 0.8);
    row("unanswerable fallback ≥ 0.80", s?.unanswerable.fallbackRate, (v) => v >= 0.8);
    row("answered ≥ 0.90", s?.answers.answered, (v) => v >= 0.9);
    row(
      "follow-up fact containment (one conversation) ≥ 0.60",
      s?.followUps.oneConversation.factContainment,
      (v) => v >= 0.6,
    );
    // GOALS.md (issue #50): section answers, but no article dumps.
    row("median answer words ≤ 110", s?.answers.medianAnswerWords, (v) => v <= 110);
    row("p90 answer words ≤ 200", s?.answers.p90AnswerWords, (v) => v <= 200);
    row("/query/ p95 ≤ 50 ms", s?.answers.latencyMs.p95, (v) => v <= 50);
  },
  ["helpcenter-duckduckgo"],
);

await step(
  "helpcenter-ceiling",
  () => runHelpCenterCeiling(),
  (r: CeilingResult) => {
    sections.push(
      `### Help center: what the embedded default can reach (\`tsx bench/src/helpcenter-ceiling.ts\`)\n\n${ceilingTable(r)}`,
    );
  },
  ["helpcenter-duckduckgo"],
);

await step(
  "financebench",
  () => runFinanceBench(),
  (r: FinanceResult) => {
    sections.push(
      `### FinanceBench, ${r.pdfs} PDFs / ${r.pages} pages (\`tsx bench/src/financebench.ts\`)\n\n${financeTable(r)}\n\nIngestion through the file connector: ${r.pages} pages in ${r.ingestSeconds} s = **${r.pagesPerMinute} pages/min**. ${r.notes.join(" ")}`,
    );
    const lore = r.rows[0];
    const raw = r.rows.find((x) => x.system.includes("over pages"));
    goals.push([
      "FinanceBench page recall@5 ahead of raw FTS",
      `${lore?.recall["@5"]} vs ${raw?.recall["@5"]}`,
      mark((lore?.recall["@5"] ?? 0) > (raw?.recall["@5"] ?? 1)),
    ]);
    goals.push([
      "Ingestion ≥ 300 PDF pages/min (40 PDFs)",
      `${r.pagesPerMinute}`,
      mark(r.pagesPerMinute >= 300),
    ]);
  },
  ["financebench"],
);

await step(
  "ingestion",
  () => runIngestion(),
  (r: { rows: IngestionRow[] }) => {
    sections.push(
      `### Ingestion end to end (\`tsx bench/src/ingestion.ts\`)\n\n${ingestionTable(r.rows)}\n\n${r.rows.map((x) => `- ${x.kind}: ${x.how}`).join("\n")}`,
    );
  },
  ["squad-v1.1-dev", "financebench"],
);

// Only on request (`--only scale`): a million chunks take tens of minutes to write and measure.
if (only?.includes("scale"))
  await step(
    "scale",
    () => runScale({ chunks: arg("--chunks") ? Number(arg("--chunks")) : undefined }),
    (r: ScaleResult) => {
      sections.push(`### Scale (\`tsx bench/src/scale.ts\`)\n\n${scaleTable([r])}`);
      goals.push([
        "1M chunks: RSS ≤ 2 GB",
        `${r.rssAfterRequestsMiB} MiB at ${r.chunks} chunks`,
        mark(r.chunks >= 1_000_000 && (r.rssAfterRequestsMiB ?? 1e9) <= 2048),
      ]);
    },
    ["squad-v1.1-dev"],
  );

await step(
  "shared-mode",
  () => runSharedMode(),
  (r: SharedModeResult) => {
    sections.push(`### Shared mode (\`tsx bench/src/shared-mode.ts\`)\n\n${sharedModeTable(r)}`);
    goals.push([
      "Shared mode: a write on one replica read on another at once",
      `${r.propagation.ok}/${r.propagation.writes} at once, p95 ${r.propagation.p95Ms} ms`,
      mark(r.propagation.ok === r.propagation.writes),
    ]);
  },
  ["squad-v1.1-dev"],
);

await step(
  "text-entries",
  () => runTextEntries({ entries: Number(process.env.LORE_BENCH_TEXT_ENTRIES) || undefined }),
  (r: TextEntriesResult) => {
    sections.push(
      `### Text sources at size (\`tsx bench/src/text-entries.ts\`)\n\n${textEntriesTable(r)}\n\n${r.notes.join(" ")}`,
    );
    const shape = (n: number) => r.shapes[n] ?? r.load;
    const within = (a: number, b: number) => Math.abs(a - b) <= 0.2 * Math.max(a, b);
    goals.push([
      `${r.entries.toLocaleString("en")} text entries ready ≤ 120 s`,
      `${r.load.seconds} s`,
      mark(r.load.seconds <= 120),
    ]);
    goals.push([
      "Data directory idle ≤ 3× the entries' text",
      `${round(r.load.dataDirMb / r.load.textMb, 2)}×`,
      mark(r.load.dataDirMb <= 3 * r.load.textMb),
    ]);
    goals.push([
      "PUT of one entry searchable ≤ 2 s, nothing else re-indexed",
      `${r.put.searchableMs} ms, ${r.put.run.updated} updated / ${r.put.run.unchanged} unchanged`,
      mark(r.put.searchableMs <= 2_000 && r.put.run.updated + r.put.run.added === 1),
    ]);
    goals.push([
      "1 × N and 10 × N/10 within 20 % on time and disk",
      `${shape(0).seconds} vs ${shape(1).seconds} s, ${shape(0).dataDirMb} vs ${shape(1).dataDirMb} MB`,
      mark(within(shape(0).seconds, shape(1).seconds) && within(shape(0).dataDirMb, shape(1).dataDirMb)),
    ]);
  },
  ["squad-v1.1-dev"],
);

await step(
  "xquad",
  () => runXquad(),
  (r: Pick<XquadResult, "rows">) => {
    sections.push(
      `### XQuAD per language, extractive answerer (\`tsx bench/src/xquad.ts\`)\n\n${xquadTable(r)}\n\nThe same 240 paragraphs and 1,190 questions in each language, one \`text\` entry per paragraph; top-k = a hit's chunk contains a gold answer; in brackets the gap to English.`,
    );
    const en = r.rows.find((x) => x.language === "en");
    for (const row of r.rows.filter((x) => x.language !== "en")) {
      const top1 = row.lore["@1"] ?? 0;
      const ok =
        top1 >= (en?.lore["@1"] ?? 1) - 0.05 &&
        (row.lore["@5"] ?? 0) >= 0.95 &&
        (row.answer ?? 0) >= (en?.answer ?? 1) - 0.08;
      goals.push([
        `XQuAD ${row.language}: top-1 within 5 points of en, top-5 ≥ 0.95, answer within 8 points`,
        `${top1} / ${row.lore["@5"]} / ${row.answer}`,
        mark(ok),
      ]);
    }
  },
  ["xquad"],
);

const m = machineInfo();
const header = [
  `Measured ${m.date.slice(0, 16).replace("T", " ")} UTC on ${m.nproc} × ${m.cpuModel}, ${m.ramGiB} GiB RAM; Node ${m.node},`,
  `@lancedb/lancedb ${m.lancedb}, commit ${m.gitCommit}; peers: ${Object.entries(m.packages)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}.`,
  `Total ${round((Date.now() - started) / 60_000, 1)} min for \`npm run bench\`${only ? ` (--only ${only.join(",")})` : ""}${reuse.length > 0 ? ` (--reuse ${reuse.join(",")}: those sections come from their last JSON result, dated inside it)` : ""}.`,
].join("\n");
const summary = [
  header,
  "",
  "### Goals",
  "",
  markdownTable(["goal", "measured", "status"], goals),
  "",
  ...sections.flatMap((s) => [s, ""]),
  failures.length > 0 ? `### Failed\n\n${failures.map((f) => `- ${f}`).join("\n")}\n` : "",
  skipped.length > 0
    ? `### Skipped (public dataset missing)\n\n${skipped.map((s) => `- ${s}`).join("\n")}\n`
    : "",
].join("\n");

console.log(`\n${summary}`);
// A partial run (--only, or benchmarks skipped for a missing dataset) prints its summary but keeps the full run's file.
const partial = only !== undefined || skipped.length > 0;
writeFileSync(join(resultsDir(), partial ? "summary-partial.md" : "summary.md"), `${summary}\n`);
const readme = join(repoRoot, "bench/README.md");
if (!args.includes("--no-readme") && !partial && existsSync(readme)) {
  const text = readFileSync(readme, "utf8");
  const start = "<!-- results:start -->";
  const end = "<!-- results:end -->";
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a >= 0 && b > a) {
    writeFileSync(readme, `${text.slice(0, a + start.length)}\n${summary}\n${text.slice(b)}`);
    // Biome formats Markdown too (npm test checks it): pad the generated tables the same way.
    spawnSync(join(repoRoot, "node_modules/.bin/biome"), ["format", "--write", readme], { stdio: "ignore" });
    log("bench/README.md updated");
  }
}
process.exit(failures.length > 0 ? 1 : 0);
