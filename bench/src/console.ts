/**
 * Owner console weight and speed: the JS and CSS of `console/dist` raw, gzip -9 and brotli (the
 * precompressed files the server sends), then in headless Chromium against a real server: the time
 * from the click on the Conversations tab to the first rows of a 10,000-conversation review queue on
 * screen, from a scroll to its end to the last rows on screen, and from a click on a row to a
 * 200-message transcript on screen. The conversation pages and the transcript are served by
 * `page.route` from generated data (seeding 10,000 real conversations would time the server, not
 * the console); everything else is the real API. Fresh context per run, median and max of runs.
 *
 *   node_modules/.bin/tsx bench/src/console.ts [--runs 5]
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../../test/browser/browser.ts";
import { LoreClient } from "./lib/api.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD, repoRoot, startBenchServer } from "./lib/server.ts";
import { percentile, round } from "./lib/stats.ts";

export interface ConsoleSizeRow {
  file: string;
  bytes: number;
  gzipBytes: number;
  brotliBytes: number;
}

export interface ConsoleTimings {
  runs: number;
  conversations: number;
  transcriptMessages: number;
  listFirstRowsMs: { p50: number; max: number };
  listScrollToEndMs: { p50: number; max: number };
  transcriptMs: { p50: number; max: number };
  /** Rows in the DOM while the whole list is "shown". */
  rowsInDom: number;
}

const CONVERSATIONS = 10_000;
const MESSAGES = 200;

/** The console's JS and CSS as index.html names them, and their total. */
export function consoleSizes(dist = join(repoRoot, "console/dist")): ConsoleSizeRow[] {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const files = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[\w.-]+\.(?:js|css))"/g)].map(
    (m) => m[1] ?? "",
  );
  const rows = files.map((file) => {
    const bytes = readFileSync(join(dist, file));
    return {
      file,
      bytes: bytes.length,
      gzipBytes: gzipSync(bytes, { level: 9 }).length,
      brotliBytes: statSync(join(dist, `${file}.br`)).size,
    };
  });
  const sum = (key: "bytes" | "gzipBytes" | "brotliBytes") => rows.reduce((n, r) => n + r[key], 0);
  return [
    ...rows,
    {
      file: "whole console (JS + CSS)",
      bytes: sum("bytes"),
      gzipBytes: sum("gzipBytes"),
      brotliBytes: sum("brotliBytes"),
    },
  ];
}

function conversationPage(page: number, pageSize: number) {
  const results = [];
  const start = (page - 1) * pageSize;
  for (let i = start; i < Math.min(CONVERSATIONS, start + pageSize); i++) {
    const at = new Date(Date.now() - i * 60_000).toISOString();
    results.push({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      title: `Visitor question number ${i + 1}: how do I reset my password on the mobile app?`,
      messageCount: 4,
      createdAt: at,
      updatedAt: at,
      upvotes: i % 7 === 0 ? 1 : 0,
      downvotes: i % 3 === 0 ? 1 : 0,
      unanswered: i % 5 === 0 ? 1 : 0,
    });
  }
  const more = start + pageSize < CONVERSATIONS;
  return {
    count: CONVERSATIONS,
    next: more ? `?page=${page + 1}` : null,
    previous: page > 1 ? `?page=${page - 1}` : null,
    results,
  };
}

function transcript(conversationId: string) {
  const at = new Date().toISOString();
  const messages = [];
  for (let i = 0; i < MESSAGES; i++) {
    const user = i % 2 === 0;
    const n = Math.floor(i / 2) + 1;
    const sources = user
      ? []
      : [1, 2, 3].map((rank) => ({
          rank,
          documentId: `doc-${rank}`,
          chunkId: `chunk-${n}-${rank}`,
          title: `Help article ${rank}`,
          dataSourceName: "Help center",
          dataSourceType: "web",
          sourceUrl: `https://help.example.com/${rank}`,
          content:
            "Open Settings, choose Account, then Reset password. A link arrives by email within minutes.",
          score: 0.8 - rank * 0.1,
          displayMode: "expandable",
        }));
    messages.push({
      id: `10000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      conversationId,
      role: user ? "user" : "assistant",
      content: user
        ? `Question ${n}: how do I reset my password?`
        : `To reset it, open **Settings** → *Account* and choose **Reset password** [1]. Then:\n\n- check your email [2]\n- follow the link within an hour [3]\n\nSee \`Account > Security\` for more.`,
      sources,
      model: user ? null : "extractive",
      latency: user ? null : 120 + n,
      tokensUsed: user ? null : 90,
      retrievalTime: user ? null : 12,
      generationTime: user ? null : 100,
      status: "complete",
      feedback: user ? null : n % 4 === 0 ? "down" : null,
      feedbackComment: null,
      fallback: false,
      correctionId: null,
      createdAt: at,
    });
  }
  return {
    id: conversationId,
    title: "A long conversation",
    messageCount: MESSAGES,
    createdAt: at,
    updatedAt: at,
    messages,
  };
}

