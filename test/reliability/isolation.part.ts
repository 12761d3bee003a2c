/**
 * Tenant isolation as a property: random sequences of API and widget calls by three tenants. No
 * response to tenant A ever contains another tenant's marker words (search results, citations,
 * answers, conversations, lists, counts, documents, analytics, webhooks), another tenant's ids
 * answer 404 (403 for an API key on another agent), and nothing of theirs changes.
 */
import { errorBodySchema } from "@lore/shared";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  personalWorkspaceId,
  startTestServer,
  type TestResponse,
  type TestServer,
} from "../helpers/server.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

interface Tenant {
  index: number;
  token: string;
  workspaceId: string;
  agentId: string;
  widgetId: string;
  origin: string;
  apiKey: string;
  sourceIds: string[];
  conversationId: string;
  messageId: string;
  visitorToken: string;
  markers: string[];
  agentName: string;
}

const BASE_MARKERS = ["xylarion", "brevundix", "quennelot"];
const numRuns = Math.max(5, Math.round(Number(process.env.LORE_FUZZ_RUNS ?? 50) / 5));

let server: TestServer;
const tenants: Tenant[] = [];
let created = 0;

beforeAll(async () => {
  server = await startTestServer({ LORE_LOG_LEVEL: "silent" });
  for (let i = 0; i < 3; i++) {
    const email = `tenant${i}@example.com`;
    const user = await server.createUser(email);
    const login = await server.login(email, "Tr0ub4dor-and-3");
    const token = login.access;
    const marker = BASE_MARKERS[i] ?? `tenant${i}`;
    const source = await readyTextSource(server, token, `${marker} handbook`, [
      {
        title: `${marker} policy`,
        content: `The ${marker} policy says refunds take ten days. Shared words: refund policy handbook shipping.`,
      },
      {
        title: `${marker} shipping`,
        content: `Shipping with ${marker} takes three days. Shared words: refund policy handbook shipping.`,
      },
    ]);
    const origin = `https://tenant${i}.example`;
    const agentName = `${marker} agent`;
    const agent = await createAgent(server, token, {
      name: agentName,
      dataSourceIds: [source.id],
      allowedOrigins: [origin],
    });
    const key = await server.request<{ key: string }>("POST", `/agents/${agent.id}/api-keys/`, {
      token,
      body: { name: "k" },
    });
    const answer = await server.request<{ conversationId: string; messageId: string }>(
      "POST",
      `/agents/${agent.id}/query/`,
      { token, body: { message: `What does the ${marker} refund policy say?` } },
    );
    const widget = await server.request<{ visitorToken: string }>(
      "POST",
      `/widget/${agent.widgetId}/query/`,
      { body: { message: `${marker} shipping time?` }, headers: { Origin: origin } },
    );
    expect(answer.status).toBe(200);
    expect(widget.status).toBe(200);
    await server.request("POST", `/workspaces/${personalWorkspaceId(server.services, user.id)}/webhooks/`, {
      token,
      body: { url: `https://${marker}.example/hook`, events: ["agent.ready"], description: `${marker} hook` },
    });
    tenants.push({
      index: i,
      token,
      workspaceId: personalWorkspaceId(server.services, user.id),
      agentId: agent.id,
      widgetId: agent.widgetId,
      origin,
      apiKey: key.body.key,
      sourceIds: [source.id],
      conversationId: answer.body.conversationId,
      messageId: answer.body.messageId,
      visitorToken: widget.body.visitorToken,
      markers: [marker],
      agentName,
    });
  }
}, 120_000);

afterAll(async () => {
  await server?.close();
});

function tenant(i: number): Tenant {
  const t = tenants[i % tenants.length];
  if (!t) throw new Error("no tenant");
  return t;
}

/**
 * No marker word (unless `idsOnly`) nor id of any other tenant in anything the actor received.
 * Conversation titles and analytics hold the actor's own questions, which name victims' markers
 * on purpose, so those are checked for ids only.
 */
function expectClean(actor: Tenant, res: TestResponse, what: string, idsOnly = false): void {
  const text = (typeof res.body === "string" ? res.body : JSON.stringify(res.body)).toLowerCase();
  for (const other of tenants) {
    if (other === actor) continue;
    if (!idsOnly)
      for (const marker of other.markers)
        expect(text.includes(marker), `${what}: tenant ${actor.index} saw ${marker}`).toBe(false);
    for (const id of [other.agentId, other.workspaceId, other.conversationId, ...other.sourceIds]) {
      expect(text.includes(id), `${what}: tenant ${actor.index} saw id ${id}`).toBe(false);
    }
  }
  expect(res.status, `${what}: ${text.slice(0, 200)}`).not.toBe(500);
}

function expectDenied(res: TestResponse, statuses: number[], what: string): void {
  expect(statuses, `${what}: ${JSON.stringify(res.body).slice(0, 200)}`).toContain(res.status);
  errorBodySchema.parse(res.body);
}

