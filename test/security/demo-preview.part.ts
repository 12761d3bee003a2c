/**
 * Issue #16 item 6: the demo page shows an agent only in a preview opened from the console (a
 * short-lived grant signed for that agent) or, outside production, for an explicit `?widget=`; and
 * an agent's allowedOrigins is the only authority for every origin, the server's own included.
 */

import { signPreviewGrant } from "@lore/server/site/preview-grant.ts";
import type { Agent, PreviewGrant } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent } from "../ingestion/source-helpers.ts";

let server: TestServer;
let production: TestServer;
let token: string;
let closed: Agent;
let other: Agent;

beforeAll(async () => {
  [server, production] = await Promise.all([
    startTestServer(),
    startTestServer({ LORE_PRODUCTION: "true", LORE_TRUST_PROXY: "true" }),
  ]);
  token = (await server.login()).access;
  closed = await createAgent(server, token, { name: "Closed", allowedOrigins: [] });
  other = await createAgent(server, token, { name: "Other", allowedOrigins: [] });
});

afterAll(async () => {
  await Promise.all([server?.close(), production?.close()]);
});

/** The widget id the demo page embeds, and its state. */
async function demoPage(s: TestServer, query: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/${query}`, { headers });
  const html = await res.text();
  return {
    status: res.status,
    widgetId: /data-widget-id="([^"]*)"/.exec(html)?.[1],
    state: /data-page-state="([^"]*)"/.exec(html)?.[1],
  };
}

function widgetConfig(agent: Agent, headers: Record<string, string>) {
  return server.request("GET", `/widget/${agent.widgetId}/config/`, { headers });
}

async function previewOf(agent: Agent): Promise<PreviewGrant> {
  const res = await server.request<PreviewGrant>("POST", `/agents/${agent.id}/preview/`, { token });
  expect(res.status).toBe(201);
  return res.body;
}

describe("the demo page", () => {
  it("embeds no agent for an anonymous visitor", async () => {
    expect(await demoPage(server, "")).toMatchObject({ status: 200, widgetId: "", state: "empty" });
  });

  it("embeds an explicit ?widget= outside production only", async () => {
    expect(await demoPage(server, `?widget=${closed.widgetId}`)).toMatchObject({ widgetId: closed.widgetId });
    const page = await demoPage(production, `?widget=${closed.widgetId}`, { "X-Forwarded-Proto": "https" });
    expect(page).toMatchObject({ status: 200, widgetId: "", state: "empty" });
  });

  it("embeds the agent of a preview grant from the console, and nothing for a bad or expired one", async () => {
    const grant = await previewOf(closed);
    expect(grant.url).toMatch(/^\/\?preview=/);
    expect(Date.parse(grant.expiresAt) - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(await demoPage(server, grant.url.slice(1))).toMatchObject({
      widgetId: closed.widgetId,
      state: "preview",
    });
    expect(await demoPage(server, `${grant.url.slice(1)}x`)).toMatchObject({
      widgetId: "",
      state: "preview-expired",
    });
    const expired = signPreviewGrant(server.services.config.jwtSecret, {
      agentId: closed.id,
      widgetId: closed.widgetId,
      exp: Math.floor(Date.now() / 1000) - 1,
    });
    expect(await demoPage(server, `?preview=${expired}`)).toMatchObject({
      widgetId: "",
      state: "preview-expired",
    });
  });

  it("gives an API key no preview", async () => {
    const key = await server.request<{ key: string }>("POST", `/agents/${closed.id}/api-keys/`, {
      token,
      body: { name: "k" },
    });
    const res = await server.request("POST", `/agents/${closed.id}/preview/`, { token: key.body.key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "permission_denied" });
  });
});

describe("the widget's origin check", () => {
  it("refuses the server's own origin when the agent does not list it", async () => {
    const res = await widgetConfig(closed, { Origin: server.url });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "origin_not_allowed", details: { origin: server.url } });
    // Same-origin GETs send no Origin: the Referer's origin is checked the same way.
    expect((await widgetConfig(closed, { Referer: `${server.url}/?widget=${closed.widgetId}` })).status).toBe(
      403,
    );
  });

  it("admits the server's own origin once the agent lists it", async () => {
    const open = await createAgent(server, token, { name: "Listed", allowedOrigins: [server.url] });
    expect((await widgetConfig(open, { Origin: server.url })).status).toBe(200);
  });

  it("admits the demo page of a preview for that agent only, from this server's origin only", async () => {
    const { url } = await previewOf(closed);
    const page = `${server.url}${url}`;
    expect((await widgetConfig(closed, { Origin: server.url, Referer: page })).status).toBe(200);
    expect((await widgetConfig(closed, { Referer: page })).status).toBe(200);
    const ask = await server.request("POST", `/widget/${closed.widgetId}/query/`, {
      headers: { Origin: server.url, Referer: page },
      body: { message: "hello" },
    });
    expect(ask.status).toBe(200);
    // The grant names one agent; another page origin cannot borrow it.
    expect((await widgetConfig(other, { Origin: server.url, Referer: page })).status).toBe(403);
    const elsewhere = await widgetConfig(closed, {
      Origin: "https://evil.example",
      Referer: `https://evil.example${url}`,
    });
    expect(elsewhere.status).toBe(403);
  });
});