/** Runs `action` in the page and resolves with the ms until `done` holds on a painted frame. */
function timeInPage(page: Page, action: string, done: string): Promise<number> {
  // A string, not a function: tsx would wrap a function's inner closures in a helper the page lacks.
  return page.evaluate(`new Promise((resolve, reject) => {
    const t0 = performance.now();
    ${action};
    function poll() {
      if (performance.now() - t0 > 10000) reject(new Error("timed out waiting for the rows"));
      else if (${done}) requestAnimationFrame(() => resolve(performance.now() - t0));
      else requestAnimationFrame(poll);
    }
    requestAnimationFrame(poll);
  })`);
}

async function timeRun(browser: Browser, url: string, agentId: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.route(`**/api/agents/${agentId}/conversations/?*`, (route) => {
    const query = new URL(route.request().url()).searchParams;
    const body = conversationPage(Number(query.get("page") ?? 1), Number(query.get("page_size") ?? 20));
    return route.fulfill({ json: body });
  });
  await page.route(new RegExp(`/api/agents/${agentId}/conversations/([\\w-]+)/$`), (route) => {
    const id = /conversations\/([\w-]+)\/$/.exec(route.request().url())?.[1] ?? "";
    return route.fulfill({ json: transcript(id) });
  });
  await page.goto(`${url}/console/`);
  await page.getByLabel("Email").fill(BENCH_ADMIN_EMAIL);
  await page.getByLabel("Password").fill(BENCH_ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("tab", { name: "Settings", selected: true }).waitFor();
  const list = await timeInPage(
    page,
    `document.querySelector('[data-tab="conversations"]').click()`,
    `document.querySelectorAll('.conv-row .conv-title').length > 5`,
  );
  const rowsInDom = await page.locator(".conv-row").count();
  const scroll = await timeInPage(
    page,
    `const s = document.querySelector('.conv-scroll'); s.scrollTop = s.scrollHeight`,
    `document.querySelector('.conv-row[aria-posinset="${CONVERSATIONS}"] .conv-title') !== null`,
  );
  const thread = await timeInPage(
    page,
    `document.querySelector('.conv-row .conv-link').click()`,
    `document.querySelectorAll('.thread > .msg').length === ${MESSAGES}`,
  );
  await context.close();
  return { list, scroll, thread, rowsInDom };
}

export async function runConsole(options: { runs?: number; resultsDir?: string } = {}): Promise<{
  sizes: ConsoleSizeRow[];
  timings: ConsoleTimings | null;
  notes: string[];
  path: string;
}> {
  const sizes = consoleSizes();
  const notes: string[] = [];
  let timings: ConsoleTimings | null = null;
  const runs = options.runs ?? 5;
  const server = await startBenchServer();
  const browser = await launchBrowser();
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const agent = await client.createAgent("Console bench");
    const list: number[] = [];
    const scroll: number[] = [];
    const thread: number[] = [];
    let rowsInDom = 0;
    for (let i = 0; i < runs; i++) {
      const r = await timeRun(browser, server.url, agent.id);
      list.push(r.list);
      scroll.push(r.scroll);
      thread.push(r.thread);
      rowsInDom = r.rowsInDom;
    }
    const stat = (xs: number[]) => ({ p50: round(percentile(xs, 50), 1), max: round(Math.max(...xs), 1) });
    timings = {
      runs,
      conversations: CONVERSATIONS,
      transcriptMessages: MESSAGES,
      listFirstRowsMs: stat(list),
      listScrollToEndMs: stat(scroll),
      transcriptMs: stat(thread),
      rowsInDom,
    };
    notes.push(
      "Times run from the click (or the scroll) in the page to the next frame after the rows are in the DOM, and include fetching the page of 100 rows (or the transcript) from playwright's route handler.",
    );
    log(`console: ${JSON.stringify(timings)}`);
  } catch (error) {
    notes.push(`Browser timings failed: ${String(error)}`);
  } finally {
    await browser.close();
    await server.close();
  }
  const path = writeResult("console", { sizes, timings, notes }, options.resultsDir);
  return { sizes, timings, notes, path };
}

export function consoleTable(sizes: readonly ConsoleSizeRow[], timings: ConsoleTimings | null): string {
  const t = markdownTable(
    ["file", "bytes", "gzip bytes", "brotli bytes"],
    sizes.map((s) => [s.file, s.bytes, s.gzipBytes, s.brotliBytes]),
  );
  if (!timings) return t;
  return `${t}\n\n${markdownTable(
    [
      "runs",
      `${timings.conversations.toLocaleString("en")}-conversation list: first rows p50 (max) ms`,
      "scroll to its end p50 (max) ms",
      `${timings.transcriptMessages}-message transcript p50 (max) ms`,
      "list rows in the DOM",
    ],
    [
      [
        timings.runs,
        `${timings.listFirstRowsMs.p50} (${timings.listFirstRowsMs.max})`,
        `${timings.listScrollToEndMs.p50} (${timings.listScrollToEndMs.max})`,
        `${timings.transcriptMs.p50} (${timings.transcriptMs.max})`,
        timings.rowsInDom,
      ],
    ],
  )}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--runs");
  const result = await runConsole({ runs: i >= 0 ? Number(process.argv[i + 1]) : undefined });
  console.log(consoleTable(result.sizes, result.timings));
  for (const n of result.notes) console.log(n);
  console.log(`wrote ${result.path}`);
}
