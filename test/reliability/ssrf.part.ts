/**
 * SSRF end to end: web sources, webhooks and model names pointing at loopback, IPv6, IPv4-mapped,
 * decimal/octal/hex forms, link-local metadata and redirects into private space are refused with
 * a clear error, and no connection ever reaches a listener on those addresses.
 * (DNS answers that change between check and connect are covered in server/src/net/outbound.test.ts
 * with an injected resolver: the fetch connects to the address it checked, so a rebinding answer
 * is never used; end to end the test cannot control DNS.)
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { errorBodySchema } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fakes/web-site.ts";
import { personalWorkspaceId, startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent, documents, readyTextSource, waitForSettled } from "../ingestion/source-helpers.ts";

interface Trap {
  port: number;
  hits: number;
  server: Server;
}

function startTrap(host: string): Promise<Trap> {
  return new Promise((resolve, reject) => {
    const trap: Trap = { port: 0, hits: 0, server: createServer() };
    trap.server.on("connection", (socket) => {
      trap.hits += 1;
      socket.destroy();
    });
    trap.server.once("error", reject);
    trap.server.listen(0, host, () => {
      trap.port = (trap.server.address() as AddressInfo).port;
      resolve(trap);
    });
  });
}

let server: TestServer;
let token: string;
let site: TestSite;
let trap4: Trap;
let trap6: Trap | null;
let workspaceId: string;

beforeAll(async () => {
  // The trap sits on 127.0.0.2: loopback, but not the allow-listed 127.0.0.1 of the test site.
  trap4 = await startTrap("127.0.0.2");
  trap6 = await startTrap("::1").catch(() => null);
  site = await startTestSite();
  server = await startTestServer({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1", LORE_LOG_LEVEL: "silent" });
  const login = await server.login();
  token = login.access;
  workspaceId = personalWorkspaceId(server.services, login.user.id);
});

afterAll(async () => {
  await server?.close();
  await site?.close();
  for (const t of [trap4, trap6]) if (t) await new Promise<void>((r) => t.server.close(() => r()));
});

function forbiddenUrls(): string[] {
  const p = trap4.port;
  const p6 = trap6?.port ?? p;
  return [
    `http://127.0.0.2:${p}/`,
    `http://[::1]:${p6}/`,
    `http://[::ffff:127.0.0.2]:${p}/`,
    `http://[::ffff:7f00:2]:${p}/`,
    `http://2130706434:${p}/`, // 127.0.0.2 as one decimal number
    `http://0177.0.0.2:${p}/`, // octal
    `http://0x7f.0.0.2:${p}/`, // hex
    `http://127.2:${p}/`, // short form
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00::1]/",
    "http://10.0.0.1/",
    "http://192.168.1.1/",
    "http://0.0.0.0/",
    `http://user:pw@127.0.0.2:${p}/`,
    // IPv4 inside IPv6: translated (threw a 500), compatible (passed as public), NAT64, 6to4, Teredo.
    `http://[::ffff:0:7f00:2]:${p}/`,
    `http://[::7f00:2]:${p}/`,
    `http://[64:ff9b::7f00:2]:${p}/`,
    `http://[2002:7f00:2::1]:${p}/`,
    `http://[2001:0:4136:e378:8000:63bf:80ff:fffd]:${p}/`,
  ];
}

describe("SSRF", () => {
  it("refuses web sources pointing at private, loopback, mapped and encoded addresses before any fetch", async () => {
    for (const url of forbiddenUrls()) {
      const res = await server.request("POST", "/data-sources/", {
        token,
        body: { name: "ssrf", type: "web", config: { url, mode: "page" } },
      });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(400);
      const body = errorBodySchema.parse(res.body);
      expect(body.error).toBe("validation_error");
      expect(JSON.stringify(body.details)).toContain("config.url");
    }
    expect(trap4.hits).toBe(0);
    expect(trap6?.hits ?? 0).toBe(0);
  });

  it("refuses webhooks to the same addresses", async () => {
    for (const url of forbiddenUrls()) {
      const res = await server.request("POST", `/workspaces/${workspaceId}/webhooks/`, {
        token,
        body: { url, events: ["agent.ready"] },
      });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(errorBodySchema.parse(res.body).error).toBe("validation_error");
    }
    expect(trap4.hits).toBe(0);
  });

  it("does not echo the DNS answer of a refused host name", async () => {
    // A server with no allowlist: localhost resolves to loopback and must be refused by name only.
    const local = await startTestServer({ LORE_LOG_LEVEL: "silent" });
    try {
      const res = await local.request("POST", "/data-sources/", {
        token: (await local.login()).access,
        body: { name: "oracle", type: "web", config: { url: "http://localhost:9/", mode: "page" } },
      });
      expect(res.status).toBe(400);
      const text = JSON.stringify(res.body);
      expect(text).toContain("localhost");
      expect(text).not.toMatch(/127\.0\.0\.1|::1|loopback/);
    } finally {
      await local.close();
    }
  });

  it("follows no redirect from an allow-listed site into private space: the document fails with the reason", async () => {
    site.setPage("/go-private", { redirectTo: `http://127.0.0.2:${trap4.port}/secret` });
    site.setPage("/go-metadata", { redirectTo: "http://169.254.169.254/latest/meta-data/" });
    site.setPage("/go-mapped", { redirectTo: `http://[::ffff:127.0.0.2]:${trap4.port}/` });
    for (const path of ["/go-private", "/go-metadata", "/go-mapped"]) {
      const res = await server.request<{ id: string }>("POST", "/data-sources/", {
        token,
        body: { name: `redirect ${path}`, type: "web", config: { url: `${site.url}${path}`, mode: "page" } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const settled = await waitForSettled(server, token, res.body.id, 30_000);
      expect(settled.status).toBe("failed");
      const docs = await documents(server, token, settled.id);
      const reason = `${settled.lastError ?? ""} ${docs.map((d) => d.error ?? "").join(" ")}`;
      expect(reason, path).toMatch(
        /refusing to connect|not allowed|private|loopback|link-local|metadata|blocked/i,
      );
    }
    expect(trap4.hits).toBe(0);
  });

  it("never lets an agent's model name steer the model connection", async () => {
    const kb = await readyTextSource(server, token, "Model", [
      { title: "Note", content: "Quiet note about herons." },
    ]);
    const created = await server.request("POST", "/agents/", {
      token,
      body: { name: "steer", dataSourceIds: [kb.id], model: `openai:http://127.0.0.2:${trap4.port}/v1` },
    });
    // Either refused as a model name or accepted as an opaque name that only the configured base URL receives.
    if (created.status === 201) {
      const agent = created.body as { id: string };
      const res = await server.request("POST", `/agents/${agent.id}/query/`, {
        token,
        body: { message: "herons" },
      });
      expect(res.status).toBe(502);
      expect(errorBodySchema.parse(res.body).error).toBe("upstream_error");
    } else {
      expect(created.status).toBe(400);
    }
    const ok = await createAgent(server, token, { name: "plain", dataSourceIds: [kb.id] });
    expect(ok.model).toBe("extractive");
    expect(trap4.hits).toBe(0);
  });
});
