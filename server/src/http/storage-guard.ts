import type { MiddlewareHandler } from "hono";
import { storageUnavailable } from "../errors.ts";
import type { StorageHealth } from "../store/storage-health.ts";
import type { AppEnv } from "./principal.ts";

/** A write checks the disk itself at most this often (the health's own probe runs every 10 s). */
const RECHECK_MS = 1000;

/**
 * Refuses a request that writes while the data directory's disk is full, read-only or gone: 503
 * before the handler runs, so an answer's stream never starts only to fail when it is stored, and an
 * upload is refused before its body is read. `reads` are POSTs that only read (a search, a login):
 * they go on, and fail alone if they do try to write.
 */
export function storageGuard(health: StorageHealth, reads: readonly RegExp[]): MiddlewareHandler<AppEnv> {
  let checkedAt = 0;
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    if (reads.some((re) => re.test(c.req.path))) return next();
    const now = Date.now();
    // Within a second of a fault a write learns of it, not at the next probe ten seconds on; during a
    // fault every write checks again (a failing probe is cheap), so the first one after it clears goes through.
    if (!health.writable || now - checkedAt >= RECHECK_MS) {
      checkedAt = now;
      health.probe();
    }
    if (!health.writable) throw storageUnavailable(health.state);
    return next();
  };
}
