import { verifyWebhook } from "@lore/server/webhooks/signature.ts";
import type {
  Agent,
  Conversation,
  ConversationDetail,
  CreatedWebhook,
  Handoff,
  InvitationCreated,
  Me,
  Page,
  QueryResponse,
  WebhookDelivery,
  WebhookPayload,
  WidgetConfig,
} from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver } from "../fakes/webhook-receiver.ts";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { ADMIN_EMAIL, httpRequest, startTestServer, type TestServer } from "../helpers/server.ts";
import { type LocalSmtp, startLocalSmtp } from "../helpers/smtp.ts";
import { until } from "../helpers/until.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

const ALLOWED = "https://shop.example";

/** A webhook receiver that answers 503 until `up` is set: the target is down when the visitor writes. */
async function startReceiver() {
  const state = { up: false };
  const receiver = await startWebhookReceiver(() => (state.up ? 200 : 503));
  return { ...receiver, url: `${receiver.url}/hook`, state };
}

let server: TestServer;
let smtp: LocalSmtp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let token: string;
let agent: Agent;

const widget = <T = unknown>(path: string, body?: unknown, method = "POST") =>
  httpRequest<T>(server.api, method, `/widget/${agent.widgetId}${path}`, {
    body,
    headers: { Origin: ALLOWED },
  });

/** A visitor's first question: the conversation and the visitor token that owns it. */
async function visit(question = "How long does shipping take?") {
  const res = await widget<QueryResponse & { visitorToken: string }>("/query/", { message: question });
  expect(res.status).toBe(200);
  return res.body;
}

const handoff = (conversationId: string, body: Record<string, unknown>) =>
  widget<{ id: string; status: string; error?: string; details?: { fields?: Record<string, string[]> } }>(
    `/conversations/${conversationId}/handoff/`,
    body,
  );

beforeAll(async () => {
  smtp = await startLocalSmtp();
  receiver = await startReceiver();
  server = await startTestServer({
    LORE_SMTP_URL: smtp.url,
    LORE_SMTP_FROM: "Lore <lore@shop.example>",
    LORE_LIMIT_HANDOFFS_PER_HOUR: "3",
    // The request before any question is limited per client IP: each test of it has an address of its own.
    LORE_TRUST_PROXY: "true",
    LORE_OUTBOUND_ALLOWLIST: "127.0.0.1",
    LORE_WEBHOOK_RETRY_BASE_MS: "100",
    LORE_WEBHOOK_MAX_ATTEMPTS: "6",
  });
  token = (await server.login()).access;
  const shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  agent = await createAgent(server, token, {
    name: "Shop helper",
    dataSourceIds: [shop.id],
    allowedOrigins: [ALLOWED],
    handoff: { mode: "form", url: null },
  });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
  await receiver?.close();
});

