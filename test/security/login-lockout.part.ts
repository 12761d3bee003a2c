/**
 * Lockout is no weapon (issue #16, item 9): failed logins lock the (account, IP) pair that sent
 * them; the account itself is only slowed down (each further failure doubles the wait), so its
 * owner logs in from a clean IP with the right password. Clients are real distinct loopback
 * addresses (127.0.0.x), so no proxy header is involved.
 */

import { request } from "node:http";
import type { ErrorBody } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";

const LIMIT = 3;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ LORE_LIMIT_LOGIN_FAILURES: String(LIMIT) });
  await server.createUser("victim@example.com");
});
afterAll(() => server?.close());

interface Attempt {
  status: number;
  body: ErrorBody;
  ms: number;
}

/** POST /auth/login/ from a given loopback source address. */
function loginFrom(ip: string, password: string, email = "victim@example.com"): Promise<Attempt> {
  const started = performance.now();
  const payload = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.api}/auth/login/`,
      {
        method: "POST",
        localAddress: ip,
        agent: false,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), ms: performance.now() - started }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe("failed logins", () => {
  it("lock the attacking IP out of the account, but not the owner on a clean IP", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await loginFrom("127.0.0.2", `wrong-${i}`)).status).toBe(401);
    // The attacker's IP is refused now, even with the right password.
    const locked = await loginFrom("127.0.0.2", DEFAULT_PASSWORD);
    expect({ status: locked.status, limit: locked.body.details.limit }).toEqual({
      status: 429,
      limit: "login_failures_per_account_ip",
    });
    // The owner, elsewhere, gets in (after the account's short slow-down).
    const owner = await loginFrom("127.0.0.3", DEFAULT_PASSWORD);
    expect(owner.status).toBe(200);
    expect(owner.ms).toBeGreaterThanOrEqual(240);
  });

  it("slow the account down exponentially as failures come from more IPs, never refusing it", async () => {
    const waits: number[] = [];
    for (const ip of ["127.0.0.4", "127.0.0.5", "127.0.0.6"]) {
      const res = await loginFrom(ip, "still-wrong");
      expect(res.status).toBe(401);
      waits.push(res.ms);
    }
    // 3 failures before (one more each time): 250 ms, 500 ms, 1 s.
    expect(waits[0]).toBeGreaterThanOrEqual(240);
    expect(waits[1]).toBeGreaterThanOrEqual(490);
    expect(waits[2]).toBeGreaterThanOrEqual(990);
    const owner = await loginFrom("127.0.0.7", DEFAULT_PASSWORD);
    expect(owner.status).toBe(200);
    expect(owner.ms).toBeGreaterThanOrEqual(1990);
    expect(owner.ms).toBeLessThan(10_000 + 2_000);
  });

  it("leave other accounts alone", async () => {
    await server.createUser("bystander@example.com");
    const res = await loginFrom("127.0.0.2", DEFAULT_PASSWORD, "bystander@example.com");
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(240 + 1_000);
  });
});
