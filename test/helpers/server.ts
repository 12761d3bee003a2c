/**
 * End-to-end test harness: a real Lore server on 127.0.0.1, driven with real `fetch`.
 *
 *   const server = await startTestServer({ LORE_LIMIT_USER_PER_HOUR: "20" }); // in-process
 *   const { access } = await server.login();                 // the admin (ADMIN_EMAIL / ADMIN_PASSWORD)
 *   const res = await server.request("POST", "/agents/", { token: access, body: { name: "Docs" } });
 *   expect(res.status).toBe(201); res.body  // parsed JSON (or text), res.headers  // a Headers
 *   await server.close();                    // stops the server and deletes its temp data dir
 *
 * - `startTestServer(env)` runs `startServer(loadConfig(...))` in this process on a free port
 *   (LORE_PORT=0), with a fresh temp LORE_DATA_DIR, silent logs, very high rate limits and a known
 *   admin; `env` overrides any of them. `services` gives direct access (store, users, tokens…).
 * - `request(method, path)`: `path` is relative to the API prefix (`/agents/`), or a full URL
 *   (`${server.url}/healthz`). Objects are sent as JSON; strings/bytes/FormData as they are.
 *   Redirects are not followed, so a 308 can be asserted. Every JSON response is checked against
 *   the contract (the route's declared schema for that status, or the error body) and throws if not.
 * - `startServerProcess(env)` runs `lore serve` as a real child process (for kill -9, restarts,
 *   signals; the pid is the server's own); `runCli(args, env)` runs one CLI command to completion
 *   (`users create`, …). Both run the server built from this tree at the start of the run
 *   (test/global-setup.ts, as `npm run build` builds it) and inherit no LORE_* variable from the
 *   shell, only the harness's and `env`. `loginAsAdmin(target)` gives the admin's access token on
 *   any of them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "@lore/server/config.ts";
import { startServer } from "@lore/server/main.ts";
import type { Services } from "@lore/server/services.ts";
import type { UserRecord } from "@lore/server/store/records.ts";
import type { LoginResponse, Role } from "@lore/shared";
import { inject } from "vitest";
import { contractProblems, routeOf } from "./contract.ts";

export const ADMIN_EMAIL = "admin@example.com";
export const ADMIN_PASSWORD = "correct-horse-battery";
/** Satisfies the password policy for any test email. */
export const DEFAULT_PASSWORD = "Tr0ub4dor-and-3";

export const repoRoot = resolve(fileURLToPath(new URL("../..", import.meta.url)));

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response says JSON, the text otherwise ("" for no body). */
  body: T;
}

export interface TestServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** `url` + the API prefix, no trailing slash. */
  api: string;
  dataDir: string;
  services: Services;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** Logs in over HTTP (the admin by default); throws unless 200. */
  login(email?: string, password?: string): Promise<LoginResponse>;
  /** Creates a user (and their personal workspace) through the service, not HTTP. */
  createUser(email: string, password?: string): Promise<UserRecord>;
  /** Adds a user to a workspace with a role, through the store. */
  addMember(workspaceId: string, userId: string, role: Role): Promise<void>;
  close(): Promise<void>;
}

/** High limits so tests never trip them by accident; override per test. */
const baseEnv: Record<string, string> = {
  LORE_HOST: "127.0.0.1",
  LORE_PORT: "0",
  LORE_LOG_LEVEL: "silent",
  LORE_ADMIN_EMAIL: ADMIN_EMAIL,
  LORE_ADMIN_PASSWORD: ADMIN_PASSWORD,
  LORE_LIMIT_USER_PER_HOUR: "1000000",
  LORE_LIMIT_ANON_PER_HOUR: "1000000",
  LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "1000000",
  LORE_LIMIT_LOGIN_FAILURES: "1000",
  LORE_WEB_DELAY_MS: "0",
};

