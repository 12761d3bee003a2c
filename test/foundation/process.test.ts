import { rmSync } from "node:fs";
import { Store } from "@lore/server/store/store.ts";
import type { Agent, ErrorBody, LoginResponse, Page } from "@lore/shared";
import { afterEach, describe, expect, it } from "vitest";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  httpRequest,
  makeTempDir,
  runCli,
  type ServerProcess,
  startServerProcess,
  startTestServer,
} from "../helpers/server.ts";

const running: ServerProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}): Promise<ServerProcess> {
  const p = await startServerProcess(env);
  running.push(p);
  return p;
}

async function login(p: ServerProcess, email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
  return httpRequest<LoginResponse & ErrorBody>(p.api, "POST", "/auth/login/", { body: { email, password } });
}

async function countUsers(dataDir: string): Promise<number> {
  const store = await Store.open(dataDir);
  try {
    return store.users.size;
  } finally {
    await store.close();
  }
}

// Each child process loads the whole server with tsx: seconds per start on a busy 2-core machine.
const slow = { timeout: 180_000 };

describe("the server as a real process", slow, () => {
  it("serves over HTTP, holds its data dir, exits 0 on SIGTERM, and keeps data, tokens and the one admin across a restart", async () => {
    const p = await start();
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(p.pid).toBeGreaterThan(0);
    const { body: tokens, status } = await login(p);
    expect(status).toBe(200);
    const created = await httpRequest<Agent>(p.api, "POST", "/agents/", {
      token: tokens.access,
      body: { name: "Over the wire" },
    });
    expect(created.status).toBe(201);
    const list = await httpRequest<Page<Agent>>(p.api, "GET", "/agents/", { token: tokens.access });
    expect(list.body.results.map((a) => a.id)).toEqual([created.body.id]);

    // A second server on the same data dir is refused while the first runs.
    const second = await runCli(["serve"], { LORE_DATA_DIR: p.dataDir, LORE_PORT: "0" });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain("in use");

    expect(await p.stop()).toEqual({ code: 0, signal: null });
    expect(await countUsers(p.dataDir)).toBe(1);

    // First run created the admin; a different admin password on restart must not touch it.
    await p.restart({ LORE_ADMIN_PASSWORD: "another-long-password" });
    expect((await login(p, ADMIN_EMAIL, "another-long-password")).status).toBe(401);
    expect((await login(p)).status).toBe(200);
    // Tokens survive a restart: the JWT secret is kept in the data dir.
    const agent = await httpRequest<Agent>(p.api, "GET", `/agents/${created.body.id}/`, {
      token: tokens.access,
    });
    expect(agent.status).toBe(200);
    expect(agent.body.name).toBe("Over the wire");
    await p.stop();
    expect(await countUsers(p.dataDir)).toBe(1);
  });

  it("a write acknowledged before kill -9 is there after a restart", async () => {
    const p = await start();
    const { body: tokens } = await login(p);
    const created = await httpRequest<Agent>(p.api, "POST", "/agents/", {
      token: tokens.access,
      body: { name: "Durable" },
    });
    expect(created.status).toBe(201);
    p.kill("SIGKILL");
    expect(await p.waitForExit()).toEqual({ code: null, signal: "SIGKILL" });
    await p.restart();
    const agent = await httpRequest<Agent>(p.api, "GET", `/agents/${created.body.id}/`, {
      token: tokens.access,
    });
    expect(agent.status).toBe(200);
    expect(agent.body.name).toBe("Durable");
  });

  it("a bad setting stops start-up with a message naming the variable", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const port = await runCli(["serve"], { LORE_PORT: "abc", LORE_DATA_DIR: dataDir });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("LORE_PORT");
    const half = await runCli(["serve"], { LORE_ADMIN_EMAIL: "a@example.com", LORE_DATA_DIR: dataDir });
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/LORE_ADMIN_EMAIL and LORE_ADMIN_PASSWORD/);
  });
});

describe("CLI", slow, () => {
  it("users create adds a user who can log in; a duplicate or a weak password is refused", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const env = { LORE_DATA_DIR: dataDir };
    const created = await runCli(
      ["users", "create", "--email", "Ada@Example.com", "--password", "analytical-engine-1843"],
      env,
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("ada@example.com");
    const dup = await runCli(
      ["users", "create", "--email", "ada@example.com", "--password", "analytical-engine-1843"],
      env,
    );
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("conflict");
    const weak = await runCli(["users", "create", "--email", "bob@example.com", "--password", "short"], env);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain("validation_error");

    const server = await startTestServer({ LORE_DATA_DIR: dataDir });
    try {
      expect((await server.login("ada@example.com", "analytical-engine-1843")).user.email).toBe(
        "ada@example.com",
      );
      // The admin variables only seed an empty store.
      expect(server.services.users.findByEmail(ADMIN_EMAIL)).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it("users set-password changes the password and refuses every earlier token", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const first = await startTestServer({ LORE_DATA_DIR: dataDir });
    const before = await first.login();
    await first.close();

    const changed = await runCli(
      ["users", "set-password", "--email", ADMIN_EMAIL, "--password", "a-brand-new-passphrase"],
      {
        LORE_DATA_DIR: dataDir,
      },
    );
    expect(changed.code).toBe(0);

    const server = await startTestServer({ LORE_DATA_DIR: dataDir });
    try {
      const oldAccess = await server.request<ErrorBody>("GET", "/auth/me/", { token: before.access });
      expect(oldAccess.status).toBe(401);
      expect(oldAccess.body.error).toBe("invalid_token");
      const oldRefresh = await server.request<ErrorBody>("POST", "/auth/token/refresh/", {
        body: { refresh: before.refresh },
      });
      expect(oldRefresh.status).toBe(401);
      const oldPassword = await server.request<ErrorBody>("POST", "/auth/login/", {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      });
      expect(oldPassword.body.error).toBe("invalid_credentials");
      await server.login(ADMIN_EMAIL, "a-brand-new-passphrase");
    } finally {
      await server.close();
    }
  });

  it("set-password for an unknown email fails with a message", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const res = await runCli(
      ["users", "set-password", "--email", "ghost@example.com", "--password", "whatever-long-1"],
      {
        LORE_DATA_DIR: dataDir,
      },
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("not_found");
  });
});
