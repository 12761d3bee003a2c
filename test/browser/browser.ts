/**
 * Browser-test helpers: Debian's Chromium driven by playwright-core (browsers are never downloaded),
 * a watch on every page for console errors, page errors and CSP violations, the widget build, and a
 * tiny static host-page server on 127.0.0.1.
 *
 *   const browser = await launchBrowser();               // one per test file
 *   const { page, problems } = await openPage(browser);  // problems.cspViolations, .consoleErrors…
 *   await browser.close();
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContextOptions, chromium, type Locator, type Page } from "playwright-core";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";

export const CHROMIUM_PATH = process.env.LORE_CHROMIUM ?? "/usr/bin/chromium";
// Not imported from helpers/server.ts: that module imports vitest, and the benchmarks (bench/src/console.ts) use this one outside it.
const repoRoot = resolve(fileURLToPath(new URL("../..", import.meta.url)));

export const ARTIFACTS_DIR = join(repoRoot, "test-results");

/** Launches headless Chromium; fails with a clear message when it is not installed. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install it with 'apt-get install -y chromium' or set LORE_CHROMIUM`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
}

/** Builds a workspace package once if its output file is missing (npm test builds both first). */
function ensureBuilt(pkg: string, output: string): void {
  if (existsSync(join(repoRoot, output))) return;
  try {
    execFileSync("npx", ["-y", "pnpm@10.34.8", "--filter", pkg, "run", "build"], {
      cwd: repoRoot,
      stdio: "pipe",
      timeout: 120_000,
    });
  } catch (error) {
    throw new Error(
      `${output} is missing and building it failed; run 'pnpm --filter ${pkg} run build': ${error}`,
    );
  }
  if (!existsSync(join(repoRoot, output))) throw new Error(`${output} missing after build`);
}

/** Builds the widget once if `widget/dist/widget.js` is missing. */
export function ensureWidgetBuilt(): void {
  ensureBuilt("@lore/widget", "widget/dist/widget.js");
}

/** Builds the owner console once if `console/dist/index.html` is missing. */
export function ensureConsoleBuilt(): void {
  ensureBuilt("@lore/console", "console/dist/index.html");
}

export interface PageProblems {
  /** `console.error` messages (including Chromium's own "Refused to …" CSP reports). */
  consoleErrors: string[];
  /** `securitypolicyviolation` events: "directive blockedURI". */
  cspViolations: string[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
}

const CSP_MARK = "[lore-test:csp]";

/** Starts recording a page's console errors, uncaught errors and CSP violations (set before navigating). */
export async function watchPage(page: Page): Promise<PageProblems> {
  const problems: PageProblems = { consoleErrors: [], cspViolations: [], pageErrors: [] };
  page.on("console", (message) => {
    const text = message.text();
    if (text.startsWith(CSP_MARK)) problems.cspViolations.push(text.slice(CSP_MARK.length).trim());
    else if (message.type() === "error") problems.consoleErrors.push(text);
  });
  page.on("pageerror", (error) => problems.pageErrors.push(error.message));
  // Init scripts are injected by the browser, not the page, so they run under any CSP.
  await page.addInitScript((mark: string) => {
    document.addEventListener(
      "securitypolicyviolation",
      (event) =>
        console.warn(
          `${mark} ${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`,
        ),
      true,
    );
  }, CSP_MARK);
  return problems;
}

/** A new context and page with problems recorded. */
export async function openPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ page: Page; problems: PageProblems }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const problems = await watchPage(page);
  return { page, problems };
}

/** Saves a screenshot under test-results/ (gitignored) and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

export interface HostFile {
  body: string;
  type?: string;
  headers?: Record<string, string>;
}

export interface HostSite {
  /** `http://127.0.0.1:PORT`, the origin to allow on the agent. */
  origin: string;
  set(path: string, file: HostFile): void;
  close(): Promise<void>;
}

/** A static site on 127.0.0.1 that serves the given files (a host page embedding the widget). */
export async function startHostSite(files: Record<string, HostFile> = {}): Promise<HostSite> {
  const table = new Map(Object.entries(files));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = table.get(path);
    if (!file) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "Content-Type": file.type ?? "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      ...file.headers,
    });
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    set: (path, file) => table.set(path, file),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Waits until an async reading satisfies `done`, returning every distinct reading seen on the way
 * (used to watch streamed text grow).
 */
export async function observeUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 15_000, intervalMs = 15 } = {},
): Promise<T[]> {
  const seen: T[] = [];
  await until(
    async () => {
      const value = await read();
      if (seen.length === 0 || JSON.stringify(seen.at(-1)) !== JSON.stringify(value)) seen.push(value);
      return done(value);
    },
    {
      timeout: timeoutMs,
      interval: intervalMs,
      what: () => `the end; last readings: ${JSON.stringify(seen.slice(-3))}`,
    },
  );
  return seen;
}

/** Polls `check` until it returns true (usable in hooks, where expect.poll is not). */
export async function waitUntil(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  await until(check, { what, timeout: timeoutMs, interval: 50 });
}

const axeSource: string = createRequire(import.meta.url)("axe-core").source;

/** Runs axe-core on the whole page (shadow roots included); "rule: targets" per violation. */
export async function runAxe(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, so the page's strict CSP does not block it.
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    type AxeResult = { violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> };
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<AxeResult> } })
      .axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

/**
 * Presses Tab (or Shift+Tab) until `target` has focus, as a keyboard user would reach it; fails
 * after `limit` presses.
 */
export async function tabTo(page: Page, target: Locator, { back = false, limit = 80 } = {}): Promise<void> {
  for (let i = 0; i < limit; i++) {
    const reached = await target
      .evaluate((el) => el === document.activeElement, undefined, { timeout: 1000 })
      .catch(() => false);
    if (reached) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`Tab never reached ${target}`);
}

/** Opens the console (at `hash`, a route like `#/agents/{id}/settings`) and signs in as the test admin. */
export async function signInToConsole(page: Page, origin: string, hash = ""): Promise<void> {
  await page.goto(`${origin}/console/${hash}`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
}
