/**
 * Text sources at size (issue #20), server in its own process, everything through the API:
 * - one text source of N entries (SQuAD paragraphs, repeated with a variant tag once the 2,067
 *   unique ones run out) streamed as NDJSON to `POST /data-sources/{id}/entries/`: time to ready,
 *   server RSS, then the data directory once idle (the cleanup age is 60 s; the bench waits
 *   `LORE_BENCH_IDLE_SECONDS`, 130 by default, so the post-sync cleanup has run) against the entries' text;
 * - `PUT` of one entry in that source: time until `/search/` finds it, and the sync run's counts;
 * - the same N/10 entries as 1 source × N/10 and as 10 sources × N/100: time to ready and disk.
 *
 *   node_modules/.bin/tsx bench/src/text-entries.ts [--entries N]   (or LORE_BENCH_TEXT_ENTRIES=N; default 100,000)
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Agent, BulkTextEntriesResponse, DataSource, Page, SearchResponse, SyncRun } from "@lore/shared";
import { loadSquad } from "./datasets.ts";
import { LoreClient } from "./lib/api.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { round } from "./lib/stats.ts";

export interface LoadRow {
  shape: string;
  entries: number;
  chunks: number;
  seconds: number;
  /** Allocated size of the whole data directory once idle, MB. */
  dataDirMb: number;
  /** Of which the `data_sources` table, MB. */
  dataSourcesMb: number;
  /** The largest parts of the data directory (LanceDB tables and other entries), MB. */
  parts: Record<string, number>;
  textMb: number;
  /** Server RSS: highest sampled (every 500 ms) from the POST until ready, and once idle, MB. */
  peakRssMb: number;
  idleRssMb: number;
}

export interface TextEntriesResult {
  entries: number;
  idleSeconds: number;
  load: LoadRow;
  peakRssMb: number;
  idleRssMb: number;
  put: { searchableMs: number; run: Pick<SyncRun, "added" | "updated" | "removed" | "unchanged" | "failed"> };
  /** The data directory once more after a further `LATER_SECONDS` (the PUT's sync included), MB. */
  laterDataDirMb: number;
  shapes: LoadRow[];
  notes: string[];
}

interface Entry {
  key: string;
  title: string;
  content: string;
}

/** Entry `i`: SQuAD paragraph `i mod 2,067`; repeats carry a variant tag so every entry's text differs. */
function entryMaker(): (i: number) => Entry {
  const { paragraphs } = loadSquad();
  return (i) => {
    const p = paragraphs[i % paragraphs.length];
    const variant = Math.floor(i / paragraphs.length);
    return {
      key: `p${i}`,
      title: `${p?.articleTitle ?? "Paragraph"} ${i}`,
      content: variant === 0 ? (p?.context ?? "") : `${p?.context ?? ""} (variant ${variant})`,
    };
  };
}

/** An NDJSON body of entries `from … to-1`, produced as it is sent (about 1 MB per chunk). */
function ndjsonStream(make: (i: number) => Entry, from: number, to: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = from;
  return new ReadableStream({
    pull(controller) {
      if (i >= to) {
        controller.close();
        return;
      }
      let chunk = "";
      while (i < to && chunk.length < 1_000_000) chunk += `${JSON.stringify(make(i++))}\n`;
      controller.enqueue(encoder.encode(chunk));
    },
  });
}