type Op = { kind: string; actor: number; victim: number; useKey: boolean };

const ops = [
  "search",
  "query",
  "widgetQuery",
  "listSources",
  "listAgents",
  "listConversations",
  "readVictimAgent",
  "readVictimSource",
  "readVictimDocuments",
  "readVictimConversation",
  "patchVictimAgent",
  "deleteVictimSource",
  "queryVictimAgent",
  "searchVictimSources",
  "attachVictimSource",
  "feedbackVictimMessage",
  "widgetVictimConversation",
  "victimAnalytics",
  "victimWebhooks",
  "createOwnSource",
] as const;

async function run(op: Op): Promise<void> {
  const a = tenant(op.actor);
  const b = tenant(op.victim === op.actor ? op.actor + 1 : op.victim);
  const auth = op.useKey ? a.apiKey : a.token;
  const what = `${op.kind} by ${a.index} against ${b.index}${op.useKey ? " (api key)" : ""}`;
  const victimMarker = b.markers[Math.floor(Math.random() * b.markers.length)] ?? "";
  switch (op.kind) {
    case "search": {
      const res = await server.request("POST", `/agents/${a.agentId}/search/`, {
        token: auth,
        body: { query: `${victimMarker} refund policy shipping`, topK: 50 },
      });
      expect(res.status).toBe(200);
      return expectClean(a, res, what);
    }
    case "query": {
      const res = await server.request("POST", `/agents/${a.agentId}/query/`, {
        token: auth,
        body: { message: `What is the ${victimMarker} refund policy?` },
      });
      expect(res.status).toBe(200);
      const body = res.body as { response: string };
      // The question itself is echoed nowhere but the answer may not quote the victim's text.
      return expectClean(
        a,
        { ...res, body: { ...body, response: body.response.replace(victimMarker, "") } },
        what,
      );
    }
    case "widgetQuery": {
      const res = await server.request("POST", `/widget/${a.widgetId}/query/`, {
        body: { message: `${victimMarker} shipping`, visitorToken: a.visitorToken },
        headers: { Origin: a.origin },
      });
      expect(res.status).toBe(200);
      const body = res.body as { sources: unknown[] };
      return expectClean(a, { ...res, body: body.sources }, what);
    }
    case "listSources": {
      const res = await server.request<{ count: number; results: Array<{ id: string }> }>(
        "GET",
        "/data-sources/?page_size=100",
        { token: a.token },
      );
      expectClean(a, res, what);
      expect(res.body.results.map((s) => s.id).sort()).toEqual([...a.sourceIds].sort());
      expect(res.body.count).toBe(a.sourceIds.length);
      return;
    }
    case "listAgents": {
      const res = await server.request<{ count: number; results: Array<{ id: string }> }>(
        "GET",
        "/agents/?page_size=100",
        { token: auth },
      );
      expectClean(a, res, what);
      expect(res.body.results.map((x) => x.id)).toEqual([a.agentId]);
      return;
    }
    case "listConversations": {
      const res = await server.request("GET", `/agents/${a.agentId}/conversations/?page_size=100`, {
        token: auth,
      });
      expect(res.status).toBe(200);
      return expectClean(a, res, what, true);
    }
    case "readVictimAgent":
      return expectDenied(
        await server.request("GET", `/agents/${b.agentId}/`, { token: auth }),
        op.useKey ? [403, 404] : [404],
        what,
      );
    case "readVictimSource":
      return expectDenied(
        await server.request("GET", `/data-sources/${b.sourceIds[0]}/`, { token: auth }),
        op.useKey ? [403, 404] : [404],
        what,
      );
    case "readVictimDocuments":
      return expectDenied(
        await server.request("GET", `/data-sources/${b.sourceIds[0]}/documents/`, { token: auth }),
        op.useKey ? [403, 404] : [404],
        what,
      );
    case "readVictimConversation": {
      expectDenied(
        await server.request("GET", `/agents/${b.agentId}/conversations/${b.conversationId}/`, {
          token: auth,
        }),
        op.useKey ? [403, 404] : [404],
        what,
      );
      // …and not through the actor's own agent either.
      return expectDenied(
        await server.request("GET", `/agents/${a.agentId}/conversations/${b.conversationId}/`, {
          token: auth,
        }),
        [404],
        what,
      );
    }
    case "patchVictimAgent":
      return expectDenied(
        await server.request("PATCH", `/agents/${b.agentId}/`, {
          token: auth,
          body: { name: "pwned", allowedOrigins: ["*"] },
        }),
        op.useKey ? [403, 404] : [404],
        what,
      );
    case "deleteVictimSource":
      return expectDenied(
        await server.request("DELETE", `/data-sources/${b.sourceIds[0]}/`, { token: auth }),
        op.useKey ? [403, 404] : [404],
        what,
      );
    case "queryVictimAgent":
      return expectDenied(
        await server.request("POST", `/agents/${b.agentId}/query/`, {
          token: auth,
          body: { message: "refund policy" },
        }),
        op.useKey ? [403, 404] : [404],
        what,
      );
    case "searchVictimSources": {
      const res = await server.request("POST", `/agents/${a.agentId}/search/`, {
        token: auth,
        body: { query: "refund policy", dataSourceIds: b.sourceIds },
      });
      expectDenied(res, [400, 404], what);
      return expectClean(a, { ...res, body: (res.body as { message?: string }).message ?? "" }, what);
    }
    case "attachVictimSource": {
      if (op.useKey)
        return expectDenied(
          await server.request("PATCH", `/agents/${a.agentId}/`, {
            token: auth,
            body: { dataSourceIds: b.sourceIds },
          }),
          [400, 403, 404],
          what,
        );
      return expectDenied(
        await server.request("POST", "/agents/", {
          token: auth,
          body: { name: "thief", dataSourceIds: b.sourceIds },
        }),
        [400, 404],
        what,
      );
    }
    case "feedbackVictimMessage":
      return expectDenied(
        await server.request("POST", `/agents/${a.agentId}/messages/${b.messageId}/feedback/`, {
          token: auth,
          body: { rating: "down" },
        }),
        [404],
        what,
      );
    case "widgetVictimConversation": {
      const res = await server.request("POST", `/widget/${a.widgetId}/query/`, {
        body: { message: "hello", conversationId: b.conversationId, visitorToken: a.visitorToken },
        headers: { Origin: a.origin },
      });
      expectDenied(res, [404], what);
      // The victim's visitor token on the actor's widget is not a visitor of this agent.
      return expectDenied(
        await server.request("POST", `/widget/${a.widgetId}/query/`, {
          body: { message: "hello", visitorToken: b.visitorToken },
          headers: { Origin: a.origin },
        }),
        [401],
        what,
      );
    }
    case "victimAnalytics":
      return expectDenied(
        await server.request("GET", `/analytics/agents/${b.agentId}/`, { token: auth }),
        op.useKey ? [403, 404] : [404],
        what,
      );
    case "victimWebhooks":
      return expectDenied(
        await server.request("GET", `/workspaces/${b.workspaceId}/webhooks/`, { token: auth }),
        op.useKey ? [401, 403, 404] : [404],
        what,
      );
    case "createOwnSource": {
      created += 1;
      const marker = `${BASE_MARKERS[a.index]}extra${created}`;
      const res = await server.request<{ id: string }>("POST", "/data-sources/", {
        token: a.token,
        body: {
          name: `${marker} notes`,
          type: "text",
          config: {
            entries: [{ title: marker, content: `${marker} is a private note of tenant ${a.index}.` }],
          },
        },
      });
      expect(res.status).toBe(201);
      a.sourceIds.push(res.body.id);
      a.markers.push(marker);
      return;
    }
    default:
      throw new Error(`unknown op ${op.kind}`);
  }
}

