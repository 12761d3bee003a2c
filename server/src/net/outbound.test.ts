import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertPublicUrl, blockedRange, createGuardedFetch, OutboundError } from "./outbound.ts";

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

let hits: string[] = [];
let port = 0;
let port2 = 0;
let decoyHits = 0;
const server = createServer((req, res) => {
  hits.push(req.url ?? "");
  const url = new URL(req.url ?? "/", "http://x");
  switch (url.pathname) {
    case "/ok":
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(`<p>hello ${req.headers["user-agent"]}</p>`);
      return;
    case "/redirect":
      res.writeHead(302, { location: url.searchParams.get("to") ?? "/ok" });
      res.end();
      return;
    case "/loop":
      res.writeHead(301, { location: "/loop" });
      res.end();
      return;
    case "/big":
      res.setHeader("content-type", "text/plain");
      // No content-length: the cap must hold while streaming.
      for (let i = 0; i < 100; i++) res.write("x".repeat(10_000));
      res.end();
      return;
    case "/bomb":
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(gzipSync(Buffer.alloc(5_000_000, 0x61)));
      return;
    case "/gzip":
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(gzipSync("compressed hello"));
      return;
    case "/slow":
      return; // never answers
    case "/missing":
      res.writeHead(404);
      res.end("nope");
      return;
  }
});
// A second loopback address the allowlist does not name; it must never be connected to.
const decoy = createServer((_req, res) => {
  decoyHits++;
  res.end("reached");
});

beforeAll(async () => {
  port = await listen(server, "127.0.0.1");
  port2 = await listen(decoy, "127.0.0.2");
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  decoy.close();
});

describe("blockedRange", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["224.0.0.1", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fd00::1", "uniqueLocal"],
    ["fe80::1", "linkLocal"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:a9fe:a9fe", "linkLocal"],
    ["64:ff9b::a00:1", "private"],
    ["2002:c0a8:0101::1", "private"],
    ["::ffff:0:7f00:1", "loopback"], // RFC 6145 translated: threw before
    ["::7f00:1", "loopback"], // IPv4-compatible: was "public"
    ["::a9fe:a9fe", "linkLocal"],
    ["64:ff9b:1::a00:1", "private"], // local-use NAT64
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"], // Teredo, client 127.0.0.1 inverted
    ["2001:0:0a00:0001:8000:63bf:3fff:fdd2", "private"], // Teredo, server 10.0.0.1
    ["not-an-ip", "invalid"],
  ])("refuses %s (%s)", (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "::808:808",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
  ])("allows public %s", (address) => {
    expect(blockedRange(address)).toBeNull();
  });
});

describe("assertPublicUrl", () => {
  it.each([
    "http://127.0.0.1/",
    "http://2130706433/", // decimal
    "http://0x7f000001/", // hex
    "http://017700000001/", // octal
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd12:3456::1]/",
    "http://0.0.0.0/",
    "http://localhost/",
  ])("refuses %s", async (url) => {
    const err = await assertPublicUrl(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).code).toBe("blocked_address");
  });

  it("refuses other schemes and embedded credentials", async () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://example.com/",
      "gopher://x/",
      "http://user:pw@example.com/",
      "not a url",
    ]) {
      const err = await assertPublicUrl(url).catch((e: unknown) => e);
      expect((err as OutboundError).code, url).toBe("invalid_url");
    }
  });

  it("refuses a name that resolves to any private address", async () => {
    const resolve = async () => [
      { address: "93.184.216.34", family: 4 as const },
      { address: "10.0.0.5", family: 4 as const },
    ];
    await expect(assertPublicUrl("https://mixed.test/", [], resolve)).rejects.toMatchObject({
      code: "blocked_address",
    });
    await expect(assertPublicUrl("https://mixed.test/", ["10.0.0.0/8"], resolve)).resolves.toBeInstanceOf(
      URL,
    );
  });

  it("lets the allowlist name hosts, wildcard hosts, IPs and CIDRs", async () => {
    await expect(assertPublicUrl("http://localhost:8080/", ["localhost"])).resolves.toBeInstanceOf(URL);
    await expect(assertPublicUrl("http://127.0.0.1/", ["127.0.0.0/8"])).resolves.toBeInstanceOf(URL);
    await expect(assertPublicUrl("http://[::1]/", ["::1"])).resolves.toBeInstanceOf(URL);
    const resolve = async () => [{ address: "10.9.9.9", family: 4 as const }];
    await expect(assertPublicUrl("http://wiki.corp.test/", ["*.corp.test"], resolve)).resolves.toBeInstanceOf(
      URL,
    );
    await expect(assertPublicUrl("http://corp.test.evil/", ["*.corp.test"], resolve)).rejects.toMatchObject({
      code: "blocked_address",
    });
  });
});