async function bulkLoad(client: LoreClient, sourceId: string, body: ReadableStream<Uint8Array>) {
  const res = await fetch(`${client.api}/data-sources/${sourceId}/entries/`, {
    method: "POST",
    headers: { Authorization: `Bearer ${client.accessToken}`, "Content-Type": "application/x-ndjson" },
    body,
    duplex: "half",
  } as RequestInit);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`bulk load: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as BulkTextEntriesResponse;
}

/** Waits until this sync run finished (completed, or throws) and returns the source. */
async function waitRun(client: LoreClient, sourceId: string, runId: string, timeoutMs = 60 * 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await client.json<Page<SyncRun>>("GET", `/data-sources/${sourceId}/syncs/?page_size=5`);
    const run = runs.results.find((r) => r.id === runId);
    if (run?.status === "completed") {
      const source = await client.getSource(sourceId);
      if (source.status === "ready") return { run, source };
    }
    if (run && (run.status === "failed" || run.status === "cancelled"))
      throw new Error(`sync ${runId} ${run.status}: ${run.error}`);
    if (Date.now() > deadline) throw new Error(`sync ${runId} not done after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function emptySource(client: LoreClient, name: string): Promise<DataSource> {
  const created = await client.json<DataSource>("POST", "/data-sources/", { name, type: "text", config: {} });
  return client.waitReady(created.id);
}

/** Allocated size of a directory in MB (what `du` reports), 0 when it does not exist. */
function diskMb(path: string): number {
  try {
    const kib = Number(execFileSync("du", ["-sk", path], { encoding: "utf8" }).split("\t")[0]);
    return round(kib / 1024, 1);
  } catch {
    return 0;
  }
}

/** The five largest LanceDB tables and other top-level entries of a data directory, MB. */
function largestParts(dataDir: string): Record<string, number> {
  const paths = [
    ...readdirSync(dataDir)
      .filter((n) => n !== "lance")
      .map((n) => join(dataDir, n)),
    ...readdirSync(join(dataDir, "lance")).map((n) => join(dataDir, "lance", n)),
  ];
  const sizes = paths.map((p) => [relative(dataDir, p), diskMb(p)] as const).sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(sizes.slice(0, 5));
}

/** A second look at the large load's data directory, this much later. */
const LATER_SECONDS = 90;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Loads `shape` (sources × entries each) into a fresh server; measures time to ready and disk once idle. */
async function loadShape(
  make: (i: number) => Entry,
  sources: number,
  perSource: number,
  idleSeconds: number,
  onServer?: (client: LoreClient, sourceIds: string[], dataDir: string) => Promise<void>,
): Promise<LoadRow> {
  const server = await startBenchServer();
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const ids: string[] = [];
    for (let s = 0; s < sources; s++) ids.push((await emptySource(client, `Text ${s + 1}`)).id);
    let peakKiB = 0;
    const sampler = setInterval(() => {
      peakKiB = Math.max(peakKiB, server.rssKiB() ?? 0);
    }, 500);
    const started = performance.now();
    const runs: string[] = [];
    for (let s = 0; s < sources; s++) {
      const loaded = await bulkLoad(
        client,
        ids[s] ?? "",
        ndjsonStream(make, s * perSource, (s + 1) * perSource),
      );
      if (!loaded.syncRun) throw new Error("the bulk load queued no sync");
      runs.push(loaded.syncRun.id);
    }
    let chunks = 0;
    for (let s = 0; s < sources; s++)
      chunks += (await waitRun(client, ids[s] ?? "", runs[s] ?? "")).source.chunkCount;
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    log(`text-entries: ${sources} × ${perSource} ready in ${round(seconds, 1)} s (${chunks} chunks)`);
    let textBytes = 0;
    for (let i = 0; i < sources * perSource; i++) textBytes += Buffer.byteLength(make(i).content);
    log(`text-entries: idle ${idleSeconds} s before measuring the data directory`);
    await sleep(idleSeconds * 1000);
    log(`text-entries: largest parts (MB) ${JSON.stringify(largestParts(server.dataDir))}`);
    const row: LoadRow = {
      shape: `${sources} source${sources > 1 ? "s" : ""} × ${perSource.toLocaleString("en")} entries`,
      entries: sources * perSource,
      chunks,
      seconds: round(seconds, 1),
      dataDirMb: diskMb(server.dataDir),
      dataSourcesMb: diskMb(join(server.dataDir, "lance", "data_sources.lance")),
      parts: largestParts(server.dataDir),
      textMb: round(textBytes / 1024 / 1024, 1),
      peakRssMb: round(peakKiB / 1024, 0),
      idleRssMb: round((server.rssKiB() ?? 0) / 1024, 0),
    };
    await onServer?.(client, ids, server.dataDir);
    return row;
  } finally {
    await server.close();
  }
}

