import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Context } from "hono";
import type { Logger } from "../log/logger.ts";
import type { AppEnv } from "./principal.ts";

/** A stretch of time the event loop did not turn, and the request it is laid to. */
export interface Stall {
  /** The matched route pattern (`/api/agents/:agentId/query/`), null when no request was running. */
  route: string | null;
  method: string | null;
  ms: number;
  /** When the loop turned again (ISO 8601). */
  at: string;
}

export interface EventLoopState {
  /** The 99th percentile of the loop's delay over the last one to two minutes, milliseconds. */
  delayP99Ms: number;
  lastStall: Stall | null;
}

/** The event-loop watchdog of one server: requests register while they run, `/healthz` reads `state`. */
export interface LoopWatchdog {
  /** A request starts running; call the returned function when it ends. */
  begin(c: Context<AppEnv>): () => void;
  state(): EventLoopState;
  stop(): void;
}

// The sampler's period: a stall is seen within this of its end, and costs 40 wake-ups a second.
const SAMPLE_MS = 25;
const P99_WINDOW_MS = 60_000;

interface Running {
  c: Context<AppEnv>;
  started: number;
}

/**
 * Watches the event loop with a timer-drift sampler: a tick that comes `budgetMs` or more late means
 * one task held the loop that long. The stall is logged as one line naming the request that was
 * running (the most recently started one if several overlapped: JavaScript cannot tell which task
 * ran, `concurrent` says how many could have) and kept for `/healthz`.
 */
export function startLoopWatchdog(budgetMs: number, logger: Logger): LoopWatchdog {
  const running = new Set<Running>();
  // Requests that ended since the last tick: the one that held the loop usually ends right after it.
  let ended: Running[] = [];
  let lastStall: Stall | null = null;
  let last = performance.now();

  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let previousP99 = 0;
  const rotate = setInterval(() => {
    previousP99 = delay.percentile(99);
    delay.reset();
  }, P99_WINDOW_MS);
  rotate.unref();

  const sampler = setInterval(() => {
    const now = performance.now();
    const late = now - last - SAMPLE_MS;
    last = now;
    const candidates = [...running, ...ended];
    ended = [];
    if (late < budgetMs) return;
    let blamed: Running | null = null;
    for (const r of candidates) if (!blamed || r.started > blamed.started) blamed = r;
    const ms = Math.round(late);
    lastStall = {
      route: blamed ? routeOf(blamed.c) : null,
      method: blamed ? blamed.c.req.method : null,
      ms,
      at: new Date().toISOString(),
    };
    logger.warn("event loop blocked", {
      ms,
      budgetMs,
      route: lastStall.route,
      method: lastStall.method,
      requestBytes: blamed ? requestBytes(blamed.c) : null,
      requestId: blamed ? blamed.c.get("requestId") : null,
      concurrent: candidates.length,
    });
  }, SAMPLE_MS);
  sampler.unref();

  return {
    begin(c) {
      const entry = { c, started: performance.now() };
      running.add(entry);
      return () => {
        running.delete(entry);
        ended.push(entry);
      };
    },
    state() {
      const p99 = Math.max(previousP99, delay.percentile(99));
      return { delayP99Ms: Math.round(p99 / 1e6), lastStall };
    },
    stop() {
      clearInterval(sampler);
      clearInterval(rotate);
      delay.disable();
    },
  };
}

/** The route pattern the request matched (never the raw URL, whose ids and query are the caller's). */
function routeOf(c: Context<AppEnv>): string {
  const routes = c.req.matchedRoutes.filter((r) => r.method !== "ALL");
  return routes.at(-1)?.path ?? "(no route)";
}

function requestBytes(c: Context<AppEnv>): number | null {
  const length = Number(c.req.header("content-length"));
  return Number.isFinite(length) && length >= 0 ? length : null;
}
