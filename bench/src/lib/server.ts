/**
 * The Lore server as a separate process for benchmarks: `node --import tsx server/src/cli.ts serve`
 * (as `npm start` runs it) or the built bundle `node lore.mjs serve` (as the container runs it), on a
 * free port (LORE_PORT=0) with a temp LORE_DATA_DIR, quiet logs and limits high enough that no
 * benchmark trips them. The bench process only talks HTTP to it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
export const BENCH_ADMIN_EMAIL = "bench@example.com";
export const BENCH_ADMIN_PASSWORD = "Quartz-Lantern-7-Meadow";

const benchEnv: Record<string, string> = {
  LORE_HOST: "127.0.0.1",
  LORE_PORT: "0",
  LORE_LOG_LEVEL: "warn",
  LORE_ADMIN_EMAIL: BENCH_ADMIN_EMAIL,
  LORE_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
  LORE_LIMIT_USER_PER_HOUR: "10000000",
  LORE_LIMIT_ANON_PER_HOUR: "10000000",
  LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "10000000",
  LORE_LIMIT_LOGIN_FAILURES: "10000",
  LORE_WEB_DELAY_MS: "0",
  // As `npm start` runs the server (scripts/bootstrap.mjs); GLIBC_TUNABLES in the bench's own
  // environment replaces the launcher's (empty: glibc's defaults) for a comparison.
  MALLOC_ARENA_MAX: "2",
  GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=1048576",
  LORE_MAX_JSON_BYTES: String(512 * 1024 * 1024),
  LORE_MAX_UPLOAD_BYTES: String(1024 * 1024 * 1024),
};

/**
 * How the server is run: from source through tsx (`npm start`), or the `npm run build` bundle with
 * node alone (the Dockerfile's command, no transpiling at start).
 */
export type ServerRuntime = "source" | "bundle";

let bundleDir: string | undefined;

/**
 * Builds the bundle once per bench process into bench/data/bundle (git-ignored) with
 * scripts/build.mjs, as `npm run build` does (the widget and console must be built, as `npm run
 * bench` does first). Its runtime packages resolve through a `node_modules` link to the server's
 * installed ones (`--link-modules`): the versions the build pins, without a registry install.
 */
function bundleEntry(): string {
  if (!bundleDir) {
    const dir = join(repoRoot, "bench", "data", "bundle");
    const built = spawnSync(
      process.execPath,
      [join(repoRoot, "scripts/build.mjs"), "--out", dir, "--link-modules"],
      { cwd: repoRoot, encoding: "utf8" },
    );
    if (built.status !== 0) throw new Error(`bench: the build failed:\n${built.stdout}${built.stderr}`);
    bundleDir = dir;
  }
  return join(bundleDir, "lore.mjs");
}

/** Server processes still running, killed if the bench process exits early. */
const running = new Set<ChildProcess>();
const tempDirs = new Set<string>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => process.exit(130));
}

const READY_LINE = /Lore is running at (http:\/\/\S+?)\/? /;

export interface BenchServer {
  url: string;
  /** `url` + `/api`. */
  api: string;
  dataDir: string;
  pid: number;
  env: Record<string, string>;
  output(): string;
  /** Resident set size of the server process in KiB (from /proc), or null off Linux. */
  rssKiB(): number | null;
  close(): Promise<void>;
}

/**
 * Starts `lore serve` in its own process; `env` overrides the bench defaults, `nodeArgs` go to node
 * (e.g. `--cpu-prof`, which NODE_OPTIONS refuses), then those in `LORE_BENCH_NODE_ARGS` (space-separated).
 */
export async function startBenchServer(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  startTimeoutMs = 90_000,
  runtime: ServerRuntime = "source",
): Promise<BenchServer> {
  const dataDir = env.LORE_DATA_DIR ?? mkdtempSync(join(tmpdir(), "lore-bench-"));
  const ownDir = env.LORE_DATA_DIR === undefined;
  if (ownDir) tempDirs.add(dataDir);
  const fullEnv = { ...benchEnv, LORE_DATA_DIR: dataDir, ...env };
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LORE_")));
  const args = [
    "--max-old-space-size=6144",
    // After the default: a later --max-old-space-size wins.
    ...nodeArgs,
    // e.g. LORE_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile any bench's server.
    ...(process.env.LORE_BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
    ...(runtime === "bundle" ? [bundleEntry()] : ["--import", "tsx", join(repoRoot, "server/src/cli.ts")]),
    "serve",
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...inherited, ...fullEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  const log: string[] = [];
  const exited = new Promise<void>((done) =>
    child.once("exit", () => {
      running.delete(child);
      done();
    }),
  );
  const url = await new Promise<string>((resolveUrl, rejectStart) => {
    const reject = (error: Error) => {
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
      tempDirs.delete(dataDir);
      rejectStart(error);
    };
    let stdout = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within ${startTimeoutMs / 1000} s:\n${log.join("")}`));
    }, startTimeoutMs);
    child.stderr?.setEncoding("utf8").on("data", (c: string) => {
      log.push(c);
    });
    child.stdout?.setEncoding("utf8").on("data", (c: string) => {
      log.push(c);
      stdout += c;
      const match = READY_LINE.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before starting:\n${log.join("")}`));
    });
  });
  const pid = child.pid ?? -1;
  let closed = false;
  return {
    url,
    api: `${url}/api`,
    dataDir,
    pid,
    env: fullEnv,
    output: () => log.join(""),
    rssKiB: () => readRssKiB(pid),
    async close() {
      if (closed) return;
      closed = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        // Past the server's own last resort (grace + 20 s): a stop saves the search index snapshot,
        // ~16 s at a million chunks, which the next start of a restart bench loads.
        const force = setTimeout(() => child.kill("SIGKILL"), 45_000);
        await exited;
        clearTimeout(force);
      }
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
      tempDirs.delete(dataDir);
    },
  };
}

/** VmRSS of a process in KiB, from /proc/<pid>/status. */
export function readRssKiB(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return match?.[1] ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
