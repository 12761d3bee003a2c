import { type AddressInfo, connect } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestHeader } from "./request-header.ts";

const names = ["authorization", "x-request-id", "origin", "x-forwarded-for", "accept", "x-absent"];

// Both readings of the same request, over a real socket (node-server passes Node's message as c.env.incoming).
const app = new Hono().get("/", (c) =>
  c.json(names.map((name) => [requestHeader(c, name) ?? null, c.req.header(name) ?? null])),
);
let server: ReturnType<typeof serve>;

beforeAll(async () => {
  server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

/** Raw HTTP so that duplicate and padded headers reach the server as written. */
function rawGet(headers: string): Promise<unknown> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () =>
      socket.write(`GET / HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`),
    );
    let data = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      data += chunk;
    });
    socket.on("end", () => resolve(JSON.parse(data.slice(data.indexOf("\r\n\r\n") + 4))));
    socket.on("error", reject);
  });
}

describe("requestHeader", () => {
  it("reads what c.req.header() reads: duplicates joined, whitespace trimmed, empty kept", async () => {
    const pairs = (await rawGet(
      "Authorization: Bearer a \t\r\nauthorization:  Bearer b\r\nX-Request-ID:   abc   \r\n" +
        "Origin: https://a.example\r\nX-Forwarded-For: 1.2.3.4\r\nx-forwarded-for: 5.6.7.8\r\nAccept:\r\n",
    )) as Array<[string | null, string | null]>;
    for (const [fast, fetchHeaders] of pairs) expect(fast).toBe(fetchHeaders);
    expect(pairs[0]?.[0]).toBe("Bearer a, Bearer b");
    expect(pairs[5]?.[0]).toBeNull();
  });

  it("falls back to c.req.header() without a Node request (app.request in tests)", async () => {
    const res = await app.request("/", { headers: { Origin: "https://b.example" } });
    const pairs = (await res.json()) as Array<[string | null, string | null]>;
    expect(pairs[2]).toEqual(["https://b.example", "https://b.example"]);
  });
});
