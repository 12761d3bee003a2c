/** Result files, the summary table and the machine/versions block every result carries. */
import { execSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { repoRoot } from "./server.ts";

export const defaultResultsDir = fileURLToPath(new URL("../../results/", import.meta.url));

/** Where results go: `LORE_BENCH_RESULTS_DIR` or `bench/results/`. */
export function resultsDir(): string {
  return process.env.LORE_BENCH_RESULTS_DIR ?? defaultResultsDir;
}

export interface MachineInfo {
  date: string;
  nproc: number;
  cpuModel: string;
  ramGiB: number;
  node: string;
  lancedb: string;
  lore: string;
  gitCommit: string;
  packages: Record<string, string>;
}

function packageVersion(dir: string, name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "?";
  } catch {
    return "not installed";
  }
}

export function machineInfo(): MachineInfo {
  const bench = join(repoRoot, "bench");
  let gitCommit = "?";
  try {
    gitCommit = execSync("git rev-parse --short HEAD", { cwd: repoRoot, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    // not a git checkout
  }
  const names = [
    "autocannon",
    "wink-bm25-text-search",
    "wink-nlp-utils",
    "@langchain/textsplitters",
    "@langchain/community",
    "@langchain/core",
    "playwright-core",
  ];
  return {
    date: new Date().toISOString(),
    nproc: cpus().length,
    cpuModel: cpus()[0]?.model ?? "?",
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    lancedb: packageVersion(join(repoRoot, "server"), "@lancedb/lancedb"),
    lore: gitCommit,
    gitCommit,
    packages: Object.fromEntries(names.map((n) => [n, packageVersion(bench, n)])),
  };
}

/** Writes `<dir>/<name>.json` with the machine block and returns the path. */
export function writeResult(name: string, result: Record<string, unknown>, dir = resultsDir()): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  writeFileSync(path, `${JSON.stringify({ benchmark: name, machine: machineInfo(), ...result }, null, 2)}\n`);
  return path;
}

export type Cell = string | number | null | undefined;

/** A Markdown table: header row, separator, rows; numbers shown as they are. */
export function markdownTable(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const show = (c: Cell) => (c === null || c === undefined ? "—" : String(c));
  const lines = [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(show).join(" | ")} |`),
  ];
  return lines.join("\n");
}

export function log(message: string): void {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}
