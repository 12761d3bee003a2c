/**
 * Chaos on the built server (`lore serve` from dist, as operators run it), with the data directory
 * on a small tmpfs the test can fill, remount read-only or take away (as root; skipped with the
 * reason printed otherwise). For each fault: the process stays up, clients get the documented 503
 * (`details.reason: storage_unavailable`, `details.state`, `Retry-After`) on JSON and SSE alike while
 * reads go on, service comes back by itself once the fault clears, with no restart and no manual
 * sync, and every acknowledged answer is still there, after a restart too. Recovery times are printed.
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { type Conversation, errorBodySchema, type Message } from "@lore/shared";
import { describe, expect, it } from "vitest";
import { disposeAfterAll } from "../helpers/dispose.ts";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  loginAsAdmin,
  makeTempDir,
  runCli,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import {
  call,
  createAgent,
  createTextSource,
  getSource,
  readyTextSource,
  search,
  streamQuery,
  waitForSettled,
} from "../ingestion/source-helpers.ts";

const cleanup = disposeAfterAll();

type StorageState = "ok" | "full" | "read-only" | "missing";

function mountTmpfs(dir: string): string | null {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", dir], { stdio: "pipe" });
    return null;
  } catch (error) {
    return `mount -t tmpfs failed (${String(error).split("\n")[0]}): run as root on a machine that allows mounts`;
  }
}

const mountPoint = makeTempDir("lore-chaos-");
const skipReason = mountTmpfs(mountPoint);
if (skipReason) console.warn(`[chaos] skipped: ${skipReason}`);
cleanup.push(() => {
  if (!skipReason) execFileSync("umount", ["-l", mountPoint], { stdio: "ignore" });
  rmSync(mountPoint, { recursive: true, force: true });
});

/** `mount -o remount,…`, tried again while the kernel says the mount is busy (a file mid-write). */
async function remount(mode: "ro" | "rw"): Promise<void> {
  await until(
    () => {
      try {
        execFileSync("mount", ["-o", `remount,${mode}`, mountPoint], { stdio: "pipe" });
        return true;
      } catch {
        return false;
      }
    },
    { timeout: 20_000, interval: 50, what: `remount ${mode}` },
  );
}

