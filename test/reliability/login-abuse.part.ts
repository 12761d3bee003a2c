/**
 * Login abuse: failed logins are throttled per (account, IP) pair and per client IP with a clear 429 and
 * Retry-After; the password policy names every rule a new password breaks.
 */

import { AppError } from "@lore/server/errors.ts";
import { errorBodySchema } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
const LIMIT = 3;

beforeAll(async () => {
  server = await startTestServer({ LORE_LIMIT_LOGIN_FAILURES: String(LIMIT), LORE_LOG_LEVEL: "silent" });
  for (const name of ["victim", "other"]) await server.createUser(`${name}@example.com`);
});

afterAll(async () => {
  await server?.close();
});

const login = (email: string, password: string, ip?: string) =>
  server.request("POST", "/auth/login/", {
    body: { email, password },
    headers: ip ? { "X-Forwarded-For": ip } : {},
  });

function expect429(res: { status: number; headers: Headers; body: unknown }, limit: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  const body = errorBodySchema.parse(res.body);
  expect(body.error).toBe("rate_limited");
  expect(body.details.limit).toBe(limit);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(15 * 60);
  expect(body.details.retryAfter).toBe(retryAfter);
}

describe("login abuse", () => {
  it("locks the failing IP out of an account, even for the right password, and leaves others alone", async () => {
    for (let i = 0; i < LIMIT; i++) {
      const res = await login("victim@example.com", `wrong-password-${i}`);
      expect(res.status).toBe(401);
      expect(errorBodySchema.parse(res.body).error).toBe("invalid_credentials");
    }
    expect429(await login("victim@example.com", "wrong-again"), "login_failures_per_account_ip");
    expect429(await login("victim@example.com", DEFAULT_PASSWORD), "login_failures_per_account_ip");
    // Case and spaces do not make a new account key.
    expect429(await login("  VICTIM@example.com ", DEFAULT_PASSWORD), "login_failures_per_account_ip");
    expect((await login("other@example.com", DEFAULT_PASSWORD)).status).toBe(200);
  });

  it("throttles one IP spraying many accounts", async () => {
    // Per-IP allows 5× the per-account limit; each account stays under its own limit.
    const server2 = await startTestServer({
      LORE_LIMIT_LOGIN_FAILURES: String(LIMIT),
      LORE_TRUST_PROXY: "true",
      LORE_LOG_LEVEL: "silent",
    });
    try {
      for (let i = 0; i < 16; i++) await server2.createUser(`spray${i}@example.com`);
      const ip = "203.0.113.7";
      let failures = 0;
      for (let i = 0; failures < LIMIT * 5; i++) {
        const res = await server2.request("POST", "/auth/login/", {
          body: { email: `spray${i % 16}@example.com`, password: "nope-nope-nope" },
          headers: { "X-Forwarded-For": ip },
        });
        expect(res.status).toBe(401);
        failures += 1;
      }
      const blocked = await server2.request("POST", "/auth/login/", {
        body: { email: "spray15@example.com", password: DEFAULT_PASSWORD },
        headers: { "X-Forwarded-For": ip },
      });
      expect429(blocked, "login_failures_per_ip");
      // Another client is unaffected.
      const other = await server2.request("POST", "/auth/login/", {
        body: { email: "spray15@example.com", password: DEFAULT_PASSWORD },
        headers: { "X-Forwarded-For": "198.51.100.9" },
      });
      expect(other.status).toBe(200);
    } finally {
      await server2.close();
    }
  });

  it("names every rule a new password breaks", async () => {
    const attempt = async (password: string) => {
      try {
        await server.services.users.createUser({ email: "policy@example.com", password });
        return null;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return error;
      }
    };
    const short = await attempt("aaa");
    expect(short?.code).toBe("validation_error");
    const messages = JSON.stringify(short?.details);
    expect(messages).toMatch(/at least 10 characters/);
    expect(messages).toMatch(/4 different characters/);
    expect(JSON.stringify((await attempt("password1234"))?.details)).toMatch(/too common/);
    expect(JSON.stringify((await attempt("policy-is-my-name-99"))?.details)).toMatch(/email name/);
    expect(await attempt("Tr0ub4dor-and-3-valid")).toBeNull();
  });
});
