import { createHmac, timingSafeEqual } from "node:crypto";
import { rmSync } from "node:fs";
import type {
  CreatedWebhook,
  DataSource,
  Page,
  Webhook,
  WebhookDelivery,
  WebhookPayload,
} from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver } from "../fakes/webhook-receiver.ts";
import { DEFAULT_PASSWORD, makeTempDir, startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import { type ApiTarget, call, createTextSource, waitForSettled } from "../ingestion/source-helpers.ts";

/** A webhook receiver: `/flaky` fails twice then succeeds, `/down` always fails, `/later` fails until `laterUp`, anything else answers 204. */
async function startReceiver() {
  const laterUp = { value: false };
  let flakyCalls = 0;
  const receiver = await startWebhookReceiver((path) => {
    if (path === "/flaky") return ++flakyCalls <= 2 ? 500 : 200;
    if (path === "/down") return 503;
    if (path === "/later") return laterUp.value ? 200 : 503;
    return 204;
  });
  return { ...receiver, laterUp };
}

/** The verification recipe of docs/api.md, as a receiver would write it. */
function verifyLoreSignature(
  rawBody: string,
  header: string,
  secret: string,
  toleranceSeconds = 300,
): boolean {
  const pairs = header.split(",").map((part) => part.split("=", 2) as [string, string]);
  const timestamp = Number(pairs.find(([k]) => k === "t")?.[1]);
  if (!Number.isFinite(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest();
  return pairs.some(
    ([k, v]) => k === "v1" && v.length === 64 && timingSafeEqual(Buffer.from(v, "hex"), expected),
  );
}

let server: TestServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let token: string;
let workspaceId: string;
let source: DataSource;
/** The subscription that always answers 204, made by the first delivery test. */
let ok: CreatedWebhook;

const hooksPath = (ws = workspaceId) => `/workspaces/${ws}/webhooks/`;
async function subscribe(
  path: string,
  events: string[] = ["data_source.sync.completed"],
  auth = token,
): Promise<CreatedWebhook> {
  const res = await call<CreatedWebhook>(server, "POST", hooksPath(), auth, {
    url: `${receiver.url}${path}`,
    events,
    description: path,
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** The caller's personal workspace, as GET /auth/me/ lists it (a new user belongs to no other). */
async function ownWorkspace(target: ApiTarget, auth: string): Promise<string> {
  const me = await call<{ workspaces: { id: string; role: string }[] }>(target, "GET", "/auth/me/", auth);
  const own = me.body.workspaces.find((w) => w.role === "owner");
  if (!own) throw new Error(`no own workspace: ${JSON.stringify(me.body)}`);
  return own.id;
}

/** The delivery log of a subscription, newest first. */
async function deliveriesOf(hookId: string, query = ""): Promise<WebhookDelivery[]> {
  const log = await call<Page<WebhookDelivery>>(
    server,
    "GET",
    `${hooksPath()}${hookId}/deliveries/${query}`,
    token,
  );
  return log.body.results;
}

async function resync(): Promise<void> {
  const res = await call(server, "POST", `/data-sources/${source.id}/sync/`, token);
  expect(res.status).toBeLessThan(300);
  await waitForSettled(server, token, source.id);
}

/** Resyncs and waits until the `/ok` subscription's delivery of that sync is logged delivered. */
async function resyncDelivered(): Promise<void> {
  const before = (await deliveriesOf(ok.id, "?status=delivered")).length;
  await resync();
  await until(async () => (await deliveriesOf(ok.id, "?status=delivered")).length > before, {
    what: "the live subscription's delivery",
  });
}

const eventsAt = (path: string) => receiver.received.filter((r) => r.path === path);

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer({
    LORE_OUTBOUND_ALLOWLIST: "127.0.0.1",
    LORE_WEBHOOK_RETRY_BASE_MS: "100",
    LORE_WEBHOOK_MAX_ATTEMPTS: "4",
  });
  token = (await server.login()).access;
  workspaceId = await ownWorkspace(server, token);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe("webhook subscriptions", () => {
  it("show the secret once, then never again", async () => {
    const created = await subscribe("/shown-once");
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    expect(created).toMatchObject({
      workspaceId,
      url: `${receiver.url}/shown-once`,
      events: ["data_source.sync.completed"],
      active: true,
      description: "/shown-once",
    });
    const got = await call<Webhook>(server, "GET", `${hooksPath()}${created.id}/`, token);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty("secret");
    const list = await call<Page<Webhook>>(server, "GET", hooksPath(), token);
    expect(list.body.results.map((w) => w.id)).toContain(created.id);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
    const patched = await call<Webhook>(server, "PATCH", `${hooksPath()}${created.id}/`, token, {
      events: ["agent.ready", "message.feedback"],
      active: false,
    });
    expect(patched.body).toMatchObject({ events: ["agent.ready", "message.feedback"], active: false });
    expect((await call(server, "DELETE", `${hooksPath()}${created.id}/`, token)).status).toBe(204);
    expect((await call(server, "GET", `${hooksPath()}${created.id}/`, token)).status).toBe(404);
  });

  it("refuse URLs the outbound guard refuses and invalid events", async () => {
    for (const body of [
      { url: "http://10.0.0.5/hook", events: ["agent.ready"] },
      { url: "http://169.254.169.254/latest", events: ["agent.ready"] },
      { url: "ftp://127.0.0.1/hook", events: ["agent.ready"] },
      { url: `${receiver.url}/x`, events: [] },
      { url: `${receiver.url}/x`, events: ["data_source.deleted"] },
    ]) {
      const res = await call<{ error: string }>(server, "POST", hooksPath(), token, body);
      expect({ body, status: res.status, error: res.body.error }).toEqual({
        body,
        status: 400,
        error: "validation_error",
      });
    }
  });

  it("are managed by workspace admins only: viewers get 403, other workspaces 404", async () => {
    const hook = await subscribe("/guarded");
    const viewer = await server.createUser("hook-viewer@example.com");
    await server.addMember(workspaceId, viewer.id, "viewer");
    const viewerToken = (await server.login("hook-viewer@example.com", DEFAULT_PASSWORD)).access;
    expect((await call(server, "GET", hooksPath(), viewerToken)).status).toBe(403);
    expect(
      (
        await call(server, "POST", hooksPath(), viewerToken, {
          url: `${receiver.url}/v`,
          events: ["agent.ready"],
        })
      ).status,
    ).toBe(403);
    expect((await call(server, "DELETE", `${hooksPath()}${hook.id}/`, viewerToken)).status).toBe(403);
    await server.createUser("hook-stranger@example.com");
    const strangerToken = (await server.login("hook-stranger@example.com", DEFAULT_PASSWORD)).access;
    expect((await call(server, "GET", hooksPath(), strangerToken)).status).toBe(404);
    expect((await call(server, "GET", `${hooksPath()}${hook.id}/deliveries/`, strangerToken)).status).toBe(
      404,
    );
    // The stranger's own workspace does not reach this workspace's subscription either.
    const own = await ownWorkspace(server, strangerToken);
    expect((await call(server, "GET", `${hooksPath(own)}${hook.id}/`, strangerToken)).status).toBe(404);
    await call(server, "DELETE", `${hooksPath()}${hook.id}/`, token);
  });
});

describe("deliveries", () => {
  it("fire a signed data_source.sync.completed when a sync completes", async () => {
    ok = await subscribe("/ok", ["data_source.sync.completed", "agent.ready"]);
    source = await createTextSource(server, token, "Webhook FAQ", [
      { title: "Hooks", content: "Webhooks tell other systems what happened." },
    ]);
    await waitForSettled(server, token, source.id);
    const hit = await until(
      () => eventsAt("/ok").find((r) => r.headers["lore-event"] === "data_source.sync.completed"),
      { what: "the sync.completed delivery" },
    );
    const header = String(hit.headers["lore-signature"]);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyLoreSignature(hit.body, header, ok.secret)).toBe(true);
    expect(verifyLoreSignature(hit.body, header, "whsec_wrong")).toBe(false);
    expect(verifyLoreSignature(`${hit.body} `, header, ok.secret)).toBe(false);
    expect(hit.headers["content-type"]).toBe("application/json");
    const payload = JSON.parse(hit.body) as WebhookPayload;
    expect(payload).toMatchObject({
      type: "data_source.sync.completed",
      workspaceId,
      data: { dataSourceId: source.id, dataSourceName: "Webhook FAQ" },
    });
    expect(payload.data.counts).toMatchObject({ added: 1 });
    const logged = await until(
      async () =>
        (await deliveriesOf(ok.id)).find(
          (d) => d.id === hit.headers["lore-delivery"] && d.status !== "pending",
        ),
      { what: "the delivery to be logged as delivered" },
    );
    expect(logged).toMatchObject({
      id: hit.headers["lore-delivery"],
      eventId: payload.id,
      status: "delivered",
      attempts: 1,
      responseStatus: 204,
    });
  });

  it("retry a failing receiver with backoff until exactly one delivery succeeds", async () => {
    const flaky = await subscribe("/flaky");
    await resync();
    const delivery = await until(
      async () => (await deliveriesOf(flaky.id)).find((d) => d.status === "delivered"),
      { what: "the flaky delivery to be delivered" },
    );
    const calls = eventsAt("/flaky");
    expect(calls.map((c) => c.status)).toEqual([500, 500, 200]);
    expect(new Set(calls.map((c) => c.headers["lore-delivery"]))).toEqual(new Set([delivery.id]));
    expect(
      calls.every((c) => verifyLoreSignature(c.body, String(c.headers["lore-signature"]), flaky.secret)),
    ).toBe(true);
    expect(delivery).toMatchObject({ attempts: 3, responseStatus: 200, error: null });
    expect(delivery.history.map((h) => h.responseStatus)).toEqual([500, 500, 200]);
    // Backoff: the second wait (200 ms) is at least the first (100 ms) doubled.
    const at = delivery.history.map((h) => Date.parse(h.at));
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(90);
    expect((at[2] ?? 0) - (at[1] ?? 0)).toBeGreaterThanOrEqual(190);
    await call(server, "DELETE", `${hooksPath()}${flaky.id}/`, token);
  });

  it("mark a delivery failed after the last attempt", async () => {
    const down = await subscribe("/down");
    await resync();
    const failed = await until(async () => (await deliveriesOf(down.id, "?status=failed"))[0], {
      what: "the delivery to fail",
    });
    expect(failed).toMatchObject({ attempts: 4, responseStatus: 503, nextAttemptAt: null });
    expect(eventsAt("/down")).toHaveLength(4);
    await call(server, "DELETE", `${hooksPath()}${down.id}/`, token);
  });

  it("send nothing to a deleted subscription, and cancel what it had pending", async () => {
    const gone = await subscribe("/gone");
    expect((await call(server, "DELETE", `${hooksPath()}${gone.id}/`, token)).status).toBe(204);
    // The event's deliveries are written together and started together: once the live one is
    // logged delivered, one to the deleted subscription would have been sent too.
    await resyncDelivered();
    // The deleted subscription's log is not in the API any more (404): its rows are read directly.
    expect(server.services.webhooks.deliveries.filter((d) => d.webhookId === gone.id)).toEqual([]);
    expect(eventsAt("/gone")).toEqual([]);

    // A subscription deleted while its delivery waits for a retry: the retry never happens.
    const dying = await subscribe("/down");
    const sentBefore = eventsAt("/down").length;
    await resync();
    await until(() => eventsAt("/down").length > sentBefore, { what: "the first failed attempt" });
    // The retry would be due 100 ms (LORE_WEBHOOK_RETRY_BASE_MS) after that attempt at the latest.
    const retryDue = Date.now() + 100;
    expect((await call(server, "DELETE", `${hooksPath()}${dying.id}/`, token)).status).toBe(204);
    const sentAtDelete = eventsAt("/down").length;
    const rows = server.services.webhooks.deliveries.filter((d) => d.webhookId === dying.id);
    expect(rows.map((d) => d.status)).toEqual(["cancelled"]);
    // A delivery made after the retry's due time comes later in the worker's queue: once it is
    // delivered, the retry would have been sent.
    await until(() => Date.now() > retryDue, { what: "the retry's due time" });
    await resyncDelivered();
    expect(eventsAt("/down").length).toBe(sentAtDelete);
  });
});

describe("a pending delivery", () => {
  it("resumes after a restart and is delivered by the next process", async () => {
    const dataDir = makeTempDir();
    const env = {
      LORE_DATA_DIR: dataDir,
      LORE_OUTBOUND_ALLOWLIST: "127.0.0.1",
      LORE_WEBHOOK_RETRY_BASE_MS: "1500",
    };
    let first: TestServer | null = await startTestServer(env);
    try {
      const auth = (await first.login()).access;
      const ws = await ownWorkspace(first, auth);
      const hook = await call<CreatedWebhook>(first, "POST", `/workspaces/${ws}/webhooks/`, auth, {
        url: `${receiver.url}/later`,
        events: ["data_source.sync.completed"],
      });
      const created = await createTextSource(first, auth, "Restart FAQ", [
        { title: "Restarts", content: "Pending deliveries outlive the process." },
      ]);
      await until(() => eventsAt("/later").length > 0, { what: "the first failed attempt" });
      await first.close(); // the retry is still due
      first = null;
      receiver.laterUp.value = true;
      const second = await startTestServer(env);
      try {
        const delivered = await until(
          async () => {
            const log = await call<Page<WebhookDelivery>>(
              second,
              "GET",
              `/workspaces/${ws}/webhooks/${hook.body.id}/deliveries/?status=delivered`,
              (await second.login()).access,
            );
            return log.body.results[0];
          },
          { what: "the delivery by the second process" },
        );
        expect(delivered.attempts).toBe(2);
        expect(eventsAt("/later").map((r) => r.status)).toEqual([503, 200]);
        expect(JSON.parse(eventsAt("/later")[1]?.body ?? "{}")).toMatchObject({
          data: { dataSourceId: created.id },
        });
      } finally {
        await second.close();
      }
    } finally {
      await first?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