function alive(server: ServerProcess): boolean {
  try {
    process.kill(server.pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function storageState(server: ServerProcess): Promise<StorageState> {
  const res = await fetch(`${server.url}/readyz`);
  const body = (await res.json()) as { storage?: { state: StorageState } };
  return body.storage?.state ?? "ok";
}

/** A write refused for the disk: 503, the state named, Retry-After, no path or stack. */
function expectRefused(res: { status: number; body: unknown; headers: Headers }, state: StorageState): void {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  const body = errorBodySchema.parse(res.body);
  expect(body.error).toBe("service_unavailable");
  expect(body.details).toMatchObject({ reason: "storage_unavailable", state });
  expect(res.headers.get("retry-after")).toBe("30");
  expect(JSON.stringify(body)).not.toMatch(/\/tmp\/|\/usr\/|\n\s+at |\.rs:\d/);
}

/** Questions asked one after another until stopped; what was acknowledged (200) is kept to check later. */
function askContinuously(server: ServerProcess, token: string, agentId: string) {
  const acknowledged: Array<{ conversationId: string; message: string }> = [];
  const statuses = new Map<number, number>();
  let stopped = false;
  let n = 0;
  const done = (async () => {
    while (!stopped) {
      const message = `When does the fog come, question ${++n}?`;
      const res = await call<{ conversationId?: string }>(
        server,
        "POST",
        `/agents/${agentId}/query/`,
        token,
        {
          message,
        },
      ).catch(() => ({ status: 0, body: {} as { conversationId?: string } }));
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 200 && res.body.conversationId)
        acknowledged.push({ conversationId: res.body.conversationId, message });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    acknowledged,
    statuses,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** Time from `cleared` until a question is answered 200 again (polled every 100 ms). */
async function recoveryMs(server: ServerProcess, token: string, agentId: string): Promise<number> {
  const cleared = performance.now();
  await until(
    async () =>
      (
        await call(server, "POST", `/agents/${agentId}/query/`, token, {
          message: "Is the fog back?",
        })
      ).status === 200,
    { timeout: 60_000, interval: 100, what: "a question answered after the fault cleared" },
  );
  return Math.round(performance.now() - cleared);
}

async function expectAcknowledgedStored(
  server: ServerProcess,
  token: string,
  agentId: string,
  acknowledged: Array<{ conversationId: string; message: string }>,
): Promise<void> {
  for (const { conversationId, message } of acknowledged) {
    const read = await call<Conversation & { messages: Message[] }>(
      server,
      "GET",
      `/agents/${agentId}/conversations/${conversationId}/`,
      token,
    );
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.messages.map((m) => m.content)).toContain(message);
    expect(read.body.messages.some((m) => m.role === "assistant" && m.status === "complete")).toBe(true);
  }
}

describe.skipIf(skipReason !== null)(
  "chaos: the data directory's disk (built server on a 64 MB tmpfs)",
  () => {
    it("read-only remount, then the data directory taken away, under questions: 503s, reads, recovery by itself", async () => {
      const dataDir = join(mountPoint, "ro-data");
      mkdirSync(dataDir);
      const server = await startServerProcess({ LORE_DATA_DIR: dataDir });
      cleanup.push(() => server.close());
      let token = await loginAsAdmin(server);
      const source = await readyTextSource(server, token, "Bay", [
        { title: "Fog", content: "Fog rolls in over the bay most July mornings." },
      ]);
      const agent = await createAgent(server, token, { name: "Bay", dataSourceIds: [source.id] });
      const measured: Record<string, unknown> = {};

      for (const fault of ["read-only", "missing"] as const) {
        const load = askContinuously(server, token, agent.id);
        await until(() => load.acknowledged.length >= 3, {
          timeout: 30_000,
          what: "answers before the fault",
        });
        if (fault === "read-only") await remount("ro");
        else renameSync(dataDir, `${dataDir}-away`);
        const faultAt = performance.now();

        // Within a second or so the writes are refused (the next question notices), never a process exit.
        const json = await until(
          async () => {
            const res = await call(server, "POST", `/agents/${agent.id}/query/`, token, { message: "Fog?" });
            return res.status === 503 && res;
          },
          { timeout: 15_000, interval: 100, what: `a 503 after the ${fault} fault` },
        );
        const detectedMs = Math.round(performance.now() - faultAt);
        expectRefused(json, fault);
        // SSE: refused before the stream starts, with the same body.
        const sse = await streamQuery(`${server.api}/agents/${agent.id}/query/`, token, { message: "Fog?" });
        expect(sse.response.status).toBe(503);
        expectRefused(
          {
            status: sse.response.status,
            body: JSON.parse(sse.raw[0] ?? "{}"),
            headers: sse.response.headers,
          },
          fault,
        );
        expect(await storageState(server)).toBe(fault);
        // Reads from memory go on: the agent and its search.
        expect((await call(server, "GET", `/agents/${agent.id}/`, token)).status).toBe(200);
        expect((await search(server, token, agent.id, "fog bay")).results[0]?.content).toMatch(
          /Fog rolls in/,
        );
        // The background writers (journal flush every second, analytics every 2 s) ran into the fault.
        await new Promise((resolve) => setTimeout(resolve, 4000));
        expect(alive(server), server.output()).toBe(true);
        await load.stop();

        if (fault === "read-only") await remount("rw");
        else {
          // A writer may have made a new, empty directory in its place meanwhile: the real one goes back over it.
          rmSync(dataDir, { recursive: true, force: true });
          renameSync(`${dataDir}-away`, dataDir);
        }
        const recovered = await recoveryMs(server, token, agent.id);
        expect(await storageState(server)).toBe("ok");
        measured[fault] = {
          detectedMs,
          recoveredMs: recovered,
          statuses: Object.fromEntries(load.statuses),
          acknowledged: load.acknowledged.length,
        };
        await expectAcknowledgedStored(server, token, agent.id, load.acknowledged);
        // Writes of every kind work again, a sync included.
        const after = await readyTextSource(server, token, `After ${fault}`, [
          { title: `Tide ${fault}`, content: `Spring tides after the ${fault} fault reach four metres.` },
        ]);
        expect(after.status).toBe("ready");
        // After a restart, every acknowledged answer is still there, and every table opens (a write
        // in flight as the directory went committed into one made in its place: the tables re-read
        // the real one before writing again).
        await server.restart();
        token = await loginAsAdmin(server);
        await expectAcknowledgedStored(server, token, agent.id, load.acknowledged);
      }
      console.log("[chaos] read-only / missing:", JSON.stringify(measured));
      expect(alive(server)).toBe(true);
    }, 240_000);

    it("disk full mid-sync and mid-question: 503s while full, the sync finishes by itself once space is freed", async () => {
      const dataDir = join(mountPoint, "full-data");
      mkdirSync(dataDir);
      const server = await startServerProcess({ LORE_DATA_DIR: dataDir });
      cleanup.push(() => server.close());
      const token = await loginAsAdmin(server);
      const small = await readyTextSource(server, token, "Bay", [
        { title: "Fog", content: "Fog rolls in over the bay most July mornings." },
      ]);
      const agent = await createAgent(server, token, { name: "Bay", dataSourceIds: [small.id] });
      const ENTRIES = 3000;
      const big = await createTextSource(
        server,
        token,
        "Tides",
        Array.from({ length: ENTRIES }, (_, i) => ({
          title: `Entry ${i}`,
          content: `Marker qz${i}x: the tide table of pier ${i} lists high water at ${i % 24} hours. `.repeat(
            4,
          ),
        })),
      );
      const load = askContinuously(server, token, agent.id);
      await until(
        async () => {
          const s = await getSource(server, token, big.id);
          if (s.status === "ready")
            throw new Error("the sync finished before the disk filled; raise ENTRIES");
          return s.status === "syncing" && s.progress.processed >= 50;
        },
        { timeout: 60_000, interval: 20, what: "the sync under way" },
      );
      const filler = join(mountPoint, "filler");
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=1M", "count=128"], { stdio: "ignore" });
      } catch {
        // "No space left on device": the point
      }
      const json = await until(
        async () => {
          const res = await call(server, "POST", `/agents/${agent.id}/query/`, token, { message: "Fog?" });
          return res.status === 503 && res;
        },
        { timeout: 15_000, interval: 100, what: "a 503 once the disk is full" },
      );
      expectRefused(json, "full");
      const sse = await streamQuery(`${server.api}/agents/${agent.id}/query/`, token, { message: "Fog?" });
      expect(sse.response.status).toBe(503);
      // An upload is refused before its body is taken.
      const upload = await call(server, "POST", "/data-sources/", token, {
        name: "During",
        type: "text",
        config: { entries: [{ title: "t", content: "c" }] },
      });
      expectRefused(upload, "full");
      expect((await search(server, token, agent.id, "fog bay")).results[0]?.content).toMatch(/Fog rolls in/);
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(alive(server), server.output()).toBe(true);
      await load.stop();

      rmSync(filler);
      const cleared = performance.now();
      const recovered = await recoveryMs(server, token, agent.id);
      // The interrupted sync resumes by itself and indexes everything.
      const settled = await waitForSettled(server, token, big.id, 120_000);
      const syncRecoveredMs = Math.round(performance.now() - cleared);
      expect(settled.status, JSON.stringify(settled)).toBe("ready");
      expect(settled.documentCount).toBe(ENTRIES);
      expect(settled.lastError ?? "").not.toMatch(/\//);
      await expectAcknowledgedStored(server, token, agent.id, load.acknowledged);

      // Below the free-space floor (a tenth of this 64 MB disk) but not full: a bulk load waits for
      // room between batches instead of filling the disk, and goes on by itself once there is room.
      const { bavail, bsize } = statfsSync(dataDir);
      const freeMb = Math.floor((bavail * bsize) / 2 ** 20);
      const lowFiller = join(mountPoint, "filler-low");
      execFileSync("dd", ["if=/dev/zero", `of=${lowFiller}`, "bs=1M", `count=${freeMb - 5}`], {
        stdio: "ignore",
      });
      const entriesBefore = (
        await call<{ count: number }>(server, "GET", `/data-sources/${small.id}/entries/?page_size=1`, token)
      ).body.count;
      const lines = Array.from(
        { length: 100 },
        (_, i) =>
          `${JSON.stringify({ key: `low${i}`, title: `Low ${i}`, content: `Buoy ${i} is painted red.` })}\n`,
      ).join("");
      let answered = false;
      const bulk = fetch(`${server.api}/data-sources/${small.id}/entries/`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-ndjson" },
        body: lines,
      }).then(async (res) => {
        answered = true;
        return { status: res.status, body: (await res.json()) as { created?: number } };
      });
      await until(() => server.output().includes("a bulk load waits for room"), {
        timeout: 30_000,
        what: "the bulk load to wait for room",
      });
      expect(answered).toBe(false);
      expect(
        (
          await call<{ count: number }>(
            server,
            "GET",
            `/data-sources/${small.id}/entries/?page_size=1`,
            token,
          )
        ).body.count,
      ).toBe(entriesBefore);
      rmSync(lowFiller);
      const roomAt = performance.now();
      const loaded = await bulk;
      const bulkResumedMs = Math.round(performance.now() - roomAt);
      expect(loaded.status, JSON.stringify(loaded.body)).toBe(202);
      expect(loaded.body.created).toBe(100);
      expect((await waitForSettled(server, token, small.id, 120_000)).status).toBe("ready");
      console.log(
        "[chaos] disk full:",
        JSON.stringify({
          statuses: Object.fromEntries(load.statuses),
          acknowledged: load.acknowledged.length,
          questionsBackMs: recovered,
          syncReadyMs: syncRecoveredMs,
          bulkBelowFloorResumedMs: bulkResumedMs,
        }),
      );
      expect(alive(server)).toBe(true);
    }, 300_000);
  },
);

describe("chaos: kill -9 during a bulk load (built server)", () => {
  it("the stored entries get a sync at start, the source is never ready with entries pending, progress has its total", async () => {
    const server = await startServerProcess();
    cleanup.push(() => server.close());
    let token = await loginAsAdmin(server);
    const source = await readyTextSource(server, token, "Bulk", [
      { title: "Seed", content: "The first entry of the bulk source." },
    ]);
    const ENTRIES = 10_000;
    const line = (i: number) =>
      `${JSON.stringify({ key: `k${i}`, title: `Entry ${i}`, content: `Marker qz${i}x: pier ${i} opens at dawn.` })}\n`;
    // The body arrives in slices of 500 lines, a little apart, so the kill lands mid-load.
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= ENTRIES) return controller.close();
        const slice = Array.from({ length: 500 }, (_, j) => line(sent + j)).join("");
        sent += 500;
        controller.enqueue(new TextEncoder().encode(slice));
        await new Promise((resolve) => setTimeout(resolve, 150));
      },
    });
    const posted = fetch(`${server.api}/data-sources/${source.id}/entries/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-ndjson" },
      body,
      duplex: "half",
    } as RequestInit).catch((error: unknown) => error);

    const entryCount = async () =>
      (await call<{ count: number }>(server, "GET", `/data-sources/${source.id}/entries/?page_size=1`, token))
        .body.count;
    // While the load stores batches, the source does not read `ready`.
    const during = await until(
      async () => {
        const count = await entryCount();
        return count >= 3_001 && { count, status: (await getSource(server, token, source.id)).status };
      },
      { timeout: 60_000, interval: 20, what: "a few batches stored" },
    );
    expect(during.status).not.toBe("ready");
    server.kill("SIGKILL");
    await server.waitForExit();
    await posted;

    await server.restart();
    token = await loginAsAdmin(server);
    const stored = await entryCount();
    expect(stored).toBeGreaterThan(3_000);
    expect(stored).toBeLessThan(ENTRIES + 1);
    // Straight after the restart: queued or syncing (never `ready` with entries pending), a total known while syncing.
    const totals: number[] = [];
    const settled = await until(
      async () => {
        const s = await getSource(server, token, source.id);
        if (s.status === "syncing") totals.push(s.progress.total);
        if (s.status === "ready") return s;
        expect(["queued", "syncing"]).toContain(s.status);
        return null;
      },
      { timeout: 120_000, interval: 20, what: "the source to be ready after the restart" },
    );
    expect(settled.documentCount).toBe(stored);
    for (const total of totals) expect(total).toBe(stored);
    console.log(
      "[chaos] kill -9 mid bulk load:",
      JSON.stringify({ stored, syncedAfterRestart: settled.documentCount }),
    );
  }, 240_000);
});

describe("start-up faults", () => {
  it("a port in use is one clear line and exit 1, before the admin user or any table is written", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen({ host: "127.0.0.1", port: 0 }, resolve));
    cleanup.push(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    const address = holder.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const dataDir = makeTempDir();
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const result = await runCli(["serve"], {
      LORE_HOST: "127.0.0.1",
      LORE_PORT: String(port),
      LORE_DATA_DIR: dataDir,
      LORE_ADMIN_EMAIL: ADMIN_EMAIL,
      LORE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use`),
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dataDir, "lance"))).toBe(false);
  }, 60_000);
});

