import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A real process whose main thread one synchronous task holds (the test's own workload, whatever
// request might cause it), so this path stays covered once no request can hold the loop.
const moduleUrl = new URL("./shutdown-watchdog.ts", import.meta.url).href;
const script = `
import { startShutdownWatchdog } from ${JSON.stringify(moduleUrl)};
process.on("SIGTERM", () => { process.stderr.write("graceful\\n"); process.exit(0); });
startShutdownWatchdog({
  delayMs: 0,
  graceMs: 200,
  onForce(stalledMs) { process.stderr.write("forced " + stalledMs + "\\n"); process.exit(1); },
  onUnavailable(reason) { process.stderr.write("unavailable " + reason + "\\n"); },
});
setTimeout(() => {
  process.stderr.write("blocking\\n");
  const until = Date.now() + 60_000;
  while (Date.now() < until);
}, 300);
`;

const tsx = createRequire(import.meta.url).resolve("tsx");

describe("the shutdown watchdog", () => {
  it("ends a process whose loop one task holds within delay + grace + 3 s of SIGTERM, through onForce", async () => {
    const child = spawn(process.execPath, ["--import", tsx, "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL(".", import.meta.url)),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const blocking = new Promise<void>((resolve) => {
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        if (stderr.includes("blocking")) resolve();
      });
    });
    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await blocking;
    const signalled = Date.now();
    child.kill("SIGTERM");
    const timeout = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const code = await exit;
    clearTimeout(timeout);
    const tookMs = Date.now() - signalled;
    expect(stderr).not.toContain("unavailable");
    expect(stderr).not.toContain("graceful"); // the JS handler never ran: the loop was held
    expect(stderr).toMatch(/forced \d+/);
    expect(code).toBe(1);
    // Deadline 0 + 200 ms + 1 s + 2 s margin, then the next 100 ms check; generous for a loaded machine.
    expect(tookMs).toBeGreaterThanOrEqual(3000);
    expect(tookMs).toBeLessThan(10_000);
  }, 40_000);
});
