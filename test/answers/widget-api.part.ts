import {
  type Agent,
  conversationDetailSchema,
  errorBodySchema,
  type QueryResponse,
  queryResponseSchema,
  widgetConfigSchema,
} from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { httpRequest, startTestServer, type TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { call, createAgent, streamQuery } from "../ingestion/source-helpers.ts";

const ALLOWED = "https://allowed.com";

let server: TestServer;
let token: string;
let agent: Agent;

type WidgetAnswer = QueryResponse & { visitorToken: string };

const widget = <T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  origin: string | null = ALLOWED,
  extra: Record<string, string> = {},
) =>
  httpRequest<T>(server.api, method, `/widget/${agent.widgetId}${path}`, {
    body,
    headers: { ...(origin === null ? {} : { Origin: origin }), ...extra },
  });

beforeAll(async () => {
  ({ server, token, agent } = await startServerWithAgent({
    source: { name: "Shop FAQ", entries: shopEntries },
    agent: {
      name: "Shop widget",
      allowedOrigins: [ALLOWED],
      welcomeMessage: "Hi! Ask me about the shop.",
      suggestedQuestions: ["How long does shipping take?"],
    },
  }));
});
afterAll(() => server?.close());

describe("widget API", () => {
  it("serves the public config to an allowed origin", async () => {
    const res = await widget("GET", "/config/");
    expect(res.status).toBe(200);
    const config = widgetConfigSchema.strict().parse(res.body);
    expect(config).toMatchObject({
      widgetId: agent.widgetId,
      name: "Shop widget",
      welcomeMessage: "Hi! Ask me about the shop.",
      status: "ready",
    });
    expect(JSON.stringify(res.body)).not.toMatch(/instructions|dataSourceIds|workspaceId/);
    const unknown = await httpRequest(server.api, "GET", "/widget/wgt_doesnotexist123/config/", {
      headers: { Origin: ALLOWED },
    });
    expect(unknown.status).toBe(404);
  });

  it("refuses look-alike, null and missing origins with 403 origin_not_allowed", async () => {
    for (const origin of [
      "https://evil-allowed.com",
      "https://allowed.com.evil.com",
      "http://allowed.com",
      "https://allowed.com:8443",
      "null",
      null,
    ]) {
      for (const [method, path, body] of [
        ["GET", "/config/", undefined],
        ["POST", "/query/", { message: "How long does shipping take?" }],
      ] as const) {
        const res = await widget(method, path, body, origin);
        expect(res.status, `${origin} ${path}`).toBe(403);
        expect(errorBodySchema.parse(res.body).error).toBe("origin_not_allowed");
      }
    }
    // A Referer from an allowed page counts when a browser sends no Origin.
    expect((await widget("GET", "/config/", undefined, null, { Referer: `${ALLOWED}/pricing` })).status).toBe(
      200,
    );
  });

  it("answers in JSON with a visitor token that alone can continue the conversation", async () => {
    const first = await widget<WidgetAnswer>("POST", "/query/", {
      message: "How long does standard shipping take?",
    });
    expect(first.status).toBe(200);
    const { visitorToken, ...answer } = first.body;
    queryResponseSchema.parse(answer);
    expect(answer.response).toMatch(/three to five business days/);
    expect(visitorToken).toEqual(expect.any(String));

    const next = await widget<WidgetAnswer>("POST", "/query/", {
      message: "Is shipping free above 50 euros?",
      conversationId: answer.conversationId,
      visitorToken,
    });
    expect(next.status).toBe(200);
    expect(next.body.conversationId).toBe(answer.conversationId);

    const noToken = await widget("POST", "/query/", {
      message: "and express?",
      conversationId: answer.conversationId,
    });
    expect(noToken.status).toBe(404);
    const stranger = await widget<WidgetAnswer>("POST", "/query/", {
      message: "Hello, what are the store hours?",
    });
    const hijack = await widget("POST", "/query/", {
      message: "and express?",
      conversationId: answer.conversationId,
      visitorToken: stranger.body.visitorToken,
    });
    expect(hijack.status).toBe(404);
    const forged = await widget("POST", "/query/", {
      message: "and express?",
      conversationId: answer.conversationId,
      visitorToken: `${visitorToken}x`,
    });
    expect([401, 404]).toContain(forged.status);

    // The conversation is the owner's to read, with the channel's messages.
    const detail = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${answer.conversationId}/`, token)).body,
    );
    expect(detail.messageCount).toBe(4);
  });

  it("streams over SSE with the visitor token in the start event", async () => {
    const { response, events } = await streamQuery(
      `${server.api}/widget/${agent.widgetId}/query/`,
      null,
      { message: "How long are gift cards valid?" },
      { headers: { Origin: ALLOWED } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const types = events.map((e) => e.event.type);
    expect(types[0]).toBe("start");
    expect(types.slice(-2)).toEqual(["sources", "done"]);
    const start = events[0]?.event;
    if (start?.type !== "start") throw new Error("no start");
    expect(start.visitorToken).toEqual(expect.any(String));
    const follow = await widget<WidgetAnswer>("POST", "/query/", {
      message: "Can they be exchanged for cash?",
      conversationId: start.conversationId,
      visitorToken: start.visitorToken,
    });
    expect(follow.status).toBe(200);
    expect(follow.body.conversationId).toBe(start.conversationId);
  });

  it("takes feedback from the visitor who got the answer only", async () => {
    const answer = await widget<WidgetAnswer>("POST", "/query/", {
      message: "When does the Amsterdam store open?",
    });
    const url = `/messages/${answer.body.messageId}/feedback/`;
    const other = await widget<WidgetAnswer>("POST", "/query/", {
      message: "How long is the warranty on appliances?",
    });
    expect((await widget("POST", url, { rating: "up", visitorToken: other.body.visitorToken })).status).toBe(
      404,
    );
    expect((await widget("POST", url, { rating: "up" })).status).toBe(400);
    expect(
      (
        await widget(
          "POST",
          url,
          { rating: "down", comment: "Too short", visitorToken: answer.body.visitorToken },
          "https://evil.com",
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await widget("POST", url, {
          rating: "down",
          comment: "Too short",
          visitorToken: answer.body.visitorToken,
        })
      ).status,
    ).toBe(204);
    const detail = conversationDetailSchema.parse(
      (await call(server, "GET", `/agents/${agent.id}/conversations/${answer.body.conversationId}/`, token))
        .body,
    );
    expect(detail.messages[1]?.feedback).toBe("down");
    expect(
      (
        await widget("POST", `/messages/${crypto.randomUUID()}/feedback/`, {
          rating: "up",
          visitorToken: answer.body.visitorToken,
        })
      ).status,
    ).toBe(404);
  });

  it("counts questions, not page views, against the anonymous limit; a visitor token has its own quota", async () => {
    // Four anonymous requests an hour: the owner's login is the first.
    const limited = await startTestServer({ LORE_LIMIT_ANON_PER_HOUR: "4" });
    try {
      const t = (await limited.login()).access;
      const a = await createAgent(limited, t, { name: "Limited", allowedOrigins: [ALLOWED] });
      const ask = (body: Record<string, unknown>) =>
        httpRequest<WidgetAnswer>(limited.api, "POST", `/widget/${a.widgetId}/query/`, {
          body,
          headers: { Origin: ALLOWED },
        });
      // Many page views: none spends the question quota.
      for (let i = 0; i < 8; i++) {
        const config = await httpRequest(limited.api, "GET", `/widget/${a.widgetId}/config/`, {
          headers: { Origin: ALLOWED },
        });
        expect(config.status).toBe(200);
        expect(Number(config.headers.get("x-ratelimit-limit"))).toBe(40);
      }
      const first = await ask({ message: "hello" });
      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-remaining")).toBe("2");
      // The visitor's next questions are charged to the visitor, not to the IP.
      for (let i = 0; i < 4; i++) {
        const next = await ask({ message: "and again?", visitorToken: first.body.visitorToken });
        expect(next.status).toBe(200);
        expect(next.headers.get("x-ratelimit-remaining")).toBe(String(3 - i));
      }
      const fifth = await ask({ message: "once more", visitorToken: first.body.visitorToken });
      expect(fifth.status).toBe(429);
      expect(JSON.stringify(errorBodySchema.parse(fifth.body).details)).toContain("anonymous");
      expect(Number(fifth.headers.get("retry-after"))).toBeGreaterThan(0);
      // Token-less questions from the same IP still have the IP's quota (two left), then 429.
      expect((await ask({ message: "hi" })).status).toBe(200);
      expect((await ask({ message: "hi" })).status).toBe(200);
      expect((await ask({ message: "hi" })).status).toBe(429);
      // A forged token is charged to the IP (spent), and refused as before.
      expect((await ask({ message: "hi", visitorToken: `${first.body.visitorToken}x` })).status).toBe(429);
      // Refused config reads (unknown widget) are charged to the anonymous limit like any refusal.
      const unknown = await httpRequest(limited.api, "GET", "/widget/wgt_doesnotexist123/config/", {
        headers: { Origin: ALLOWED },
      });
      expect(unknown.status).toBe(429);
      // The owner's authenticated traffic has its own budget.
      expect((await call(limited, "GET", "/agents/", t)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
