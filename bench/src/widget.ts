/**
 * Widget weight and speed: loader and panel sizes raw and gzip (`widget/dist/manifest.json`, checked
 * against the files), then in headless Chromium (playwright-core, /usr/bin/chromium) on a host page
 * served from 127.0.0.1 with the script tag: time from the script tag to the launcher visible, from
 * the click to the panel interactive (input enabled), and long tasks on the host page
 * (PerformanceObserver 'longtask'). Fresh browser context per run (cold cache), median of runs.
 * Long tasks are split by when they start: before the widget's script tag ran (the host page's own
 * load) or after; and the same page without the widget is loaded as many times as a control.
 *
 *   node_modules/.bin/tsx bench/src/widget.ts [--runs 7]
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium, type Page } from "playwright-core";
import { LoreClient } from "./lib/api.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { repoRoot, startBenchServer } from "./lib/server.ts";
import { percentile, round } from "./lib/stats.ts";

interface ManifestEntry {
  file: string;
  bytes: number;
  gzip: number;
}

export interface SizeRow {
  part: string;
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface WidgetTimings {
  runs: number;
  launcherVisibleMs: { p50: number; max: number };
  panelInteractiveMs: { p50: number; max: number };
  scriptToPanelInteractiveMs: { p50: number; max: number };
  /** Every long task on the host page, from navigation on. */
  longTasks: number;
  longestTaskMs: number;
  /** Those that started once the widget's script tag had run. */
  afterScriptLongTasks: number;
  afterScriptLongestMs: number;
  /** Those that started after the click on the launcher (opening the panel). */
  afterClickLongTasks: number;
  afterClickLongestMs: number;
  /** The same host page without the widget, loaded as often: Chromium's own cold-start tasks. */
  controlLongTasks: number;
  controlLongestMs: number;
}

export function widgetSizes(dist = join(repoRoot, "widget/dist")): SizeRow[] {
  const manifest = JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8")) as Record<
    string,
    ManifestEntry
  >;
  const rows: SizeRow[] = [];
  for (const [part, entry] of Object.entries(manifest)) {
    const bytes = readFileSync(join(dist, entry.file));
    rows.push({
      part,
      file: entry.file,
      bytes: bytes.length,
      gzipBytes: gzipSync(bytes, { level: 9 }).length,
    });
  }
  // What a page in English downloads: the loader and the panel; another language adds the i18n chunk.
  const english = rows.filter((r) => r.part === "loader" || r.part === "panel");
  rows.push({
    part: "English page (loader + panel)",
    file: "widget.js + panel",
    bytes: english.reduce((n, r) => n + r.bytes, 0),
    gzipBytes: english.reduce((n, r) => n + r.gzipBytes, 0),
  });
  rows.push({
    part: "whole widget (JS + CSS)",
    file: "all of the above",
    bytes: rows.reduce((n, r) => (r.part.startsWith("English") ? n : n + r.bytes), 0),
    gzipBytes: rows.reduce((n, r) => (r.part.startsWith("English") ? n : n + r.gzipBytes), 0),
  });
  return rows;
}

function hostPage(serverUrl: string, widgetId: string | null): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Host</title>
<script>
window.__longTasks = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration }); })
  .observe({ type: "longtask", buffered: true });
