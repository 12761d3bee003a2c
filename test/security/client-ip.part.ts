/**
 * Issue #16 item 7: behind trusted proxies the client IP is the rightmost X-Forwarded-For address
 * not added by one of them, so a client rotating the header's left part stays one client for the
 * anonymous limit. `LORE_TRUST_PROXY` takes true (one hop), a hop count, or the proxies' CIDRs.
 */

import { ConfigError, loadConfig } from "@lore/server/config.ts";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Anonymous requests (a widget that does not exist: charged, then 404) with the given X-Forwarded-For. */
async function statuses(
  s: TestServer,
  forwardedFor: (i: number) => string,
  count: number,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await s.request("GET", "/widget/wgt_doesnotexist00/config/", {
      headers: { "X-Forwarded-For": forwardedFor(i), Origin: "https://shop.example.com" },
    });
    out.push(res.status);
  }
  return out;
}

describe("client IP behind a proxy", () => {
  it("with one trusted hop, rotating the client-written part does not dodge the anonymous limit", async () => {
    server = await startTestServer({ LORE_TRUST_PROXY: "true", LORE_LIMIT_ANON_PER_HOUR: "3" });
    // What the client sent, then the address the proxy saw (appended by the proxy).
    const seen = await statuses(server, (i) => `198.51.100.${i}, 203.0.113.7`, 5);
    expect(seen).toEqual([404, 404, 404, 429, 429]);
    // Another real client has its own budget.
    expect(await statuses(server, () => "203.0.113.8", 1)).toEqual([404]);
  });

  it("with a hop count, skips exactly that many proxies", async () => {
    server = await startTestServer({ LORE_TRUST_PROXY: "2", LORE_LIMIT_ANON_PER_HOUR: "2" });
    // client-forged, real client, first proxy (the second proxy is the socket peer).
    const seen = await statuses(server, (i) => `198.51.100.${i}, 203.0.113.7, 10.0.0.5`, 3);
    expect(seen).toEqual([404, 404, 429]);
  });

  it("with proxy CIDRs, walks right to left past the trusted ones only", async () => {
    server = await startTestServer({
      LORE_TRUST_PROXY: "127.0.0.0/8, 10.0.0.0/8",
      LORE_LIMIT_ANON_PER_HOUR: "2",
    });
    const seen = await statuses(server, (i) => `198.51.100.${i}, 203.0.113.7, 10.1.2.${i}`, 3);
    expect(seen).toEqual([404, 404, 429]);
    // A forged trusted-looking entry left of an untrusted one is never reached.
    expect(await statuses(server, () => "10.9.9.9, 203.0.113.9", 2)).toEqual([404, 404]);
    expect(await statuses(server, () => "10.9.9.8, 203.0.113.9", 1)).toEqual([429]);
  });

  it("ignores X-Forwarded-For when no proxy is trusted", async () => {
    server = await startTestServer({ LORE_LIMIT_ANON_PER_HOUR: "2" });
    expect(await statuses(server, (i) => `198.51.100.${i}`, 3)).toEqual([404, 404, 429]);
  });

  it("refuses a malformed setting at start", () => {
    expect(() => loadConfig({ LORE_TRUST_PROXY: "maybe" })).toThrow(ConfigError);
    expect(() => loadConfig({ LORE_TRUST_PROXY: "10.0.0.0/33" })).toThrow(/LORE_TRUST_PROXY/);
    expect(loadConfig({ LORE_TRUST_PROXY: "yes", LORE_JWT_SECRET: "x".repeat(32) }).proxyTrust).toEqual({
      kind: "hops",
      hops: 1,
    });
  });
});