describe("a damaged table", () => {
  it("lore doctor reads every table to its last row and names the damaged one with the repair path", async () => {
    const server = await startServerProcess();
    cleanup.push(() => server.close());
    const token = await loginAsAdmin(server);
    await readyTextSource(
      server,
      token,
      "Docs",
      Array.from({ length: 200 }, (_, i) => ({
        title: `Entry ${i}`,
        content: `Pier ${i} opens at dawn. `.repeat(20),
      })),
    );
    await server.stop();
    const env = { LORE_DATA_DIR: server.dataDir };
    const healthy = await runCli(["doctor"], env);
    expect(healthy.code, healthy.stdout + healthy.stderr).toBe(0);
    expect(healthy.stdout).toMatch(/^ok +table retrieval_chunks: version \d+, 200 rows read$/m);
    expect(healthy.stdout).toMatch(/^ok +table users: /m);

    // Cut the table's largest data file in half, as a crashed disk or a bad copy would.
    const dataDir = join(server.dataDir, "lance", "retrieval_chunks.lance", "data");
    const [largest] = readdirSync(dataDir)
      .map((f) => join(dataDir, f))
      .sort((a, b) => statSync(b).size - statSync(a).size);
    if (!largest) throw new Error("no data file");
    truncateSync(largest, Math.floor(statSync(largest).size / 2));

    const report = await runCli(["doctor"], env);
    expect(report.code).toBe(1);
    expect(report.stdout).toMatch(/^DAMAGED table retrieval_chunks: cannot be read: .*restore a backup/m);
    expect(report.stdout).toMatch(/^ok +table users: /m);
    expect(report.stdout).toMatch(/1 part\(s\) damaged/);
  }, 120_000);
});

