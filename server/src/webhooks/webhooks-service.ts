import { randomUUID } from "node:crypto";
import {
  type CreatedWebhook,
  type CreateWebhookRequest,
  type UpdateWebhookRequest,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventType,
  type WebhookPayload,
  webhookEventSchema,
} from "@lore/shared";
import type { Config } from "../config.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { AppError, notFound } from "../errors.ts";
import type { DomainEvent, EventBus } from "../events/event-bus.ts";
import { JobRunner } from "../jobs/job-runner.ts";
import { createLocalLease, type Lease, runExclusiveSettled } from "../jobs/lease.ts";
import type { Logger } from "../log/logger.ts";
import { assertPublicUrl, createGuardedFetch, type GuardedFetch, OutboundError } from "../net/outbound.ts";
import type { RecordTable } from "../store/record-table.ts";
import type { Store } from "../store/store.ts";
import { createWebhookSecret, signWebhook } from "./signature.ts";

/** A subscription as stored: the signing secret sealed with the server's SecretBox. */
export interface WebhookRecord extends Webhook {
  secret: string;
}

/** A delivery job: the exact body to send (re-signed at each attempt) and its attempts so far. */
export interface DeliveryRecord extends WebhookDelivery {
  workspaceId: string;
  body: string;
}

const MAX_BACKOFF_MS = 3_600_000;
const CONCURRENCY = 8;
/** Finished deliveries are kept this long in the delivery log. */
const RETENTION_MS = 30 * 86_400_000;

/**
 * Outbound webhooks: subscriptions per workspace and durable delivery jobs. Each matching event
 * becomes a delivery row; a worker POSTs it signed, retries failures with exponential backoff, and
 * picks up pending rows again after a restart (delivery is at least once: `Lore-Delivery` dedupes).
 */
export class WebhooksService {
  /** Delivery attempts in flight, keyed by the delivery's id. */
  private readonly jobs = new JobRunner({
    poll: () => this.startDue(),
    intervalMs: 250,
    onError: (error) => this.logger.error("webhook worker tick failed", { error: String(error) }),
  });
  private lastPrune = 0;
  private readonly post: GuardedFetch;

  private constructor(
    private readonly store: Store,
    readonly webhooks: RecordTable<WebhookRecord>,
    readonly deliveries: RecordTable<DeliveryRecord>,
    private readonly secrets: SecretBox,
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly lease: Lease,
  ) {
    this.post = createGuardedFetch({
      allowlist: config.outboundAllowlist,
      timeoutMs: config.webhooks.timeoutMs,
      maxRedirects: 0,
      maxBytes: 1024 * 1024,
      userAgent: "Lore-Webhooks/1.0",
    });
  }

  static async open(deps: {
    store: Store;
    events: EventBus;
    secrets: SecretBox;
    config: Config;
    logger: Logger;
    /** Shared mode: each delivery is attempted by one replica at a time. */
    lease?: Lease;
  }): Promise<WebhooksService> {
    const [webhooks, deliveries] = await Promise.all([
      deps.store.openRecords<WebhookRecord>("webhooks"),
      deps.store.openRecords<DeliveryRecord>("webhook_deliveries"),
    ]);
    const service = new WebhooksService(
      deps.store,
      webhooks,
      deliveries,
      deps.secrets,
      deps.config,
      deps.logger,
      deps.lease ?? createLocalLease(),
    );
    deps.events.subscribe((event) => (isWebhookEvent(event) ? service.enqueue(event) : undefined));
    return service;
  }

  /** Starts the delivery worker; pending deliveries left by an earlier process resume. */
  start(): void {
    this.jobs.start();
  }

  /** Aborts the attempts in flight and resolves once they have settled and their writes landed. */
  async stop(): Promise<void> {
    await this.jobs.stop();
    await Promise.all([this.webhooks.idle(), this.deliveries.idle()]);
  }

