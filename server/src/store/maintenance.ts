import type { EventBus } from "../events/event-bus.ts";
import type { Logger } from "../log/logger.ts";
import type { ChunkIndex } from "../retrieval/chunk-index.ts";
import type { Store } from "./store.ts";

/**
 * Background upkeep of the store and the chunk index: compaction every minute, index optimisation
 * every five minutes and shortly after a sync lands (each document write adds LanceDB fragments).
 * Returns the function that stops it.
 */
export function startMaintenance(deps: {
  store: Store;
  index: ChunkIndex;
  events: EventBus;
  logger: Logger;
}): () => void {
  const { store, index, events, logger } = deps;
  const optimize = () =>
    void index.optimize().catch((e) => logger.warn("index optimize failed", { error: String(e) }));
  let afterSync: NodeJS.Timeout | null = null;
  let stopped = false;
  events.subscribe((event) => {
    if (event.type !== "data_source.sync.completed" || afterSync || stopped) return;
    afterSync = setTimeout(() => {
      afterSync = null;
      optimize();
    }, 5_000);
    afterSync.unref();
  });
  const timers = [
    setInterval(
      () => void store.compact().catch((e) => logger.warn("compaction failed", { error: String(e) })),
      60_000,
    ),
    setInterval(optimize, 5 * 60_000),
  ];
  for (const t of timers) t.unref();
  return () => {
    for (const t of timers) clearInterval(t);
    stopped = true;
    if (afterSync) clearTimeout(afterSync);
  };
}
