/**
 * A real Caddy (Debian's package, installed by `npm test` like nginx) on a free loopback port,
 * proxying to a Lore server as docs/operations.md's Caddyfile does, at the root or under a path
 * prefix:
 *
 *   const proxy = await startCaddy(server.url);                         // proxy.url → server's /
 *   const under = await startCaddy(server.url, { prefix: "/support" }); // under.url/support/ → server's /
 *   await proxy.close();
 *
 * No admin endpoint and no automatic HTTPS (plain http:// site address); its config, data and
 * autosave in a temp directory removed on close. Lore must trust it: LORE_TRUST_PROXY=127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";
import { listening, type TestProxy } from "./nginx.ts";

export const caddyPath = process.env.LORE_CADDY ?? "/usr/bin/caddy";

/** The site block docs/operations.md gives for Caddy (root: prefix ""). */
export function caddySite(address: string, upstream: string, prefix: string): string {
  const proxy = `reverse_proxy ${new URL(upstream).host}`;
  if (prefix === "")
    return `${address} {
  ${proxy}
}`;
  return `${address} {
  handle_path ${prefix}/* {
    ${proxy} {
      header_up X-Forwarded-Prefix ${prefix}
    }
  }
}`;
}

export async function startCaddy(upstream: string, options: { prefix?: string } = {}): Promise<TestProxy> {
  if (!existsSync(caddyPath))
    throw new Error(`${caddyPath} is missing: run \`npm test\` once (it installs caddy)`);
  const dir = mkdtempSync(join(tmpdir(), "lore-caddy-"));
  const port = await freePort();
  const config = `{
  admin off
  auto_https off
}
${caddySite(`http://127.0.0.1:${port}`, upstream, options.prefix ?? "")}
`;
  writeFileSync(join(dir, "Caddyfile"), config);
  let output = "";
  const child: ChildProcess = spawn(
    caddyPath,
    ["run", "--config", join(dir, "Caddyfile"), "--adapter", "caddyfile"],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    },
  );
  child.stderr?.on("data", (chunk: Buffer) => {
    output = `${output}${chunk}`.slice(-4000);
  });
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + 15_000;
  while (!(await listening(port))) {
    if (exited || Date.now() > deadline) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`caddy did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      if (!exited) child.kill("SIGTERM");
      await gone;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