export function makeTempDir(prefix = "lore-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Sends one request with real fetch; objects become JSON bodies. */
export async function httpRequest<T = unknown>(
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<TestResponse<T>> {
  const url = /^https?:\/\//.test(path) ? path : `${base}${path}`;
  const headers: Record<string, string> = {};
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined;
  const raw = options.body;
  if (raw === undefined || raw === null) body = undefined;
  else if (
    typeof raw === "string" ||
    raw instanceof Uint8Array ||
    raw instanceof FormData ||
    raw instanceof Blob
  ) {
    body = raw as BodyInit;
  } else {
    body = JSON.stringify(raw);
    headers["Content-Type"] = "application/json";
  }
  const send = () =>
    fetch(url, { method, headers: { ...headers, ...options.headers }, body, redirect: "manual" });
  let res: Response;
  try {
    res = await send();
  } catch (error) {
    // A keep-alive connection the server closed as the request went out (undici's "other side
    // closed", a transport race on a loaded machine): a GET is sent again once, as browsers do.
    const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
    if (cause?.code !== "UND_ERR_SOCKET" || (method !== "GET" && method !== "HEAD")) throw error;
    res = await send();
  }
  const text = await res.text();
  const isJson = /\bjson\b/i.test(res.headers.get("content-type") ?? "");
  return { status: res.status, headers: res.headers, body: (isJson && text ? JSON.parse(text) : text) as T };
}

/** Every JSON body the test server sends must match the contract: the route's declared schema, or the error body. */
function checkContract(prefix: string, api: string, method: string, path: string, res: TestResponse): void {
  if (res.status < 200 || (res.status >= 300 && res.status < 400)) return;
  if (!/\bjson\b/i.test(res.headers.get("content-type") ?? "") || res.body === "") return;
  const { pathname } = new URL(/^https?:\/\//.test(path) ? path : `${api}${path}`);
  const inApi = pathname.startsWith(`${prefix}/`);
  const route = routeOf(method, inApi ? pathname.slice(prefix.length) : pathname, !inApi);
  const problems = contractProblems(route, res.status, res.body);
  if (problems.length > 0) {
    throw new Error(
      `${method} ${pathname} → ${res.status} breaks the contract:\n  ${problems.join("\n  ")}\n${JSON.stringify(res.body).slice(0, 2000)}`,
    );
  }
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const ownDir = env.LORE_DATA_DIR === undefined;
  const dataDir = env.LORE_DATA_DIR ?? makeTempDir();
  const config = loadConfig({ ...baseEnv, LORE_DATA_DIR: dataDir, ...env });
  const running = await startServer(config);
  const api = `${running.url}${config.apiPrefix}`;
  const services = running.services;
  let closed = false;

  const server: TestServer = {
    url: running.url,
    api,
    dataDir,
    services,
    request: async <T = unknown>(method: string, path: string, options?: RequestOptions) => {
      const res = await httpRequest<T>(api, method, path, options);
      checkContract(config.apiPrefix, api, method, path, res);
      return res;
    },
    async login(
      email = config.admin?.email ?? ADMIN_EMAIL,
      password = config.admin?.password ?? ADMIN_PASSWORD,
    ) {
      const res = await httpRequest<LoginResponse>(api, "POST", "/auth/login/", {
        body: { email, password },
      });
      if (res.status !== 200)
        throw new Error(`login as ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    createUser: (email, password = DEFAULT_PASSWORD) => services.users.createUser({ email, password }),
    async addMember(workspaceId, userId, role) {
      await services.store.memberships.put({
        id: crypto.randomUUID(),
        workspaceId,
        userId,
        role,
        createdAt: new Date().toISOString(),
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await running.close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** The admin's access token on a running server (in-process, a child process or a replica); throws with the answer otherwise. */
export async function loginAsAdmin(target: { api: string }): Promise<string> {
  const res = await httpRequest<LoginResponse>(target.api, "POST", "/auth/login/", {
    body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  });
  if (res.status !== 200) throw new Error(`login failed ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access;
}

/** The personal workspace a new user owns. */
export function personalWorkspaceId(services: Services, userId: string): string {
  const found = services.access.workspacesOf(userId).find((w) => w.workspace.personal && w.role === "owner");
  if (!found) throw new Error(`user ${userId} has no personal workspace`);
  return found.workspace.id;
}

// ---------------------------------------------------------------------------------------------
// The server as a real child process.

const READY_LINE = /Lore is running at (http:\/\/\S+?)\/? /;

/** The child's environment: this process's, minus any LORE_* of the developer's shell. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LORE_")));
  return { ...inherited, ...env };
}

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  url: string;
  api: string;
  dataDir: string;
  pid: number;
  /** Everything the process wrote so far (stdout and stderr interleaved). */
  output(): string;
  kill(signal?: NodeJS.Signals): void;
  waitForExit(): Promise<ExitResult>;
  /** Stops the process (SIGTERM, then SIGKILL after 10 s) without deleting the data dir. */
  stop(): Promise<ExitResult>;
  /** Stops the process if it runs, then starts a new one on the same data dir and env; url/pid change. */
  restart(extraEnv?: Record<string, string>): Promise<void>;
  /** Stops the process and deletes the temp data dir (if the harness made it). */
  close(): Promise<void>;
}

interface Spawned {
  child: ChildProcess;
  url: string;
  exit: Promise<ExitResult>;
}

/** What to run instead of the source tree's CLI (e.g. a built `lore.mjs`), and where. */
export interface ServerCommand {
  args: string[];
  cwd: string;
}

/**
 * The server built from this tree once per run (test/global-setup.ts), run with node alone. The
 * pid is the server's own, so a SIGKILL reaches it (a `tsx` binary would run it in a grandchild).
 */
function builtCommand(): ServerCommand {
  return { args: [join(inject("serverBuild"), "lore.mjs")], cwd: repoRoot };
}

function spawnServer(
  env: Record<string, string>,
  log: string[],
  command: ServerCommand = builtCommand(),
): Promise<Spawned> {
  const child = spawn(process.execPath, [...command.args, "serve"], {
    cwd: command.cwd,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exit = new Promise<ExitResult>((resolveExit) =>
    child.once("exit", (code, signal) => resolveExit({ code, signal })),
  );
  return new Promise<Spawned>((resolveStart, reject) => {
    let stdout = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server process did not start within 90 s:\n${log.join("")}`));
    }, 90_000);
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => log.push(chunk));
    child.stdout?.on("data", (chunk: string) => {
      log.push(chunk);
      stdout += chunk;
      const match = READY_LINE.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        stdout = "";
        resolveStart({ child, url: match[1], exit });
      }
    });
    void exit.then((result) => {
      clearTimeout(timer);
      reject(
        new Error(
          `server process exited (${result.code ?? result.signal}) before starting:\n${log.join("")}`,
        ),
      );
    });
  });
}

/** Starts `lore serve` as a child process on a free port; resolves once it prints its URL. */
export async function startServerProcess(
  env: Record<string, string> = {},
  command: ServerCommand = builtCommand(),
): Promise<ServerProcess> {
  const ownDir = env.LORE_DATA_DIR === undefined;
  const dataDir = env.LORE_DATA_DIR ?? makeTempDir();
  let fullEnv: Record<string, string> = {
    ...baseEnv,
    LORE_LOG_LEVEL: "warn",
    LORE_DATA_DIR: dataDir,
    ...env,
  };
  const prefix = fullEnv.LORE_API_PREFIX ?? "/api";
  const log: string[] = [];
  let current: Spawned;
  try {
    current = await spawnServer(fullEnv, log, command);
  } catch (error) {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  let running = true;
  void current.exit.then(() => {
    running = false;
  });

  const handle: ServerProcess = {
    url: current.url,
    api: `${current.url}${prefix}`,
    dataDir,
    pid: current.child.pid ?? -1,
    output: () => log.join(""),
    kill(signal = "SIGTERM") {
      current.child.kill(signal);
    },
    waitForExit: () => current.exit,
    async stop() {
      if (!running) return current.exit;
      current.child.kill("SIGTERM");
      const force = setTimeout(() => current.child.kill("SIGKILL"), 10_000);
      const result = await current.exit;
      clearTimeout(force);
      return result;
    },
    async restart(extraEnv = {}) {
      await handle.stop();
      fullEnv = { ...fullEnv, ...extraEnv };
      current = await spawnServer(fullEnv, log, command);
      running = true;
      void current.exit.then(() => {
        running = false;
      });
      handle.url = current.url;
      handle.api = `${current.url}${prefix}`;
      handle.pid = current.child.pid ?? -1;
    },
    async close() {
      await handle.stop();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one `lore` CLI command to completion (e.g. `["users", "create", "--email", …]`). */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 90_000): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const command = builtCommand();
    const child = spawn(process.execPath, [...command.args, ...args], {
      cwd: command.cwd,
      env: childEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`lore ${args.join(" ")} did not finish within ${timeoutMs} ms:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}