describe("createGuardedFetch", () => {
  const fetchLocal = createGuardedFetch({
    allowlist: ["127.0.0.1"],
    maxBytes: 100_000,
    timeoutMs: 1500,
    maxRedirects: 3,
    userAgent: "LoreBot/test",
  });

  it("fetches from an allow-listed loopback host with its user agent", async () => {
    const res = await fetchLocal(`http://127.0.0.1:${port}/ok`);
    expect(res).toMatchObject({ status: 200, contentType: "text/html", url: `http://127.0.0.1:${port}/ok` });
    expect(new TextDecoder().decode(res.body)).toBe("<p>hello LoreBot/test</p>");
  });

  it("refuses loopback before connecting when nothing is allow-listed", async () => {
    hits = [];
    const guarded = createGuardedFetch();
    for (const url of [
      `http://127.0.0.1:${port}/ok`,
      `http://localhost:${port}/ok`,
      `http://2130706433:${port}/ok`,
    ]) {
      await expect(guarded(url)).rejects.toMatchObject({ code: "blocked_address" });
    }
    expect(hits).toEqual([]);
  });

  it("checks every redirect hop and never connects to a non-allowed address", async () => {
    decoyHits = 0;
    for (const to of [
      `http://127.0.0.2:${port2}/`,
      `http://0x7f000002:${port2}/`,
      `http://[::1]:${port}/ok`,
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
    ]) {
      const err = await fetchLocal(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(to)}`).catch(
        (e: unknown) => e,
      );
      expect((err as OutboundError).code, to).toBe("blocked_address");
    }
    expect(decoyHits).toBe(0);
  });

  it("follows allowed redirects and reports the final URL", async () => {
    const res = await fetchLocal(`http://127.0.0.1:${port}/redirect?to=/ok`);
    expect(res.url).toBe(`http://127.0.0.1:${port}/ok`);
    expect(res.status).toBe(200);
  });

  it("pins the connection to the address it checked (no second DNS answer is used)", async () => {
    let calls = 0;
    // A rebinding DNS server: the checked answer is allowed, later answers would point elsewhere.
    const resolve = async () =>
      calls++ === 0
        ? [{ address: "127.0.0.1", family: 4 as const }]
        : [{ address: "10.0.0.1", family: 4 as const }];
    const guarded = createGuardedFetch({ allowlist: ["127.0.0.1"], resolve, timeoutMs: 1500 });
    const res = await guarded(`http://rebind.test:${port}/ok`);
    expect(res.status).toBe(200);
    expect(calls).toBe(1);
  });

  it("stops too many redirects, oversized bodies, decompression bombs and silent servers", async () => {
    await expect(fetchLocal(`http://127.0.0.1:${port}/loop`)).rejects.toMatchObject({
      code: "too_many_redirects",
    });
    await expect(fetchLocal(`http://127.0.0.1:${port}/big`)).rejects.toMatchObject({ code: "too_large" });
    await expect(fetchLocal(`http://127.0.0.1:${port}/bomb`)).rejects.toMatchObject({ code: "too_large" });
    const quick = createGuardedFetch({ allowlist: ["127.0.0.1"], timeoutMs: 300 });
    await expect(quick(`http://127.0.0.1:${port}/slow`)).rejects.toMatchObject({ code: "timeout" });
  });

  it("decodes gzip and reports statuses, throwing bad_status only when asked", async () => {
    expect(new TextDecoder().decode((await fetchLocal(`http://127.0.0.1:${port}/gzip`)).body)).toBe(
      "compressed hello",
    );
    expect((await fetchLocal(`http://127.0.0.1:${port}/missing`)).status).toBe(404);
    await expect(fetchLocal(`http://127.0.0.1:${port}/missing`, { requireOk: true })).rejects.toMatchObject({
      code: "bad_status",
      status: 404,
    });
  });
});
