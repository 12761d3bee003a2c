/**
 * Issue #49: a body with a malformed chunked transfer encoding (chunk size `fffffffffffffffff`) was
 * logged at error level as an "unhandled error" with a Node stack. It is a client's mistake: a 400
 * for the client and a warning in the log, without a stack.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";

let server: ServerProcess;

beforeAll(async () => {
  server = await startServerProcess();
}, 60_000);
afterAll(() => server?.close());

/** Sends raw bytes and returns what the server answers until it closes the connection. */
function raw(request: string): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.setTimeout(10_000, () => socket.destroy());
  });
}

describe("a malformed chunked body", () => {
  it("is a 400 and a warning, never an error-level stack", async () => {
    for (const path of ["/api/auth/login/", "/api/widget/wgt_doesnotexist00/query/"]) {
      const answer = await raw(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nfffffffffffffffff\r\n{"a":1}\r\n0\r\n\r\n`,
      );
      expect(answer.split("\r\n")[0]).toMatch(/^HTTP\/1\.1 400/);
    }
    await until(() => /malformed request/i.test(server.output()) || undefined, {
      what: "the warning in the server's log",
    });
    expect(server.output()).not.toMatch(/unhandled error|"level":"error"|\n\s+at /);
  }, 60_000);
});
