import type { AppOptions } from "./app.ts";
import type { Services } from "./services.ts";

/** The domains beyond the foundation, mounted by createApp. */
export function appOptions(_s: Services): AppOptions {
  return {
    domains: [],
    isQueryPath: (path) => /^\/agents\/[^/]+\/(query|chat\/completions)\/$/.test(path) || /^\/widget\/[^/]+\/query\/$/.test(path),
  };
}
