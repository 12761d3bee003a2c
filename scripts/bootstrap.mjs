#!/usr/bin/env node
// The two-command entry point: installs what is missing (pnpm, the workspace, Chromium for
// browser tests), then runs the requested task. Only Node 20 and npm are assumed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM_VERSION = "10.34.8";
const [task = "start", ...rest] = process.argv.slice(2);

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function pnpm(args, options) {
  return run("npx", ["-y", `pnpm@${PNPM_VERSION}`, ...args], options);
}

function lockStamp() {
  const hash = createHash("sha256");
  for (const file of ["pnpm-lock.yaml", "pnpm-workspace.yaml"]) {
    if (existsSync(join(root, file))) hash.update(readFileSync(join(root, file)));
  }
  return hash.digest("hex");
}

function ensureInstalled() {
  const stampFile = join(root, "node_modules", ".lore-install-stamp");
  const stamp = lockStamp();
  if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) return;
  const frozen = existsSync(join(root, "pnpm-lock.yaml")) ? ["--frozen-lockfile"] : [];
  if (pnpm(["install", ...frozen, "--reporter=append-only"]) !== 0) process.exit(1);
  writeFileSync(stampFile, stamp);
}

/** Installs a Debian package (as root, or through sudo) unless `present` already holds. */
function ensureDebianPackage(name, present, purpose) {
  if (present()) return;
  console.log(`[lore] installing ${name} from Debian's packages ${purpose}`);
  const asRoot = process.getuid?.() === 0 ? [] : ["sudo"];
  const apt = (args) =>
    run(asRoot[0] ?? "apt-get", asRoot.length ? ["apt-get", ...args] : args, {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  if (apt(["update"]) !== 0 || apt(["install", "-y", "--no-install-recommends", name]) !== 0) {
    console.error(`[lore] could not install ${name}; the tests that need it will fail`);
  }
}

function ensureChromium() {
  ensureDebianPackage(
    "chromium",
    () => Boolean(process.env.LORE_CHROMIUM) || existsSync("/usr/bin/chromium"),
    "for the browser tests",
  );
}

// The shared-mode tests start their own redis-server on a loopback port (test/helpers/redis.ts).
function ensureRedis() {
  ensureDebianPackage(
    "redis-server",
    () => Boolean(process.env.LORE_REDIS_SERVER) || existsSync("/usr/bin/redis-server"),
    "for the shared-mode tests",
  );
}

// The client suite runs the clients behind Debian's nginx too, at the root and under a path prefix
// (test/helpers/nginx.ts).
function ensureNginx() {
  ensureDebianPackage(
    "nginx",
    () => Boolean(process.env.LORE_NGINX) || existsSync("/usr/sbin/nginx"),
    "for the client suite behind a proxy",
  );
}

function buildWidget() {
  if (pnpm(["--filter", "@lore/widget", "run", "build"]) !== 0) process.exit(1);
}

// The owner console (console/dist), served at /console/.
function buildConsole() {
  if (pnpm(["--filter", "@lore/console", "run", "build"]) !== 0) process.exit(1);
}

const tsx = ["node_modules/.bin/tsx"];
// glibc gives every thread that allocates its own malloc arena; LanceDB's native writer threads then
// fragment memory and the server's RSS creeps under write traffic (docs/reliability.md, "Load held").
// Two arenas keep it level; an operator's own setting wins.
// Large buffers (the search index a start loads, 1.5 GB at a million chunks) cost a page fault per
// 4 KiB page on first touch; glibc's hugetlb tunable has malloc ask for transparent huge pages
// (where the kernel offers them on request), which cut a million-chunk index load by ~20 %.
// A fixed mmap threshold of 1 MiB: glibc otherwise raises it to the largest block freed (up to
// 32 MiB), after which a start's freed load buffers stay in its heaps, not returned to the system:
// 1,360 MiB RSS at ready with a million chunks instead of 930.
const serverEnv = {
  ...process.env,
  MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
  GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=1048576",
};
ensureInstalled();
switch (task) {
  case "start":
    buildWidget();
    buildConsole();
    process.exit(run(join(root, tsx[0]), ["server/src/cli.ts", "serve", ...rest], { env: serverEnv }));
    break;
  case "build":
    buildWidget();
    buildConsole();
    process.exit(run(process.execPath, ["scripts/build.mjs", ...rest]));
    break;
  case "lore":
    process.exit(run(join(root, tsx[0]), ["server/src/cli.ts", ...rest], { env: serverEnv }));
    break;
  case "test": {
    ensureChromium();
    ensureRedis();
    ensureNginx();
    buildWidget();
    buildConsole();
    const steps = [
      ["node_modules/.bin/tsc", ["-b", "--pretty"]],
      ["node_modules/.bin/biome", ["check", "."]],
      ["node_modules/.bin/vitest", ["run", ...rest]],
    ];
    for (const [cmd, args] of steps) {
      console.log(`[lore] ${cmd.split("/").pop()} ${args.join(" ")}`);
      if (run(join(root, cmd), args) !== 0) process.exit(1);
    }
    break;
  }
  case "bench":
    buildWidget();
    buildConsole();
    process.exit(run(join(root, tsx[0]), ["bench/src/run-all.ts", ...rest]));
    break;
  case "fuzz":
    process.exit(
      run(join(root, "node_modules/.bin/vitest"), ["run", "--project", "e2e", "test/fuzz"], {
        env: {
          ...process.env,
          LORE_FUZZ_RUNS: process.env.LORE_FUZZ_RUNS ?? "2000",
          LORE_FUZZ_SEED: process.env.LORE_FUZZ_SEED ?? "random",
        },
      }),
    );
    break;
  default:
    console.error(`unknown task ${task}; use start, build, test, bench, fuzz or lore`);
    process.exit(2);
}
