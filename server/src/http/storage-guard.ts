import type { MiddlewareHandler } from "hono";
import { storageUnavailable } from "../errors.ts";
import type { StorageHealth } from "../store/storage-health.ts";
import type { AppEnv } from "./principal.ts";

/** A write checks the disk itself at most this often (the health's own probe runs every 10 s). */
const RECHECK_MS = 1000;

/**
 * Refuses a request that writes while the data directory's disk is full, read-only or gone: 503
 * before the handler runs, so an answer's stream never starts only to fail when it is stored, and an
 * upload is refused before its body is read. `reads` are POSTs that mostly read (a search, a login):
 * on a full or read-only disk they go on, and fail alone if they do try to write; with the directory
 * missing only `searches` do.
 */
export function storageGuard(
  health: StorageHealth,
  reads: readonly RegExp[],
  searches: readonly RegExp[],
): MiddlewareHandler<AppEnv> {
  let checkedAt = 0;
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const now = Date.now();
    // Within a second of a fault a write learns of it, not at the next probe ten seconds on; during a
    // fault every write checks again (a failing probe is cheap), so the first one after it clears goes through.
    if (!health.writable || now - checkedAt >= RECHECK_MS) {
      checkedAt = now;
      health.probe();
    }
    if (health.writable) return next();
    // A full or read-only disk refuses what a read might still write; into a missing directory a
    // write would recreate it, so there only a search (which writes nothing) goes on.
    const exempt = health.state === "missing" ? searches : reads;
    if (exempt.some((re) => re.test(c.req.path))) return next();
    throw storageUnavailable(health.state);
  };
}
