import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { setDeadline } from "../http/redis.ts";
import { createRedisLease, type Lease, LeaseUnavailableError, waitForLease } from "../jobs/lease.ts";
import type { Logger } from "../log/logger.ts";

/** Rows of one table that changed, published once the change is committed to LanceDB. */
export interface Change {
  table: string;
  ids: readonly string[];
}

/**
 * Applies other replicas' changes to one table's in-memory copy: re-reads these ids from LanceDB, or
 * (ids null) everything, after signals were missed.
 */
export type ChangeHandler = (ids: readonly string[] | null) => Promise<void>;

/**
 * How replicas see each other's writes. LanceDB is the source of truth; the feed only says which
 * rows to re-read. One process: every method does nothing.
 */
export interface ChangeFeed {
  readonly shared: boolean;
  /** Whether other replicas' changes arrive as they happen (false: Redis down, or catching up). */
  readonly live: boolean;
  /** Tells the other replicas; resolves once they can learn of it (see `settled`). */
  publish(change: Change): Promise<void>;
  on(table: string, handler: ChangeHandler): void;
  /**
   * Every replica re-reads everything from storage (this one too unless `elsewhereOnly`): for commits
   * whose notice may be lost, as a replica's killed between the two or still unsent when it died.
   * `reason` is what the replicas log.
   */
  reloadEverywhere(options?: { elsewhereOnly?: boolean; reason?: string }): Promise<void>;
  /** Resolves once every change published anywhere before the call has been applied here. */
  settled(): Promise<void>;
  /**
   * Runs a read-modify-write (a uniqueness check, a counter) while no other replica runs one under
   * the same name, after every change published before it is applied here.
   */
  serialize<T>(name: string, task: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const singleProcessFeed: ChangeFeed = {
  shared: false,
  live: true,
  publish: () => Promise.resolve(),
  reloadEverywhere: () => Promise.resolve(),
  on: () => undefined,
  settled: () => Promise.resolve(),
  serialize: (_name, task) => task(),
  close: () => Promise.resolve(),
};

const CHANNEL = "lore:changes";
const SEQUENCE = "lore:changes:seq";
/** Numbers and publishes in one step, so subscribers receive changes in sequence order. */
const PUBLISH = `local n = redis.call("incr", KEYS[1]) redis.call("publish", KEYS[2], n .. " " .. ARGV[1]) return n`;
/** How long `settled` waits for a change it knows of before serving anyway (and logging). */
const SETTLE_TIMEOUT_MS = 2_000;
const RETRY_MS = 1_000;

interface Message {
  origin: string;
  table: string;
  /** null: every table, everything (`reloadEverywhere`). */
  ids: string[] | null;
  /** With ids null: the origin reloads too. */
  here?: boolean;
  /** With ids null: why, as the replicas log it. */
  reason?: string;
}

/** The table name a reload of everything is published under. */
const EVERYTHING = "*";

/**
 * The shared-mode feed: Redis numbers every change (INCR) and publishes it on one channel. A replica
 * applies changes in order; a gap in the numbers (a missed message, a reconnect) or a reset sequence
 * reloads every table from LanceDB instead. Changes that could not be published (Redis down) are
 * kept and sent again. A commit whose notice dies with its replica (killed between the two) is read
 * when that replica starts again (after a stop that was not clean) or another replays its journal:
 * each publishes a reload of everything.
 */
export class RedisChangeFeed implements ChangeFeed {
  readonly shared = true;
  private catchingUp = false;
  private readonly origin = randomUUID();
  private readonly handlers = new Map<string, ChangeHandler[]>();
  /** The last sequence number whose change is applied here. */
  private applied = 0;
  /** Messages received before `start` (the tables were still loading). */
  private buffered: Array<{ n: number; message: Message }> | null = [];
  private chain: Promise<void> = Promise.resolve();
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  private unsent: Array<Omit<Message, "origin">> = [];
  private retry: NodeJS.Timeout | null = null;
  private disconnected = false;
  private publishFailing = false;
  /** `serialize` while Redis is unreachable: the tail of each name's local queue. */
  private readonly locks = new Map<string, Promise<unknown>>();

  private readonly lease: Lease;

  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly logger: Logger,
  ) {
    // Short: a replica that dies holding one holds up the others for 5 s at most.
    this.lease = createRedisLease(redis, { prefix: "lore:serialize", ttlMs: 5_000 });
  }

  /**
   * Under the fleet-wide lease; with Redis unreachable, under this replica's own lock at once (the
   * check then holds for this replica alone until Redis is back: see docs/reliability.md).
   */
  async serialize<T>(name: string, task: () => Promise<T>): Promise<T> {
    if (this.redis.status !== "ready") return this.locally(name, task);
    try {
      return await waitForLease(this.lease, name, async () => {
        await this.settled();
        return task();
      });
    } catch (error) {
      if (!(error instanceof LeaseUnavailableError)) throw error;
      return this.locally(name, task);
    }
  }

  /** One task at a time per name in this process. */
  private locally<T>(name: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(name) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    this.locks.set(name, tail);
    void tail.then(() => {
      if (this.locks.get(name) === tail) this.locks.delete(name);
    });
    return run;
  }

  /**
   * Subscribes, then reads the sequence: tables loaded after this call hold every change up to it,
   * and later ones arrive as messages (held until `start`).
   */
  static async open(redis: Redis, logger: Logger): Promise<RedisChangeFeed> {
    // Without the run-time deadline while it connects (a busy start-up may hold a reply past it).
    const subscriber = redis.duplicate({ commandTimeout: undefined });
    subscriber.on("error", () => undefined);
    // No offline queue (see connectRedis): connected before it subscribes.
    if (subscriber.status === "wait") await subscriber.connect();
    else if (subscriber.status !== "ready") await new Promise((resolve) => subscriber.once("ready", resolve));
    const feed = new RedisChangeFeed(redis, subscriber, logger);
    subscriber.on("message", (_channel: string, text: string) => feed.receive(text));
    await subscriber.subscribe(CHANNEL);
    setDeadline(subscriber);
    feed.applied = Number((await redis.get(SEQUENCE)) ?? 0);
    subscriber.on("close", () => {
      feed.disconnected = true;
    });
    // ioredis subscribes again on reconnect; what was published meanwhile is read from LanceDB.
    subscriber.on("ready", () => {
      if (!feed.disconnected) return;
      feed.disconnected = false;
      feed.catchingUp = true;
      feed.enqueue(() => feed.catchUp());
    });
    return feed;
  }

  get live(): boolean {
    return this.redis.status === "ready" && !this.disconnected && !this.catchingUp;
  }

  /** Applies the changes received while the tables loaded, then each as it comes. */
  start(): void {
    const held = this.buffered ?? [];
    this.buffered = null;
    for (const { n, message } of held) if (n > this.applied) this.enqueue(() => this.apply(n, message));
  }

  on(table: string, handler: ChangeHandler): void {
    const list = this.handlers.get(table) ?? [];
    list.push(handler);
    this.handlers.set(table, list);
  }

  async publish(change: Change): Promise<void> {
    if (change.ids.length === 0) return;
    await this.post({ table: change.table, ids: [...change.ids] });
  }

  async reloadEverywhere(options: { elsewhereOnly?: boolean; reason?: string } = {}): Promise<void> {
    await this.post({ table: EVERYTHING, ids: null, here: !options.elsewhereOnly, reason: options.reason });
  }

  /** Changes not yet published (Redis unreachable); after `close`, those whose notice is lost. */
  get unsentCount(): number {
    return this.unsent.length;
  }

  async settled(): Promise<void> {
    // Redis unreachable: serve from what is applied (no replica can publish meanwhile either).
    if (this.redis.status !== "ready") return;
    // Within Redis's deadline (REDIS_DEADLINE_MS), or served from what is applied.
    const sequence = await this.redis.get(SEQUENCE).then(
      (value) => Number(value ?? 0),
      () => -1,
    );
    if (sequence < 0) return;
    if (sequence < this.applied) {
      // Redis lost the sequence (restarted without persistence): start over from LanceDB.
      this.applied = 0;
      this.enqueue(() => this.catchUp());
      return;
    }
    if (sequence <= this.applied) return;
    const reached = new Promise<boolean>((resolve) => {
      this.waiters.push({ n: sequence, resolve: () => resolve(true) });
    });
    const timedOut = new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), SETTLE_TIMEOUT_MS).unref(),
    );
    if (!(await Promise.race([reached, timedOut])))
      this.logger.warn("serving before other replicas' changes were applied", {
        sequence,
        applied: this.applied,
      });
  }

  async close(): Promise<void> {
    if (this.retry) clearTimeout(this.retry);
    await this.resend();
    // What still failed stays unsent (`unsentCount`): no retry after the connection closes.
    if (this.retry) clearTimeout(this.retry);
    this.subscriber.disconnect();
    await this.chain;
  }

  /** Numbers and publishes a message, or keeps it to send again (Redis down). */
  private async post(message: Omit<Message, "origin">): Promise<void> {
    try {
      await this.redis.eval(
        PUBLISH,
        2,
        SEQUENCE,
        CHANNEL,
        JSON.stringify({ origin: this.origin, ...message }),
      );
      this.publishFailing = false;
    } catch (error) {
      // Once per outage: the retries that follow say nothing new.
      if (!this.publishFailing)
        this.logger.warn("could not publish a change to the other replicas; will retry", {
          table: message.table,
          error: String(error),
        });
      this.publishFailing = true;
      this.unsent.push(message);
      this.retry ??= setTimeout(() => void this.resend(), RETRY_MS);
    }
  }

  private async resend(): Promise<void> {
    this.retry = null;
    const pending = this.unsent.splice(0);
    for (const message of pending) await this.post(message);
  }

  private receive(text: string): void {
    const space = text.indexOf(" ");
    const n = Number(text.slice(0, space));
    let message: Message;
    try {
      message = JSON.parse(text.slice(space + 1)) as Message;
    } catch {
      return;
    }
    if (this.buffered) this.buffered.push({ n, message });
    else this.enqueue(() => this.apply(n, message));
  }

  private enqueue(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((error: unknown) => {
      this.logger.error("applying another replica's change failed; reloading", { error: String(error) });
      return this.catchUp().catch(() => undefined);
    });
  }

  private async apply(n: number, message: Message): Promise<void> {
    // Already read from LanceDB (a catch-up after a reconnect covered it).
    if (n <= this.applied) return;
    const own = message.origin === this.origin;
    if (n !== this.applied + 1) {
      // A gap: messages were missed, so what changed is unknown.
      await this.reloadAll("missed changes");
    } else if (message.ids === null) {
      if (!own || message.here)
        await this.reloadAll(message.reason ?? "a replica started or replayed a dead one's journal");
    } else if (!own) {
      for (const handler of this.handlers.get(message.table) ?? []) await handler(message.ids);
    }
    this.advance(n);
  }

  /** After a disconnect: everything is read again from LanceDB, up to the sequence now. */
  private async catchUp(): Promise<void> {
    this.catchingUp = true;
    const sequence = Number((await this.redis.get(SEQUENCE)) ?? 0);
    await this.reloadAll("missed changes");
    this.applied = sequence;
    this.advance(sequence);
    this.catchingUp = false;
  }

  private async reloadAll(reason: string): Promise<void> {
    this.logger.info(`reloading shared tables from storage (${reason})`);
    for (const list of this.handlers.values()) for (const handler of list) await handler(null);
  }

  private advance(n: number): void {
    this.applied = Math.max(this.applied, n);
    const ready = this.waiters.filter((w) => w.n <= n);
    this.waiters = this.waiters.filter((w) => w.n > n);
    for (const w of ready) w.resolve();
  }
}