window.__marks = {};
(function poll() {
  const root = document.querySelector("lore-widget")?.shadowRoot;
  const launcher = root?.querySelector('[data-lore="launcher"]');
  if (launcher && !window.__marks.launcher) {
    const r = launcher.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && getComputedStyle(launcher).visibility !== "hidden") window.__marks.launcher = performance.now();
  }
  const input = root?.querySelector('[data-lore="input"]');
  if (input && !input.disabled && input.getBoundingClientRect().width > 0 && !window.__marks.panel) window.__marks.panel = performance.now();
  if (!window.__marks.panel) requestAnimationFrame(poll);
})();
</script></head><body><main><h1>A host page</h1><p>Some content the visitor reads.</p></main>
<script>window.__marks.script = performance.now();</script>
${widgetId === null ? "" : `<script src="${serverUrl}/widget.js" data-widget-id="${widgetId}" async></script>`}
</body></html>`;
}

export async function runWidget(options: { runs?: number; resultsDir?: string } = {}): Promise<{
  sizes: SizeRow[];
  timings: WidgetTimings | null;
  notes: string[];
  path: string;
}> {
  const sizes = widgetSizes();
  const notes: string[] = [];
  let timings: WidgetTimings | null = null;
  const runs = options.runs ?? 7;
  const server = await startBenchServer();
  let pageHtml = "";
  const host = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(pageHtml);
  });
  await new Promise<void>((r) => host.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: process.env.LORE_CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    const client = new LoreClient(server.api);
    await client.login();
    const agent = await client.createAgent("Widget", { allowedOrigins: [origin] });
    pageHtml = hostPage(server.url, agent.widgetId);
    const launcher: number[] = [];
    const panel: number[] = [];
    const total: number[] = [];
    const longTasks: LongTask[] = [];
    const afterScript: LongTask[] = [];
    const afterClick: LongTask[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      await page.waitForFunction(
        () => (window as unknown as { __marks: { launcher?: number } }).__marks.launcher,
      );
      const clickAt = await page.evaluate(() => performance.now());
      await page.locator('[data-lore="launcher"]').click();
      await page.waitForFunction(
        () => (window as unknown as { __marks: { panel?: number } }).__marks.panel,
        null,
        {
          timeout: 15_000,
        },
      );
      await page.waitForTimeout(300);
      const { marks: m, longTasks: tasks } = await pageMarks(page);
      const script = m.script ?? 0;
      launcher.push((m.launcher ?? 0) - script);
      panel.push((m.panel ?? 0) - clickAt);
      total.push((m.panel ?? 0) - script);
      longTasks.push(...tasks);
      afterScript.push(...tasks.filter((t) => t.start >= script));
      afterClick.push(...tasks.filter((t) => t.start >= clickAt));
      await context.close();
    }
    // Control: the same page without the widget, held as long as a widget run lasts.
    pageHtml = hostPage(server.url, null);
    const control: LongTask[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      await page.waitForTimeout(Math.max(300, percentile(total, 50) + 300));
      control.push(...(await pageMarks(page)).longTasks);
      await context.close();
    }
    const longest = (tasks: LongTask[]) => round(Math.max(0, ...tasks.map((t) => t.ms)), 1);
    const stat = (xs: number[]) => ({ p50: round(percentile(xs, 50), 1), max: round(Math.max(...xs), 1) });
    timings = {
      runs,
      launcherVisibleMs: stat(launcher),
      panelInteractiveMs: stat(panel),
      scriptToPanelInteractiveMs: stat(total),
      longTasks: longTasks.length,
      longestTaskMs: longest(longTasks),
      afterScriptLongTasks: afterScript.length,
      afterScriptLongestMs: longest(afterScript),
      afterClickLongTasks: afterClick.length,
      afterClickLongestMs: longest(afterClick),
      controlLongTasks: control.length,
      controlLongestMs: longest(control),
    };
    notes.push(
      "Panel interactive = the composer input is present, enabled and laid out; timed from the click (which includes playwright's dispatch).",
    );
    log(`widget: ${JSON.stringify(timings)}`);
  } catch (error) {
    notes.push(`Browser timings failed: ${String(error)}`);
  } finally {
    await browser.close();
    await new Promise<void>((r) => host.close(() => r()));
    await server.close();
  }
  const path = writeResult("widget", { sizes, timings, notes }, options.resultsDir);
  return { sizes, timings, notes, path };
}

interface LongTask {
  start: number;
  ms: number;
}

function pageMarks(page: Page): Promise<{ marks: Record<string, number>; longTasks: LongTask[] }> {
  return page.evaluate(() => {
    const w = window as unknown as { __marks: Record<string, number>; __longTasks: LongTask[] };
    return { marks: w.__marks, longTasks: w.__longTasks };
  });
}

export function widgetTable(sizes: readonly SizeRow[], timings: WidgetTimings | null): string {
  const t = markdownTable(
    ["part", "file", "bytes", "gzip bytes"],
    sizes.map((s) => [s.part, s.file, s.bytes, s.gzipBytes]),
  );
  if (!timings) return t;
  return `${t}\n\n${markdownTable(
    [
      "runs",
      "script → launcher visible p50 (max) ms",
      "click → panel interactive p50 (max) ms",
      "long tasks (longest ms)",
      "of which after the script tag",
      "of which after the click",
      "control page without the widget",
    ],
    [
      [
        timings.runs,
        `${timings.launcherVisibleMs.p50} (${timings.launcherVisibleMs.max})`,
        `${timings.panelInteractiveMs.p50} (${timings.panelInteractiveMs.max})`,
        `${timings.longTasks} (${timings.longestTaskMs})`,
        `${timings.afterScriptLongTasks} (${timings.afterScriptLongestMs})`,
        `${timings.afterClickLongTasks} (${timings.afterClickLongestMs})`,
        `${timings.controlLongTasks} (${timings.controlLongestMs})`,
      ],
    ],
  )}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--runs");
  const result = await runWidget({ runs: i >= 0 ? Number(process.argv[i + 1]) : undefined });
  console.log(widgetTable(result.sizes, result.timings));
  for (const n of result.notes) console.log(n);
  console.log(`wrote ${result.path}`);
}