  list(workspaceId: string): Webhook[] {
    return this.webhooks
      .filter((w) => w.workspaceId === workspaceId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map(toWebhook);
  }

  get(workspaceId: string, id: string): WebhookRecord {
    const hook = this.webhooks.get(id);
    if (!hook || hook.workspaceId !== workspaceId) throw notFound("webhook", id);
    return hook;
  }

  async create(workspaceId: string, body: CreateWebhookRequest): Promise<CreatedWebhook> {
    const url = await this.checkUrl(body.url);
    const secret = createWebhookSecret();
    const now = new Date().toISOString();
    const record: WebhookRecord = {
      id: randomUUID(),
      workspaceId,
      url,
      events: body.events,
      active: body.active ?? true,
      description: body.description ?? "",
      createdAt: now,
      updatedAt: now,
      secret: this.secrets.seal(secret),
    };
    await this.webhooks.put(record);
    return { ...toWebhook(record), secret };
  }

  async update(hook: WebhookRecord, body: UpdateWebhookRequest): Promise<Webhook> {
    const url = body.url === undefined ? hook.url : await this.checkUrl(body.url);
    const updated: WebhookRecord = {
      ...hook,
      url,
      events: body.events ?? hook.events,
      active: body.active ?? hook.active,
      description: body.description ?? hook.description,
      updatedAt: new Date().toISOString(),
    };
    await this.webhooks.put(updated);
    if (!updated.active) await this.cancelPending(hook.id, "the subscription was deactivated");
    return toWebhook(updated);
  }

  /** Deletes a subscription: its pending deliveries are cancelled and one in flight is aborted. */
  async remove(hook: WebhookRecord): Promise<void> {
    await this.webhooks.delete([hook.id]);
    await this.cancelPending(hook.id, "the subscription was deleted");
  }

  /** The delivery log, newest first. */
  listDeliveries(hook: WebhookRecord, status?: WebhookDelivery["status"]): WebhookDelivery[] {
    return this.deliveries
      .filter((d) => d.webhookId === hook.id && (status === undefined || d.status === status))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .map(toDelivery);
  }

  private async checkUrl(url: string): Promise<string> {
    try {
      return (await assertPublicUrl(url, this.config.outboundAllowlist)).href;
    } catch (error) {
      if (error instanceof OutboundError) {
        throw new AppError("validation_error", `The webhook URL is not allowed: ${error.message}`, {
          fields: { url: [error.message] },
        });
      }
      throw error;
    }
  }

  private async cancelPending(webhookId: string, reason: string): Promise<void> {
    for (const id of this.jobs.keys())
      if (this.deliveries.get(id)?.webhookId === webhookId) this.jobs.abort(id, new Error(reason));
    const pending = this.deliveries.filter((d) => d.webhookId === webhookId && d.status === "pending");
    await this.deliveries.putMany(
      pending.map((d) => ({ ...d, status: "cancelled", nextAttemptAt: null, error: reason })),
    );
  }

  /** One delivery per active subscription of the event's workspace that wants its type. */
  async enqueue(event: WebhookEvent): Promise<void> {
    const targets = this.webhooks.filter(
      (w) => w.active && w.workspaceId === event.workspaceId && w.events.includes(event.type),
    );
    if (targets.length === 0) return;
    const now = new Date().toISOString();
    const payload: WebhookPayload = {
      id: randomUUID(),
      type: event.type,
      createdAt: now,
      workspaceId: event.workspaceId,
      data: this.eventData(event),
    };
    const body = JSON.stringify(payload);
    await this.deliveries.putMany(
      targets.map((w) => ({
        id: randomUUID(),
        webhookId: w.id,
        workspaceId: w.workspaceId,
        eventId: payload.id,
        event: event.type,
        status: "pending",
        attempts: 0,
        responseStatus: null,
        error: null,
        durationMs: null,
        createdAt: now,
        deliveredAt: null,
        nextAttemptAt: now,
        history: [],
        body,
      })),
    );
    this.jobs.wake();
  }

  private eventData(event: WebhookEvent): Record<string, unknown> {
    switch (event.type) {
      case "data_source.sync.completed":
      case "data_source.sync.failed": {
        const { type: _t, workspaceId: _w, ...rest } = event;
        return { ...rest, dataSourceName: this.store.dataSources.get(event.dataSourceId)?.name ?? null };
      }
      case "agent.ready":
        return { agentId: event.agentId, agentName: this.store.agents.get(event.agentId)?.name ?? null };
      case "message.feedback": {
        const {
          type: _t,
          workspaceId: _w,
          conversationCreatedAt: _c,
          conversationChannel: _ch,
          lastAnswerFallback: _f,
          ...rest
        } = event;
        return rest;
      }
      case "conversation.handoff_requested":
        return {
          agentId: event.agentId,
          agentName: this.store.agents.get(event.agentId)?.name ?? null,
          conversationId: event.handoff.conversationId,
          handoff: event.handoff,
          transcript: event.transcript,
        };
      default:
        return event satisfies never;
    }
  }

  /** Starts the due deliveries up to the concurrency; once an hour, drops log entries past retention. */
  private async startDue(): Promise<void> {
    const now = Date.now();
    const due = this.deliveries
      .filter(
        (d) =>
          d.status === "pending" && !this.jobs.isRunning(d.id) && Date.parse(d.nextAttemptAt ?? "") <= now,
      )
      .sort((a, b) => (a.nextAttemptAt ?? "").localeCompare(b.nextAttemptAt ?? ""));
    for (const d of due) {
      if (this.jobs.size >= CONCURRENCY) break;
      this.jobs.run(d.id, (signal) => this.attemptOnce(d.id, signal));
    }
    if (now - this.lastPrune > 3_600_000) {
      this.lastPrune = now;
      const old = this.deliveries
        .filter((d) => d.status !== "pending" && now - Date.parse(d.createdAt) > RETENTION_MS)
        .map((d) => d.id);
      await this.deliveries.delete(old);
    }
  }

  /** An attempt under the delivery's lease, if it is still pending once other replicas' writes are applied. */
  private async attemptOnce(id: string, signal: AbortSignal): Promise<void> {
    await runExclusiveSettled(this.lease, this.store.feed, `webhook:${id}`, (lost) =>
      this.attempt(id, AbortSignal.any([signal, lost])),
    );
  }

  private async attempt(id: string, signal: AbortSignal): Promise<void> {
    const delivery = this.deliveries.get(id);
    if (delivery?.status !== "pending") return;
    const hook = this.webhooks.get(delivery.webhookId);
    if (!hook?.active) {
      await this.deliveries.put({
        ...delivery,
        status: "cancelled",
        nextAttemptAt: null,
        error: "the subscription no longer exists or is inactive",
      });
      return;
    }
    const started = performance.now();
    const at = new Date();
    let responseStatus: number | null = null;
    let error: string | null = null;
    try {
      const timestamp = Math.floor(at.getTime() / 1000);
      const res = await this.post(hook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "lore-signature": signWebhook(this.secrets.open(hook.secret), timestamp, delivery.body),
          "lore-event": delivery.event,
          "lore-delivery": delivery.id,
        },
        body: delivery.body,
        signal,
      });
      responseStatus = res.status;
      if (res.status < 200 || res.status > 299) error = `the receiver answered ${res.status}`;
    } catch (e) {
      error =
        e instanceof OutboundError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
    }
    const durationMs = Math.round(performance.now() - started);
    // Deleted or deactivated meanwhile: the cancellation stands.
    const current = this.deliveries.get(id);
    if (current?.status !== "pending") return;
    const attempts = current.attempts + 1;
    const history = [...current.history, { at: at.toISOString(), responseStatus, error, durationMs }];
    const base = { ...current, attempts, history, responseStatus, error, durationMs };
    if (error === null) {
      await this.deliveries.put({
        ...base,
        status: "delivered",
        deliveredAt: new Date().toISOString(),
        nextAttemptAt: null,
      });
    } else if (attempts >= this.config.webhooks.maxAttempts) {
      await this.deliveries.put({ ...base, status: "failed", nextAttemptAt: null });
    } else {
      const delay = Math.min(MAX_BACKOFF_MS, this.config.webhooks.retryBaseMs * 2 ** (attempts - 1));
      await this.deliveries.put({ ...base, nextAttemptAt: new Date(Date.now() + delay).toISOString() });
    }
  }
}

/** The domain events a webhook can subscribe to (answers are analytics' alone). */
type WebhookEvent = Extract<DomainEvent, { type: WebhookEventType }>;

function isWebhookEvent(event: DomainEvent): event is WebhookEvent {
  return webhookEventSchema.safeParse(event.type).success;
}

function toWebhook(r: WebhookRecord): Webhook {
  const { secret: _secret, ...rest } = r;
  return rest;
}

function toDelivery(r: DeliveryRecord): WebhookDelivery {
  const { workspaceId: _w, body: _b, ...rest } = r;
  return rest;
}