describe("a damaged search-index snapshot", () => {
  it("is logged at warn, the index is rebuilt from the table, and search answers as before", async () => {
    const server = await startServerProcess();
    cleanup.push(() => server.close());
    let token = await loginAsAdmin(server);
    const source = await readyTextSource(server, token, "Docs", [
      { title: "Crane", content: "The harbour crane lifts forty tonnes." },
    ]);
    const agent = await createAgent(server, token, { name: "Docs", dataSourceIds: [source.id] });
    await server.stop(); // saves the snapshot
    const snapshot = join(server.dataDir, "index", "chunks.snapshot");
    const size = statSync(snapshot).size;
    const fd = openSync(snapshot, "r+");
    writeSync(fd, Buffer.alloc(Math.min(4096, size), 0x47), 0, Math.min(4096, size), Math.floor(size / 3));
    closeSync(fd);
    await server.restart();
    const warned = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"level":"warn"') && line.includes("snapshot was damaged"));
    expect(warned, server.output().slice(-3000)).toHaveLength(1);
    expect(warned[0]).not.toMatch(/\/tmp\//);
    token = await loginAsAdmin(server);
    expect((await search(server, token, agent.id, "crane tonnes")).results[0]?.content).toMatch(
      /forty tonnes/,
    );
  }, 120_000);
});
