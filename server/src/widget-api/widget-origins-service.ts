import { normaliseOrigin, type RefusedOrigin, type WidgetOrigins } from "@lore/shared";
import type { Logger } from "../log/logger.ts";
import type { Compactable } from "../store/maintenance.ts";
import type { RecordTable } from "../store/record-table.ts";
import type { AgentRecord } from "../store/records.ts";
import type { Store } from "../store/store.ts";

/** Refused origins kept per agent: the most recently seen win (a flood of made-up origins pushes out old ones). */
export const MAX_REFUSED_ORIGINS = 50;

/** One row per agent: where its widget was refused, and when each allowed origin last loaded it. */
interface WidgetOriginsRecord {
  id: string;
  refused: RefusedOrigin[];
  /** origin (or `*`) → the last widget config load it allowed. */
  seen: Record<string, string>;
}

interface Pending {
  refused: Map<string, RefusedOrigin>;
  seen: Map<string, string>;
}

/**
 * Records refused and allowed widget origins per agent. Widget loads only touch memory; a flush
 * every few seconds merges what this replica saw into the stored row under the table's lock (in
 * shared mode the fleet's lock, so replicas add their counts up instead of overwriting them).
 */
export class WidgetOriginsService implements Compactable {
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | null = null;

  private constructor(private readonly table: RecordTable<WidgetOriginsRecord>) {}

  static async open(store: Store): Promise<WidgetOriginsService> {
    return new WidgetOriginsService(await store.openRecords<WidgetOriginsRecord>("widget_origins"));
  }

  /** A widget request from `origin` was refused. Anything but a well-formed origin is not kept. */
  refused(agentId: string, origin: string | null, at = new Date().toISOString()): void {
    if (!origin || normaliseOrigin(origin) !== origin || origin === "*") return;
    const pending = this.pendingFor(agentId);
    const entry = pending.refused.get(origin);
    pending.refused.delete(origin);
    pending.refused.set(origin, {
      origin,
      firstSeenAt: entry?.firstSeenAt ?? at,
      lastSeenAt: at,
      count: (entry?.count ?? 0) + 1,
    });
    // Insertion order is recency: the oldest go first.
    for (const old of pending.refused.keys()) {
      if (pending.refused.size <= MAX_REFUSED_ORIGINS) break;
      pending.refused.delete(old);
    }
  }

  /** The widget's config loaded on a page of `origin`, admitted by the allowed entry `allowedBy`. */
  seen(agentId: string, allowedBy: string, at = new Date().toISOString()): void {
    this.pendingFor(agentId).seen.set(allowedBy, at);
  }

  /** The agent's allowed origins with their last load, and the origins refused lately (newest first). */
  list(agent: AgentRecord): WidgetOrigins {
    const merged = merge(agent, this.table.get(agent.id), this.pending.get(agent.id));
    return {
      allowed: agent.allowedOrigins.map((origin) => ({ origin, lastSeenAt: merged.seen[origin] ?? null })),
      refused: merged.refused,
    };
  }

  /** Forgets a refused origin (after it was allowed, or when the owner dismisses it). */
  async forget(agent: AgentRecord, origin: string): Promise<void> {
    this.pending.get(agent.id)?.refused.delete(origin);
    await this.table.transact(() => {
      const current = this.table.get(agent.id);
      if (!current?.refused.some((r) => r.origin === origin)) return { rows: [], result: undefined };
      return {
        rows: [{ ...current, refused: current.refused.filter((r) => r.origin !== origin) }],
        result: undefined,
      };
    });
  }

  /** A commit per active agent every few seconds: maintenance merges the fragments. */
  compact(force?: boolean): Promise<void> {
    return this.table.compact(force);
  }

  async removeForAgent(agentId: string): Promise<void> {
    this.pending.delete(agentId);
    await this.table.delete([agentId]);
  }

  /** Writes what this replica saw since the last flush, one merge per agent. */
  async flush(agentOf: (id: string) => AgentRecord | undefined): Promise<void> {
    const batch = [...this.pending];
    this.pending.clear();
    for (const [agentId, pending] of batch) {
      const agent = agentOf(agentId);
      if (!agent) continue;
      await this.table.transact(() => ({
        rows: [{ id: agentId, ...merge(agent, this.table.get(agentId), pending) }],
        result: undefined,
      }));
    }
  }

  /** Flushes every `intervalMs` until `stop()`. */
  startFlushing(agentOf: (id: string) => AgentRecord | undefined, logger: Logger, intervalMs = 5_000): void {
    this.timer = setInterval(
      () =>
        void this.flush(agentOf).catch((e) =>
          logger.warn("widget origins flush failed", { error: String(e) }),
        ),
      intervalMs,
    );
    this.timer.unref();
  }

  async stop(agentOf: (id: string) => AgentRecord | undefined): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush(agentOf);
    await this.table.idle();
  }

  private pendingFor(agentId: string): Pending {
    let pending = this.pending.get(agentId);
    if (!pending) {
      pending = { refused: new Map(), seen: new Map() };
      this.pending.set(agentId, pending);
    }
    return pending;
  }
}

/**
 * The stored row plus what is pending: counts add up, first/last seen widen. Origins the agent now
 * allows leave the refused list, and last-seen times are kept only for origins it still allows.
 */
function merge(
  agent: AgentRecord,
  stored: WidgetOriginsRecord | undefined,
  pending: Pending | undefined,
): Omit<WidgetOriginsRecord, "id"> {
  const refused = new Map((stored?.refused ?? []).map((r) => [r.origin, r]));
  for (const entry of pending?.refused.values() ?? []) {
    const before = refused.get(entry.origin);
    refused.set(
      entry.origin,
      before
        ? {
            origin: entry.origin,
            firstSeenAt: min(before.firstSeenAt, entry.firstSeenAt),
            lastSeenAt: max(before.lastSeenAt, entry.lastSeenAt),
            count: before.count + entry.count,
          }
        : entry,
    );
  }
  const allowed = new Set(agent.allowedOrigins);
  const seen: Record<string, string> = {};
  for (const [origin, at] of [...Object.entries(stored?.seen ?? {}), ...(pending?.seen ?? [])]) {
    if (allowed.has(origin)) seen[origin] = max(seen[origin] ?? at, at);
  }
  return {
    refused: [...refused.values()]
      .filter((r) => !allowed.has(r.origin) && !allowed.has("*"))
      .sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt) || a.origin.localeCompare(b.origin))
      .slice(0, MAX_REFUSED_ORIGINS),
    seen,
  };
}

const min = (a: string, b: string) => (a < b ? a : b);
const max = (a: string, b: string) => (a > b ? a : b);
