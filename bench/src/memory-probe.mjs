// Loaded into the soak's server child via NODE_OPTIONS=--import (plain JS: it runs before tsx).
// Appends one memory sample a second to $SOAK_MEMORY_LOG, so the server needs no debug endpoint.
// With $SOAK_GC_EVERY=N, every N-th sample first runs a full collection, so its heap is what is live
// (without it, the heap sampled between V8's major collections rises and falls by tens of MB).
import { appendFileSync, readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { isMainThread } from "node:worker_threads";

const file = process.env.SOAK_MEMORY_LOG;
const gcEvery = Number(process.env.SOAK_GC_EVERY ?? 0);

function collector() {
  if (!(gcEvery > 0)) return null;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc");
}

function statusKb(status, key) {
  const match = new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status);
  return match ? Number(match[1]) : 0;
}

if (isMainThread && file) {
  const gc = collector();
  let tick = 0;
  const timer = setInterval(() => {
    tick += 1;
    const afterGc = gc !== null && tick % gcEvery === 0;
    if (afterGc) gc();
    const m = process.memoryUsage();
    let status = "";
    try {
      status = readFileSync("/proc/self/status", "utf8");
    } catch {
      // not Linux: the process.memoryUsage() numbers only
    }
    const sample = {
      at: Date.now(),
      rss: m.rss,
      heapTotal: m.heapTotal,
      heapUsed: m.heapUsed,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      rssAnon: statusKb(status, "RssAnon") * 1024,
      rssFile: statusKb(status, "RssFile") * 1024,
      threads: statusKb(status, "Threads"),
      afterGc,
    };
    appendFileSync(file, `${JSON.stringify(sample)}\n`);
  }, 1000);
  timer.unref();
}
