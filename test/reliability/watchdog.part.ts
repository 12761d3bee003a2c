/**
 * Issue #34 item 3, the watchdog, on the built server as a real process: a request that holds the
 * event loop past the budget is logged as one line with its route pattern, method and size, and
 * `/healthz` reports the stall after it; SIGTERM ends the process within the shutdown's deadline
 * even while one question holds the loop (the probe's 10,000-letter word kept it for 10 minutes).
 */

import { afterEach, describe, expect, it } from "vitest";
import { settled } from "../helpers/fleet.ts";
import { httpRequest, loginAsAdmin, type ServerProcess, startServerProcess } from "../helpers/server.ts";
import { createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

let server: ServerProcess | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The JSON log lines of the process with this `msg`. */
function logLines(s: ServerProcess, msg: string): Record<string, unknown>[] {
  return s
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

interface Health {
  status: string;
  eventLoop: {
    delayP99Ms: number;
    lastStall: { route: string; method: string; ms: number; at: string } | null;
  };
}

describe("the event-loop watchdog", { timeout: 120_000 }, () => {
  it("logs a request that held the loop past the budget with its route pattern, and /healthz reports it", async () => {
    server = await startServerProcess({ LORE_WATCHDOG_BUDGET_MS: "50" });
    const token = await loginAsAdmin(server);
    const agent = await createAgent(server, token, { name: "Plain" });
    // The start-up work after listening (tokenizer, word vectors, WordNet's index) may hold the loop
    // too, with no request running: the stall /healthz reports last must be the request's.
    await settled(server.url);
    const before = await httpRequest<Health>(server.url, "GET", "/healthz");
    expect(before.status).toBe(200);
    expect(before.body.eventLoop.delayP99Ms).toEqual(expect.any(Number));

    // 11.6 MB of JSON (under the 12 MiB cap) in arrays of 19,999 numbers (under the shape check's
    // 20,000 members, issue #49): parsing and checking it is one long synchronous task.
    const inner = `[${"0,".repeat(19_998)}0]`;
    const body = `[${Array.from({ length: 290 }, () => inner).join(",")}]`;
    const started = new Date().toISOString();
    const res = await httpRequest(server.api, "PATCH", `/agents/${agent.id}/?secret=hunter2`, {
      token,
      body,
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);

    const after = await httpRequest<Health>(server.url, "GET", "/healthz");
    expect(after.status).toBe(200);
    const stall = after.body.eventLoop.lastStall;
    expect(stall).toMatchObject({ route: "/api/agents/:agentId/", method: "PATCH" });
    expect(stall?.ms).toBeGreaterThanOrEqual(50);
    expect(stall && stall.at >= started).toBe(true);

    const lines = logLines(server, "event loop blocked").filter((l) => l.route === "/api/agents/:agentId/");
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toMatchObject({
      level: "warn",
      budgetMs: 50,
      method: "PATCH",
      requestBytes: Buffer.byteLength(body),
      requestId: expect.any(String),
    });
    expect(lines[0]?.ms).toBeGreaterThanOrEqual(50);
    // The pattern, never the raw URL with its ids and query.
    expect(server.output()).not.toContain("hunter2");
    expect(JSON.stringify(lines)).not.toContain(agent.id);
  });

  it("ends the process within the shutdown deadline on SIGTERM while a question holds the loop", async () => {
    server = await startServerProcess({ LORE_SHUTDOWN_DELAY_MS: "0", LORE_SHUTDOWN_GRACE_MS: "1000" });
    const token = await loginAsAdmin(server);
    const source = await readyTextSource(server, token, "Policies", [
      { title: "Returns", content: "Returns are accepted within thirty days of delivery." },
    ]);
    const agent = await createAgent(server, token, { dataSourceIds: [source.id] });
    // The probe's question: one word of the allowed 10,000 characters.
    const word = Array.from({ length: 10_000 }, (_, i) => "abcdefghijklmnopqrstuvwxyz"[(i * 7) % 26]).join(
      "",
    );
    const question = httpRequest(server.api, "POST", `/agents/${agent.id}/query/`, {
      token,
      body: { message: word },
    }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const signalled = Date.now();
    server.kill("SIGTERM");
    const exit = await Promise.race([
      server.waitForExit(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000)),
    ]);
    const tookMs = Date.now() - signalled;
    if (!exit) server.kill("SIGKILL");
    // delay 0 + grace 1 s + the streams' last second + 2 s margin + detection, well under 15 s.
    expect(exit, `no exit ${tookMs} ms after SIGTERM`).not.toBeNull();
    expect(tookMs).toBeLessThan(10_000);
    if (exit?.code === 1) {
      // Forced: one line says so, the logs written before it are flushed.
      expect(logLines(server, "shutdown forced: the event loop is blocked")).toHaveLength(1);
    } else expect(exit).toEqual({ code: 0, signal: null });
    await question;
  });
});
