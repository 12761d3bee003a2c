/**
 * A real nginx (Debian's package, installed by `npm test` like Chromium and Redis) on a free
 * loopback port, proxying to a Lore server as docs/operations.md's snippets do, at the root or
 * under a path prefix:
 *
 *   const proxy = await startNginx(server.url);                       // proxy.url → server's /
 *   const under = await startNginx(server.url, { prefix: "/support" }); // under.url/support/ → server's /
 *   await proxy.restart();                                            // cuts open connections
 *   await proxy.close();
 *
 * One process in the foreground (`master_process off`), its config, logs and temp files in a
 * temp directory removed on close. Lore must trust it: LORE_TRUST_PROXY=127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

export const nginxPath = process.env.LORE_NGINX ?? "/usr/sbin/nginx";

/** A proxy in front of a test server (nginx here, Caddy in caddy.ts). */
export interface TestProxy {
  /** `http://127.0.0.1:PORT`, no trailing slash (the prefix is not part of it). */
  url: string;
  close(): Promise<void>;
}

export interface TestNginx extends TestProxy {
  /** Stops nginx (fast shutdown: open connections are cut, as on a crash or a hard restart) and starts it again. */
  restart(): Promise<void>;
}

/** The `location` block docs/operations.md gives for nginx (root: prefix ""). */
export function nginxLocation(upstream: string, prefix: string): string {
  return `
    location ${prefix}/ {
      proxy_pass ${upstream}/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-Prefix "${prefix}";
      proxy_buffering off;
      proxy_read_timeout 1h;
      client_max_body_size 50m;
    }`;
}

export async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export async function startNginx(upstream: string, options: { prefix?: string } = {}): Promise<TestNginx> {
  if (!existsSync(nginxPath))
    throw new Error(`${nginxPath} is missing: run \`npm test\` once (it installs nginx)`);
  const prefix = options.prefix ?? "";
  const dir = mkdtempSync(join(tmpdir(), "lore-nginx-"));
  const port = await freePort();
  const config = `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    ${nginxLocation(upstream, prefix)}
  }
}
`;
  writeFileSync(join(dir, "nginx.conf"), config);
  let running = await spawnNginx(dir, port);
  return {
    url: `http://127.0.0.1:${port}`,
    async restart() {
      await running.stop();
      running = await spawnNginx(dir, port);
    },
    async close() {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** nginx on `port` with the config in `dir`, once it listens; `stop` is its fast shutdown (SIGTERM). */
async function spawnNginx(dir: string, port: number): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn(
    nginxPath,
    ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", `${dir}/error.log`],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (exited || Date.now() > deadline) {
      const log = existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log"), "utf8") : "";
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    async stop() {
      if (!exited) child.kill("SIGTERM");
      await gone;
    },
  };
}