export async function runTextEntries(
  options: { entries?: number; idleSeconds?: number; resultsDir?: string } = {},
): Promise<TextEntriesResult & { path: string }> {
  const entries = options.entries ?? 100_000;
  const idleSeconds = options.idleSeconds ?? 130;
  const make = entryMaker();
  let put: TextEntriesResult["put"] | null = null;
  let laterDataDirMb = 0;

  const load = await loadShape(make, 1, entries, idleSeconds, async (client, [sourceId], dataDir) => {
    const id = sourceId ?? "";
    const agent = await client.createAgent("Entries", { dataSourceIds: [id] });
    // One entry replaced once the source is idle: searchable once its sync (which skips every other entry) is done.
    const key = `p${Math.floor(entries / 2)}`;
    const marker = "quetzalcoatlus";
    const started = performance.now();
    const res = await client.json<{ syncRun: SyncRun | null }>(
      "PUT",
      `/data-sources/${id}/entries/${encodeURIComponent(key)}/`,
      { title: "Replaced entry", content: `The ${marker} was among the largest flying animals ever known.` },
    );
    let searchableMs = 0;
    for (;;) {
      const hits = await client.json<SearchResponse>("POST", `/agents/${(agent as Agent).id}/search/`, {
        query: marker,
      });
      if (hits.results.some((r) => r.title === "Replaced entry")) {
        searchableMs = Math.round(performance.now() - started);
        break;
      }
      if (performance.now() - started > 120_000)
        throw new Error("the replaced entry never became searchable");
      await sleep(100); // each search costs the server CPU the sync needs
    }
    const { run } = await waitRun(client, id, res.syncRun?.id ?? "");
    put = {
      searchableMs,
      run: {
        added: run.added,
        updated: run.updated,
        removed: run.removed,
        unchanged: run.unchanged,
        failed: run.failed,
      },
    };
    log(`text-entries: PUT searchable after ${searchableMs} ms; run ${JSON.stringify(put.run)}`);
    await sleep(LATER_SECONDS * 1000);
    laterDataDirMb = diskMb(dataDir);
    log(
      `text-entries: data directory ${LATER_SECONDS} s later: ${laterDataDirMb} MB ${JSON.stringify(largestParts(dataDir))}`,
    );
  });
  if (!put) throw new Error("the PUT measurement did not run");

  const shapeSize = Math.max(100, Math.round(entries / 10 / 100) * 100);
  const shapes = [
    await loadShape(make, 1, shapeSize, idleSeconds),
    await loadShape(make, 10, shapeSize / 10, idleSeconds),
  ];
  const notes = [
    `Entries are SQuAD v1.1 dev paragraphs (2,067 unique; entry i is paragraph i mod 2,067, tagged "(variant n)" on repeats), keyed p0…p${entries - 1}, streamed as NDJSON (about 1 MB per chunk) to \`POST /data-sources/{id}/entries/\` of a source created empty; "time to ready" runs from the first byte of the POST until its sync run completed.`,
    `Data directory: \`du -sk\` (allocated blocks) after ${idleSeconds} s idle (LanceDB keeps versions younger than the 60 s cleanup age; maintenance cleans again 65 s after a sync). RSS: the highest of samples every 500 ms from the POST until ready, and after the idle wait. The PUT is made after the idle wait (right after a load, it queues behind the post-sync index optimisation).`,
    "Keyword retrieval (no embedding model), the bench server's defaults.",
  ];
  const result: TextEntriesResult = {
    entries,
    idleSeconds,
    load,
    peakRssMb: load.peakRssMb,
    idleRssMb: load.idleRssMb,
    put,
    laterDataDirMb,
    shapes,
    notes,
  };
  const path = writeResult("text-entries", { ...result }, options.resultsDir);
  return { ...result, path };
}

export function textEntriesTable(r: TextEntriesResult): string {
  const rows = [r.load, ...r.shapes];
  const loads = markdownTable(
    [
      "shape",
      "chunks",
      "time to ready (s)",
      "data dir idle (MB)",
      "`data_sources` (MB)",
      "entries' text (MB)",
      "dir / text",
    ],
    rows.map((x) => [
      x.shape,
      x.chunks,
      x.seconds,
      x.dataDirMb,
      x.dataSourcesMb,
      x.textMb,
      `${round(x.dataDirMb / x.textMb, 2)}×`,
    ]),
  );
  const put = markdownTable(
    ["PUT one entry", "searchable after (ms)", "added", "updated", "removed", "unchanged", "failed"],
    [
      [
        `in the ${r.entries.toLocaleString("en")}-entry source`,
        r.put.searchableMs,
        r.put.run.added,
        r.put.run.updated,
        r.put.run.removed,
        r.put.run.unchanged,
        r.put.run.failed,
      ],
    ],
  );
  return `${loads}\n\n${put}\n\nThe ${r.entries.toLocaleString("en")}-entry data directory ${LATER_SECONDS} s later (after the PUT): ${r.laterDataDirMb} MB (${round(r.laterDataDirMb / r.load.textMb, 2)}× the text). Server RSS during the ${r.entries.toLocaleString("en")}-entry load: ${r.peakRssMb} MB at most; after ${r.idleSeconds} s idle: ${r.idleRssMb} MB.`;
}

function arg(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entries = arg("--entries") ?? (Number(process.env.LORE_BENCH_TEXT_ENTRIES) || undefined);
  const idleSeconds = arg("--idle-seconds") ?? (Number(process.env.LORE_BENCH_IDLE_SECONDS) || undefined);
  const result = await runTextEntries({ entries, idleSeconds });
  console.log(textEntriesTable(result));
  console.log(result.notes.join("\n"));
  console.log(`wrote ${result.path}`);
}