describe("tenant isolation", () => {
  it("holds for random sequences of API and widget calls by three tenants", async () => {
    const opArb = fc.record({
      kind: fc.constantFrom(...ops),
      actor: fc.nat({ max: 2 }),
      victim: fc.nat({ max: 2 }),
      useKey: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 20 }), async (sequence) => {
        for (const op of sequence) await run(op);
        // Nothing of anyone changed by another tenant's hand.
        for (const t of tenants) {
          const agent = await server.request<{
            name: string;
            allowedOrigins: string[];
            dataSourceIds: string[];
          }>("GET", `/agents/${t.agentId}/`, { token: t.token });
          expect(agent.body.name).toBe(t.agentName);
          expect(agent.body.allowedOrigins).toEqual([t.origin]);
          expect(agent.body.dataSourceIds).toEqual([t.sourceIds[0]]);
          expect(
            (await server.request("GET", `/data-sources/${t.sourceIds[0]}/`, { token: t.token })).status,
          ).toBe(200);
          const convo = await server.request(
            "GET",
            `/agents/${t.agentId}/conversations/${t.conversationId}/`,
            { token: t.token },
          );
          expect(convo.status).toBe(200);
          // Answers and citations in the conversation: no other tenant's text (questions may name it).
          const messages = (convo.body as { messages: Array<{ role: string; sources: unknown[] }> }).messages;
          expectClean(
            t,
            { ...convo, body: messages.filter((m) => m.role === "assistant").map((m) => m.sources) },
            "own conversation citations",
          );
          expectClean(t, convo, "own conversation", true);
          const analytics = await server.request("GET", `/analytics/agents/${t.agentId}/`, {
            token: t.token,
          });
          if (analytics.status === 200) expectClean(t, analytics, "own analytics", true);
          const hooks = await server.request("GET", `/workspaces/${t.workspaceId}/webhooks/`, {
            token: t.token,
          });
          if (hooks.status === 200) expectClean(t, hooks, "own webhooks");
        }
      }),
      { numRuns },
    );
  }, 170_000);
});
