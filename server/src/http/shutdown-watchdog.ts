import { constants } from "node:os";
import { Worker } from "node:worker_threads";

/** How often the main thread marks that its event loop turned. */
const HEARTBEAT_MS = 100;
/** No mark for this long: the loop is held by one task (the signal handler cannot run). */
const STALLED_MS = 1000;
/** Past the shutdown's own deadline (delay + grace + the streams' last second), how long to wait for it. */
const MARGIN_MS = 2000;
/** main.ts's own last resort past delay + grace, which needs a turning loop too. */
const LAST_RESORT_MS = 20_000;

const FORCE_EXIT = Symbol.for("lore.forceExit");

/**
 * The watchdog thread. Node runs `process.on("SIGTERM")` on the main thread's loop only, so while
 * one task holds that loop a SIGTERM waits with it (issue #34: 10 minutes). libuv tells every
 * loop that watches a signal, and the signal binding is the one way for a worker's loop to watch
 * one (`process.binding` is deprecated, DEP0111, hence the feature check). Past the deadline with
 * the main loop still held, the inspector's main-thread session interrupts the running task to
 * exit (its exit handlers flush the logs); a kill follows if even that cannot run.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const { beat, deadlineMs, stalledMs, lastResortMs, signals } = workerData;
let signalledAt = 0;
let forcing = false;
try {
  process.noDeprecation = true;
  const { Signal } = process.binding("signal_wrap");
  for (const signum of signals) {
    const handle = new Signal();
    handle.onsignal = () => { if (!signalledAt) signalledAt = Date.now(); };
    if (handle.start(signum) !== 0) throw new Error("signal watch refused");
    handle.unref();
  }
} catch (error) {
  parentPort.postMessage({ unavailable: String(error && error.message) });
  process.exit(0);
}
function force(stalled) {
  forcing = true;
  try {
    const session = new (require("node:inspector").Session)();
    session.connectToMainThread();
    session.post("Runtime.evaluate", { expression: "globalThis[Symbol.for('lore.forceExit')](" + stalled + ")" });
  } catch {}
  setTimeout(() => process.kill(process.pid, "SIGKILL"), 2000).unref();
}
setInterval(() => {
  if (!signalledAt || forcing) return;
  const now = Date.now();
  const since = now - signalledAt;
  const stalled = now - Number(Atomics.load(beat, 0));
  if ((since >= deadlineMs && stalled >= stalledMs) || since >= lastResortMs) force(stalled);
}, 100);
`;

export interface ShutdownWatchdog {
  stop(): Promise<void>;
}

/**
 * Makes SIGTERM/SIGINT end the process within the shutdown's deadline even while one task holds the
 * event loop: `onForce` runs on the main thread, interrupting that task, when the loop has not
 * turned for a second past delay + grace + 3 s. `onUnavailable` is told if this Node cannot watch
 * signals off the main thread.
 */
export function startShutdownWatchdog(options: {
  delayMs: number;
  graceMs: number;
  onForce: (stalledMs: number) => void;
  onUnavailable: (reason: string) => void;
}): ShutdownWatchdog {
  const beat = new BigInt64Array(new SharedArrayBuffer(8));
  const mark = () => Atomics.store(beat, 0, BigInt(Date.now()));
  mark();
  const heartbeat = setInterval(mark, HEARTBEAT_MS);
  heartbeat.unref();
  (globalThis as Record<symbol, unknown>)[FORCE_EXIT] = options.onForce;
  const deadlineMs = options.delayMs + options.graceMs + 1000 + MARGIN_MS;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    execArgv: [],
    workerData: {
      beat,
      deadlineMs,
      stalledMs: STALLED_MS,
      lastResortMs: options.delayMs + options.graceMs + LAST_RESORT_MS + MARGIN_MS,
      signals: [constants.signals.SIGTERM, constants.signals.SIGINT],
    },
  });
  worker.on("message", (message: { unavailable?: string }) => {
    if (message.unavailable !== undefined) options.onUnavailable(message.unavailable);
  });
  worker.unref();
  return {
    async stop() {
      clearInterval(heartbeat);
      await worker.terminate();
    },
  };
}