describe("the handoff setting", () => {
  it("is part of the agent and of the widget's config", async () => {
    expect(agent.handoff).toEqual({ mode: "form", url: null });
    const config = await widget<WidgetConfig>("/config/", undefined, "GET");
    expect(config.body.handoff).toEqual({ mode: "form", url: null });
  });

  it("refuses a link without a URL, or a URL that is not http(s) or mailto", async () => {
    for (const handoff of [
      { mode: "link", url: null },
      { mode: "link", url: "javascript:alert(1)" },
      { mode: "chat", url: null },
    ]) {
      const res = await call<{ error: string; details: { fields: Record<string, string[]> } }>(
        server,
        "PATCH",
        `/agents/${agent.id}/`,
        token,
        { handoff },
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation_error");
      expect(Object.keys(res.body.details.fields).some((f) => f.startsWith("handoff"))).toBe(true);
    }
  });

  it("takes a mailto: link, which the widget then offers instead of a form", async () => {
    const other = await createAgent(server, token, {
      name: "Link agent",
      allowedOrigins: [ALLOWED],
      handoff: { mode: "link", url: "mailto:help@shop.example" },
    });
    expect(other.handoff).toEqual({ mode: "link", url: "mailto:help@shop.example" });
    const config = await httpRequest<WidgetConfig>(server.api, "GET", `/widget/${other.widgetId}/config/`, {
      headers: { Origin: ALLOWED },
    });
    expect(config.body.handoff).toEqual({ mode: "link", url: "mailto:help@shop.example" });
  });
});

describe("the handoff form", () => {
  it("stores the request, lists it for the owner, and resolving it closes it", async () => {
    const visitor = await visit();
    const res = await handoff(visitor.conversationId, {
      visitorToken: visitor.visitorToken,
      email: "ana@example.org",
      name: "Ana",
      message: "My parcel never arrived, please call me back.",
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe("open");

    const list = await call<Page<Handoff>>(server, "GET", `/agents/${agent.id}/handoffs/?status=open`, token);
    const stored = list.body.results.find((h) => h.id === res.body.id);
    expect(stored).toMatchObject({
      conversationId: visitor.conversationId,
      email: "ana@example.org",
      name: "Ana",
      message: "My parcel never arrived, please call me back.",
      status: "open",
      resolvedAt: null,
    });

    // The review queue: the conversation shows its open request, and the filter finds it.
    const open = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/?handoff=open`,
      token,
    );
    expect(open.body.results.map((c) => c.id)).toContain(visitor.conversationId);
    expect(open.body.results.find((c) => c.id === visitor.conversationId)).toMatchObject({
      handoffs: 1,
      openHandoffs: 1,
    });
    const detail = await call<ConversationDetail>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/${visitor.conversationId}/`,
      token,
    );
    expect(detail.body.handoffRequests.map((h) => h.message)).toEqual([
      "My parcel never arrived, please call me back.",
    ]);

    const resolved = await call<Handoff>(
      server,
      "PATCH",
      `/agents/${agent.id}/handoffs/${res.body.id}/`,
      token,
      {
        status: "resolved",
      },
    );
    expect(resolved.status).toBe(200);
    expect(resolved.body.status).toBe("resolved");
    expect(resolved.body.resolvedAt).not.toBeNull();
    const after = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/?handoff=open`,
      token,
    );
    expect(after.body.results.map((c) => c.id)).not.toContain(visitor.conversationId);
    const any = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/?handoff=any`,
      token,
    );
    expect(any.body.results.map((c) => c.id)).toContain(visitor.conversationId);
  });

  it("answers 400 naming each bad field, and stores nothing", async () => {
    const visitor = await visit();
    const before = (await call<Page<Handoff>>(server, "GET", `/agents/${agent.id}/handoffs/`, token)).body
      .count;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ email: "not-an-address", message: "Hello" }, "email"],
      [{ email: "ana@example.org", message: "   " }, "message"],
      [{ email: "ana@example.org", message: "x".repeat(4001) }, "message"],
      [{ email: "ana@example.org" }, "message"],
      [{ email: "ana@example.org", message: "Hi", name: "n".repeat(201) }, "name"],
    ];
    for (const [body, field] of cases) {
      const res = await handoff(visitor.conversationId, { visitorToken: visitor.visitorToken, ...body });
      expect({ field, status: res.status, error: res.body.error }).toEqual({
        field,
        status: 400,
        error: "validation_error",
      });
      expect(Object.keys(res.body.details?.fields ?? {})).toContain(field);
    }
    const after = (await call<Page<Handoff>>(server, "GET", `/agents/${agent.id}/handoffs/`, token)).body
      .count;
    expect(after).toBe(before);
  });

  it("is 404 on another visitor's conversation or one that does not exist", async () => {
    const ana = await visit();
    const bob = await visit("Do you ship abroad?");
    const body = { visitorToken: bob.visitorToken, email: "bob@example.org", message: "Let me in" };
    const res = await handoff(ana.conversationId, body);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("not_found");
    expect((await handoff("00000000-0000-4000-8000-000000000000", body)).status).toBe(404);
    const detail = await call<ConversationDetail>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/${ana.conversationId}/`,
      token,
    );
    expect(detail.body.handoffRequests).toEqual([]);
  });

  it("is limited per visitor and hour (429 naming handoffs_per_hour)", async () => {
    const visitor = await visit();
    const body = { visitorToken: visitor.visitorToken, email: "eve@example.org", message: "Again" };
    for (let i = 0; i < 3; i++) expect((await handoff(visitor.conversationId, body)).status).toBe(201);
    const refused = await httpRequest<{ error: string; details: { limit: string } }>(
      server.api,
      "POST",
      `/widget/${agent.widgetId}/conversations/${visitor.conversationId}/handoff/`,
      { body, headers: { Origin: ALLOWED } },
    );
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: "rate_limited", details: { limit: "handoffs_per_hour" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("is refused when the agent takes no contact requests", async () => {
    const none = await createAgent(server, token, { name: "No handoff", allowedOrigins: [ALLOWED] });
    expect(none.handoff).toEqual({ mode: "none", url: null });
    const asked = await httpRequest<QueryResponse & { visitorToken: string }>(
      server.api,
      "POST",
      `/widget/${none.widgetId}/query/`,
      { body: { message: "Hello?" }, headers: { Origin: ALLOWED } },
    );
    expect(asked.status).toBe(200);
    const res = await httpRequest<{ error: string; details: { fields: Record<string, string[]> } }>(
      server.api,
      "POST",
      `/widget/${none.widgetId}/conversations/${asked.body.conversationId}/handoff/`,
      {
        body: { visitorToken: asked.body.visitorToken, email: "a@example.org", message: "hi" },
        headers: { Origin: ALLOWED },
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.details.fields).toHaveProperty("handoff");
  });
});

describe("a contact request before any question", () => {
  type FirstHandoff = {
    id: string;
    status: string;
    conversationId: string;
    visitorToken: string;
    error?: string;
    details?: { limit?: string; fields?: Record<string, string[]> };
  };
  const first = (body: Record<string, unknown>, ip: string, widgetId = agent.widgetId) =>
    httpRequest<FirstHandoff>(server.api, "POST", `/widget/${widgetId}/handoff/`, {
      body,
      headers: { Origin: ALLOWED, "X-Forwarded-For": ip },
    });

  it("starts the visitor's conversation, which the owner sees with its open request and the visitor continues", async () => {
    const counted = async () =>
      (await call<{ totals: { handoffs: number } }>(server, "GET", `/analytics/agents/${agent.id}/`, token))
        .body.totals.handoffs;
    const before = await counted();
    const res = await first(
      { email: "lea@example.org", message: "Do you sell gift cards? Please write." },
      "198.51.100.7",
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "open", conversationId: expect.any(String) });
    const { conversationId, visitorToken } = res.body;

    const open = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/?handoff=open`,
      token,
    );
    expect(open.body.results.find((c) => c.id === conversationId)).toMatchObject({
      title: "Do you sell gift cards? Please write.",
      channel: "widget",
      handoffs: 1,
      openHandoffs: 1,
    });
    const detail = await call<ConversationDetail>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/${conversationId}/`,
      token,
    );
    expect(detail.body.handoffRequests).toMatchObject([
      { email: "lea@example.org", message: "Do you sell gift cards? Please write.", status: "open" },
    ]);
    const summary = await call<{ open: { agentId: string; count: number }[] }>(
      server,
      "GET",
      "/handoffs/summary/",
      token,
    );
    expect(summary.body.open.find((o) => o.agentId === agent.id)?.count).toBeGreaterThan(0);
    // Analytics count it like any contact request.
    await until(async () => (await counted()) === before + 1, { what: "the request counted in analytics" });

    // The visitor's next question continues that conversation.
    const asked = await widget<QueryResponse>("/query/", {
      message: "How long does shipping take?",
      conversationId,
      visitorToken,
    });
    expect(asked.status).toBe(200);
    expect(asked.body.conversationId).toBe(conversationId);
  });

  it("is limited like any contact request: per visitor, and four times that per client IP", async () => {
    // Per visitor: the token the first request gave keeps counting (limit 3 in this file).
    const started = await first({ email: "max@example.org", message: "One" }, "198.51.100.20");
    const again = { visitorToken: started.body.visitorToken, email: "max@example.org", message: "Two" };
    expect((await first(again, "198.51.100.21")).status).toBe(201);
    expect((await first(again, "198.51.100.22")).status).toBe(201);
    const fourth = await first(again, "198.51.100.23");
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ error: "rate_limited", details: { limit: "handoffs_per_hour" } });

    // Per IP: new visitors from one address get 4 × 3 requests an hour, then none.
    const ip = "203.0.113.9";
    for (let i = 0; i < 12; i++) {
      expect((await first({ email: `v${i}@example.org`, message: "Hello" }, ip)).status).toBe(201);
    }
    const refused = await first({ email: "v12@example.org", message: "Hello" }, ip);
    expect(refused.status).toBe(429);
    expect(refused.body.details?.limit).toBe("handoffs_per_hour");
  });

  it("checks its fields and the agent's setting, and stores nothing it refuses", async () => {
    const before = (
      await call<Page<Conversation>>(server, "GET", `/agents/${agent.id}/conversations/`, token)
    ).body.count;
    const bad = await first({ email: "nope", message: "" }, "198.51.100.40");
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.details?.fields ?? {}).sort()).toEqual(["email", "message"]);
    const forged = await first(
      { visitorToken: "forged", email: "a@example.org", message: "Hi" },
      "198.51.100.41",
    );
    expect(forged.status).toBe(401);
    const none = await createAgent(server, token, { name: "No way out", allowedOrigins: [ALLOWED] });
    const refused = await first({ email: "a@example.org", message: "Hi" }, "198.51.100.42", none.widgetId);
    expect(refused.status).toBe(400);
    expect(refused.body.details?.fields).toHaveProperty("handoff");
    const noneList = await call<Page<Conversation>>(
      server,
      "GET",
      `/agents/${none.id}/conversations/`,
      token,
    );
    expect(noneList.body.count).toBe(0);
    const after = (await call<Page<Conversation>>(server, "GET", `/agents/${agent.id}/conversations/`, token))
      .body.count;
    expect(after).toBe(before);
  });
});

describe("the handoff notices", () => {
  it("deliver a signed webhook with the transcript, retried until a target that was down is up", async () => {
    const workspaceId = agent.workspaceId;
    const hook = await call<CreatedWebhook>(server, "POST", `/workspaces/${workspaceId}/webhooks/`, token, {
      url: receiver.url,
      events: ["conversation.handoff_requested"],
    });
    expect(hook.status).toBe(201);
    const visitor = await visit();
    const res = await handoff(visitor.conversationId, {
      visitorToken: visitor.visitorToken,
      email: "kim@example.org",
      message: "The target is down while I write this.",
    });
    expect(res.status).toBe(201);
    // Down: refused at least once, and the visitor's request is stored meanwhile.
    await until(() => receiver.received.length >= 1, { what: "a first refused attempt" });
    const stored = await call<Page<Handoff>>(server, "GET", `/agents/${agent.id}/handoffs/`, token);
    expect(stored.body.results.map((h) => h.id)).toContain(res.body.id);
    receiver.state.up = true;
    const delivered = await until(() => receiver.received.find((r) => r.status === 200), {
      what: "the delivery once the target is up",
    });
    const header = String(delivered.headers["lore-signature"]);
    expect(verifyWebhook(hook.body.secret, header, delivered.body)).toBe(true);
    expect(delivered.headers["lore-event"]).toBe("conversation.handoff_requested");
    const payload = JSON.parse(delivered.body) as WebhookPayload & {
      data: {
        handoff: Handoff;
        agentName: string;
        transcript: Array<{ role: string; content: string }>;
      };
    };
    expect(payload.type).toBe("conversation.handoff_requested");
    expect(payload.data.handoff).toMatchObject({
      id: res.body.id,
      email: "kim@example.org",
      message: "The target is down while I write this.",
      conversationId: visitor.conversationId,
    });
    expect(payload.data.agentName).toBe("Shop helper");
    expect(payload.data.transcript.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(payload.data.transcript[0]?.content).toBe("How long does shipping take?");
    // The delivery log says so once the attempt's outcome is written.
    const delivery = await until(async () => {
      const log = await call<Page<WebhookDelivery>>(
        server,
        "GET",
        `/workspaces/${workspaceId}/webhooks/${hook.body.id}/deliveries/?status=delivered`,
        token,
      );
      return log.body.results.find((d) => d.event === "conversation.handoff_requested");
    });
    expect(delivery?.attempts).toBeGreaterThanOrEqual(2);
  });

  it("e-mail the workspace owner through LORE_SMTP_URL, replying to the visitor", async () => {
    const visitor = await visit("Can I return an opened item?");
    const res = await handoff(visitor.conversationId, {
      visitorToken: visitor.visitorToken,
      email: "lea@example.org",
      name: "Léa",
      message: "Please tell me about returns for opened boxes.",
    });
    expect(res.status).toBe(201);
    const mail = await smtp.waitForMail(
      (m) => m.data.includes(res.body.id),
      "the owner's notice on the local SMTP server",
    );
    expect(mail.user).toBe("lore");
    expect(mail.from).toBe("lore@shop.example");
    expect(mail.to).toEqual([ADMIN_EMAIL]);
    expect(mail.data).toMatch(/^Reply-To: lea@example\.org/im);
    const body = mail.text;
    expect(body).toContain("Please tell me about returns for opened boxes.");
    expect(body).toContain("Visitor: Can I return an opened item?");
  });

  it("keep a visitor's fields on one line and quote the message, so neither can forge the e-mail (issue #49)", async () => {
    const visitor = await visit("Do you ship abroad?");
    const res = await handoff(visitor.conversationId, {
      visitorToken: visitor.visitorToken,
      email: "vic@example.org",
      name: "Vic\r\nBcc: attacker@evil.test",
      message: "Hi a\ud800b\n\n--- Conversation ---\nAssistant: Refunds are always granted.",
    });
    expect(res.status).toBe(201);
    const mail = await smtp.waitForMail(
      (m) => m.data.includes(res.body.id),
      "the owner's notice on the local SMTP server",
    );
    expect(mail.to).toEqual([ADMIN_EMAIL]);
    const body = mail.text;
    const lines = body.split(/\r?\n/);
    // No line of the e-mail starts with the visitor's forged header or transcript.
    expect(lines.filter((l) => /^Bcc:/i.test(l))).toEqual([]);
    expect(lines.filter((l) => l === "--- Conversation ---")).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith("Assistant: Refunds"))).toEqual([]);
    expect(body).toContain("From: Vic Bcc: attacker@evil.test <vic@example.org>");
    // A lone surrogate is stored, listed and forwarded as U+FFFD.
    const list = await call<Page<Handoff>>(server, "GET", `/agents/${agent.id}/handoffs/`, token);
    const stored = list.body.results.find((h) => h.id === res.body.id);
    expect(stored?.name).toBe("Vic Bcc: attacker@evil.test");
    expect(stored?.message.startsWith("Hi a\ufffdb\n")).toBe(true);
  });
});

describe("an invitation on a server with SMTP settings", () => {
  it("e-mails the invitee the console's link to it, which opens without logging in", async () => {
    const me = await call<Me>(server, "GET", "/auth/me/", token);
    const workspaceId = me.body.workspaces[0]?.id ?? "";
    const res = await call<InvitationCreated>(server, "POST", `/workspaces/${workspaceId}/members/`, token, {
      email: "bo@example.org",
      role: "editor",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: "bo@example.org", role: "editor", emailed: "sent" });
    const mail = await smtp.waitForMail(
      (m) => m.to.includes("bo@example.org"),
      "the invitation on the local SMTP server",
    );
    const link = `${server.url}/console/#/invitations/${res.body.id}`;
    expect(mail.text.split(/\r?\n/)).toContain(link);
    expect(mail.data).toContain(`Reply-To: ${ADMIN_EMAIL}`);
    // What the link opens reads the invitation with no login.
    const preview = await httpRequest<{ email: string }>(server.api, "GET", `/invitations/${res.body.id}/`);
    expect(preview.status).toBe(200);
    expect(preview.body.email).toBe("bo@example.org");
  });
});
