// Loaded into the soak's server child via NODE_OPTIONS=--import (plain JS: it runs before tsx).
// Appends one memory sample a second to $SOAK_MEMORY_LOG, so the server needs no debug endpoint.
import { appendFileSync, readFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const file = process.env.SOAK_MEMORY_LOG;

function statusKb(status, key) {
  const match = new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status);
  return match ? Number(match[1]) : 0;
}

if (isMainThread && file) {
  const timer = setInterval(() => {
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
    };
    appendFileSync(file, `${JSON.stringify(sample)}\n`);
  }, 1000);
  timer.unref();
}
