// Installs that explain themselves: allowed origins typed as bare hosts, the origins a widget was
// refused on (listed for the owner, allowed in one call), and when each allowed site last loaded it.
import { rmSync } from "node:fs";
import type { Agent, WidgetOrigins } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpRequest, makeTempDir, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let token: string;
const dataDir = makeTempDir();

beforeAll(async () => {
  server = await startTestServer({ LORE_DATA_DIR: dataDir });
  token = (await server.login()).access;
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function newAgent(allowedOrigins: string[] = []): Promise<Agent> {
  const res = await server.request<Agent>("POST", "/agents/", {
    token,
    body: { name: "Install", allowedOrigins },
  });
  expect(res.status).toBe(201);
  return res.body;
}

const loadConfig = (agent: Agent, origin: string | null) =>
  httpRequest(server.api, "GET", `/widget/${agent.widgetId}/config/`, {
    headers: origin === null ? {} : { Origin: origin },
  });
const origins = async (agent: Agent) => {
  const res = await server.request<WidgetOrigins>("GET", `/agents/${agent.id}/widget-origins/`, { token });
  expect(res.status).toBe(200);
  return res.body;
};

describe("allowed origins typed as a site owner types them", () => {
  it("stores the origin a bare host means: https by default, http for loopback", async () => {
    const agent = await newAgent([
      "example.com",
      "127.0.0.1:8823",
      "localhost:3000",
      "HTTPS://Shop.Example.com/",
      "https://secure.example.com:443",
      "http://plain.example.com:8080",
    ]);
    expect(agent.allowedOrigins).toEqual([
      "https://example.com",
      "http://127.0.0.1:8823",
      "http://localhost:3000",
      "https://shop.example.com",
      "https://secure.example.com",
      "http://plain.example.com:8080",
    ]);
    // The stored origin is what the browser sends: the widget loads there.
    expect((await loadConfig(agent, "http://127.0.0.1:8823")).status).toBe(200);
    expect((await loadConfig(agent, "https://secure.example.com")).status).toBe(200);
    const patched = await server.request<Agent>("PATCH", `/agents/${agent.id}/`, {
      token,
      body: { allowedOrigins: ["docs.example.org", "docs.example.org/"] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.allowedOrigins).toEqual(["https://docs.example.org"]);
  });

  it("refuses paths, other schemes and garbage with a message that says what to type", async () => {
    const agent = await newAgent();
    for (const bad of [
      "https://example.com/shop",
      "ftp://example.com",
      "not an origin",
      "example.com:99999",
      "",
    ]) {
      const res = await server.request<{ error: string; details: { fields: Record<string, string[]> } }>(
        "PATCH",
        `/agents/${agent.id}/`,
        { token, body: { allowedOrigins: ["example.com", bad] } },
      );
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toBe("validation_error");
      expect(res.body.details.fields["allowedOrigins.1"]?.join(" ")).toMatch(
        /origin like https:\/\/example\.com or a host like example\.com.*no path/,
      );
    }
  });
});

describe("refused origins", () => {
  it("lists each refused site with first and last seen and a count, and nothing about visitors", async () => {
    const agent = await newAgent(["https://shop.example.com"]);
    for (let i = 0; i < 3; i++)
      expect((await loadConfig(agent, "https://blog.example.net")).status).toBe(403);
    const question = await httpRequest(server.api, "POST", `/widget/${agent.widgetId}/query/`, {
      headers: { Origin: "https://blog.example.net" },
      body: { message: "hello" },
    });
    expect(question.status).toBe(403);
    expect((await loadConfig(agent, "http://127.0.0.1:8823")).status).toBe(403);
    // Not origins, or allowed: nothing to show.
    expect((await loadConfig(agent, "not-an-origin")).status).toBe(403);
    expect((await loadConfig(agent, null)).status).toBe(403);
    expect((await loadConfig(agent, "https://shop.example.com")).status).toBe(200);

    const { refused } = await origins(agent);
    expect(refused.map((r) => r.origin)).toEqual(["http://127.0.0.1:8823", "https://blog.example.net"]);
    const blog = refused[1];
    expect(blog?.count).toBe(4);
    expect(Object.keys(blog ?? {}).sort()).toEqual(["count", "firstSeenAt", "lastSeenAt", "origin"]);
    expect(blog && blog.firstSeenAt <= blog.lastSeenAt).toBe(true);
  });

  it("keeps the 50 most recently refused origins per agent", async () => {
    const agent = await newAgent();
    for (let i = 0; i < 60; i++) await loadConfig(agent, `https://site-${i}.example.com`);
    // The first one again: now among the most recent.
    await loadConfig(agent, "https://site-0.example.com");
    const { refused } = await origins(agent);
    expect(refused).toHaveLength(50);
    const kept = new Set(refused.map((r) => r.origin));
    expect(kept.has("https://site-0.example.com")).toBe(true);
    expect(kept.has("https://site-59.example.com")).toBe(true);
    expect(kept.has("https://site-1.example.com")).toBe(false);
    expect(refused[0]?.origin).toBe("https://site-0.example.com");
  });

  it("allows a refused origin in one call: added to allowedOrigins, gone from the list, the widget loads", async () => {
    const agent = await newAgent(["https://shop.example.com"]);
    await loadConfig(agent, "http://127.0.0.1:8823");
    await loadConfig(agent, "https://blog.example.net");
    const allowed = await server.request<Agent>("POST", `/agents/${agent.id}/widget-origins/allow/`, {
      token,
      body: { origin: "127.0.0.1:8823" },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.allowedOrigins).toEqual(["https://shop.example.com", "http://127.0.0.1:8823"]);
    // Idempotent.
    const again = await server.request<Agent>("POST", `/agents/${agent.id}/widget-origins/allow/`, {
      token,
      body: { origin: "http://127.0.0.1:8823" },
    });
    expect(again.body.allowedOrigins).toEqual(allowed.body.allowedOrigins);
    expect((await origins(agent)).refused.map((r) => r.origin)).toEqual(["https://blog.example.net"]);
    expect((await loadConfig(agent, "http://127.0.0.1:8823")).status).toBe(200);
  });

  it("refuses to allow a path or garbage, and unknown fields", async () => {
    const agent = await newAgent();
    for (const body of [
      { origin: "https://x.example.com/path" },
      { origin: "x y" },
      { origin: "x.com", extra: 1 },
    ]) {
      const res = await server.request<{ error: string }>(
        "POST",
        `/agents/${agent.id}/widget-origins/allow/`,
        {
          token,
          body,
        },
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation_error");
    }
    expect(
      (await server.request<Agent>("GET", `/agents/${agent.id}/`, { token })).body.allowedOrigins,
    ).toEqual([]);
  });

  it("dismisses a refused origin until it is refused again", async () => {
    const agent = await newAgent();
    await loadConfig(agent, "https://spam.example.org");
    const res = await server.request("POST", `/agents/${agent.id}/widget-origins/dismiss/`, {
      token,
      body: { origin: "spam.example.org" },
    });
    expect(res.status).toBe(204);
    expect((await origins(agent)).refused).toEqual([]);
    await loadConfig(agent, "https://spam.example.org");
    expect((await origins(agent)).refused.map((r) => [r.origin, r.count])).toEqual([
      ["https://spam.example.org", 1],
    ]);
  });
});

describe("last seen on each allowed site", () => {
  it("records the last widget load per allowed origin; null until the first", async () => {
    const agent = await newAgent(["https://shop.example.com", "https://docs.example.com"]);
    const before = new Date().toISOString();
    expect((await loadConfig(agent, "https://shop.example.com")).status).toBe(200);
    const { allowed } = await origins(agent);
    expect(allowed.map((a) => a.origin)).toEqual(["https://shop.example.com", "https://docs.example.com"]);
    expect(allowed[0]?.lastSeenAt && allowed[0].lastSeenAt >= before).toBe(true);
    expect(allowed[1]?.lastSeenAt).toBeNull();
  });

  it("counts loads admitted by * under *", async () => {
    const agent = await newAgent(["*"]);
    expect((await loadConfig(agent, "https://anywhere.example.com")).status).toBe(200);
    const { allowed, refused } = await origins(agent);
    expect(allowed).toEqual([{ origin: "*", lastSeenAt: expect.any(String) }]);
    expect(refused).toEqual([]);
  });
});

describe("persistence", () => {
  it("keeps refused origins and last-seen times across a restart", async () => {
    const agent = await newAgent(["https://shop.example.com"]);
    await loadConfig(agent, "https://shop.example.com");
    await loadConfig(agent, "https://other.example.com");
    await loadConfig(agent, "https://other.example.com");
    const before = await origins(agent);
    await server.close();
    server = await startTestServer({ LORE_DATA_DIR: dataDir });
    token = (await server.login()).access;
    expect(await origins(agent)).toEqual(before);
    expect(before.refused[0]?.count).toBe(2);
    expect(before.allowed[0]?.lastSeenAt).not.toBeNull();
  });

  it("forgets an agent's origins with the agent", async () => {
    const agent = await newAgent();
    await loadConfig(agent, "https://gone.example.com");
    await server.services.widgetOrigins.flush((id) => server.services.agents.byId(id));
    expect((await server.request("DELETE", `/agents/${agent.id}/`, { token })).status).toBe(204);
    expect(server.services.widgetOrigins.list({ ...agent, allowedOrigins: [] } as never).refused).toEqual([]);
  });
});
