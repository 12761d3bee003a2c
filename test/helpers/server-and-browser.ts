/**
 * A browser test file's set-up: the builds it serves, then a test server and Chromium started side
 * by side, and the admin's token; closed again with `closeAll(browser, server, …)` (dispose.ts).
 *
 *   beforeAll(async () => {
 *     ({ server, browser, token } = await startServerAndBrowser({ serves: ["console"], env }));
 *   });
 *   afterAll(() => closeAll(browser, server));
 */
import type { Browser } from "playwright-core";
import { ensureConsoleBuilt, ensureWidgetBuilt, launchBrowser } from "../browser/browser.ts";
import { startTestServer, type TestServer } from "./server.ts";

export interface ServerAndBrowser {
  server: TestServer;
  browser: Browser;
  /** The admin's access token. */
  token: string;
}

export async function startServerAndBrowser(options: {
  /** What the pages load: the owner console and/or the widget (built once if missing). */
  serves: Array<"console" | "widget">;
  env?: Record<string, string>;
}): Promise<ServerAndBrowser> {
  if (options.serves.includes("widget")) ensureWidgetBuilt();
  if (options.serves.includes("console")) ensureConsoleBuilt();
  const [server, browser] = await Promise.all([startTestServer(options.env), launchBrowser()]);
  return { server, browser, token: (await server.login()).access };
}
