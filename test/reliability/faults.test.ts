/**
 * Faults: kill -9 during a streamed answer and during a sync, a full and a read-only data
 * directory, and an upstream model that is slow or failing. Nothing stored is lost or half-written,
 * errors are clear, and the server recovers without manual repair.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Store } from "@lore/server/store/store.ts";
import {
  type Conversation,
  errorBodySchema,
  type Message,
  type Page,
  type SourceDocument,
} from "@lore/shared";
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { disposeAfterAll } from "../helpers/dispose.ts";
import {
  loginAsAdmin,
  makeTempDir,
  startServerProcess,
  startTestServer,
  type TestServer,
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

type ConversationDetail = Conversation & { messages: Message[] };

describe("kill -9", () => {
  it("during a streamed answer: the user message survives, the conversation reads, the server answers again", async () => {
    const fake = await startFakeOpenAI({
      tokenDelayMs: 150,
      answer:
        "The harbour crane lifts forty tonnes according to the notes [1] and it was installed in the spring of 1990 by the port authority.",
    });
    cleanup.push(() => fake.close());
    const server = await startServerProcess({
      LORE_CHAT_MODEL: "openai:fake-chat",
      LORE_OPENAI_BASE_URL: fake.url,
    });
    cleanup.push(() => server.close());
    let token = await loginAsAdmin(server);
    const source = await readyTextSource(server, token, "Port", [
      { title: "Crane", content: "The harbour crane lifts forty tonnes. It was installed in 1990." },
    ]);
    const agent = await createAgent(server, token, { name: "Port", dataSourceIds: [source.id] });

    let conversationId = "";
    let tokens = 0;
    const streamed = streamQuery(
      `${server.api}/agents/${agent.id}/query/`,
      token,
      { message: "How much does the crane lift?" },
      {
        onEvent: (e) => {
          if (e.event.type === "start") conversationId = e.event.conversationId;
          if (e.event.type === "token") tokens += 1;
          if (tokens === 3) server.kill("SIGKILL");
          return false;
        },
      },
    ).catch((error: unknown) => error);
    const exit = await server.waitForExit();
    expect(exit.signal).toBe("SIGKILL");
    await streamed; // the stream breaks off; what matters is what was stored
    expect(conversationId).not.toBe("");

    await server.restart();
    token = await loginAsAdmin(server);
    const read = await call<ConversationDetail>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/${conversationId}/`,
      token,
    );
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const user = read.body.messages.find((m) => m.role === "user");
    expect(user?.content).toBe("How much does the crane lift?");
    for (const m of read.body.messages) expect(["complete", "stopped", "failed"]).toContain(m.status);

    // The conversation continues and a fresh question is answered in full.
    fake.setBehaviour({ tokenDelayMs: 0 });
    const again = await call<{ response: string; conversationId: string }>(
      server,
      "POST",
      `/agents/${agent.id}/query/`,
      token,
      { message: "And when was it installed?", conversationId },
    );
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.response).toMatch(/crane/i);
    const reread = await call<ConversationDetail>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/${conversationId}/`,
      token,
    );
    expect(reread.body.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "How much does the crane lift?",
      "And when was it installed?",
    ]);
  }, 120_000);

  it("during a sync: after restart the sync completes and every document's chunks are stored exactly once", async () => {
    const server = await startServerProcess();
    cleanup.push(() => server.close());
    let token = await loginAsAdmin(server);
    // Enough documents for many batches (sync-source.ts indexes up to 64 per commit).
    const ENTRIES = 2_000;
    const entries = Array.from({ length: ENTRIES }, (_, i) => ({
      title: `Entry ${i}`,
      content: `Marker qz${i}x belongs to entry number ${i}. It records the tide table of pier ${i}.`,
    }));
    const created = await createTextSource(server, token, "Many entries", entries);
    const agent = await createAgent(server, token, { name: "Tides", dataSourceIds: [created.id] });

    // Kill once the sync is well under way but not finished.
    await until(
      async () => {
        const s = await getSource(server, token, created.id);
        if (s.status === "ready")
          throw new Error("the sync finished before it could be interrupted; raise ENTRIES");
        return s.status === "syncing" && s.progress.processed >= 100;
      },
      { timeout: 60_000, interval: 10, what: "the sync to be well under way" },
    );
    server.kill("SIGKILL");
    await server.waitForExit();

    await server.restart();
    token = await loginAsAdmin(server);
    const settled = await waitForSettled(server, token, created.id, 120_000);
    expect(settled.status).toBe("ready");
    expect(settled.documentCount).toBe(ENTRIES);
    expect(settled.chunkCount).toBe(ENTRIES);

    // Through the API: each marker finds its own entry, once.
    for (let i = 0; i < ENTRIES; i += 67) {
      const { results } = await search(server, token, agent.id, `qz${i}x`);
      const own = results.filter((r) => r.content.includes(`qz${i}x`));
      expect(own.map((r) => r.title)).toEqual([`Entry ${i}`]);
    }
    const docs: SourceDocument[] = [];
    for (let page = 1; page <= Math.ceil(ENTRIES / 100); page++) {
      const res = await call<Page<SourceDocument>>(
        server,
        "GET",
        `/data-sources/${created.id}/documents/?page=${page}&page_size=100`,
        token,
      );
      docs.push(...res.body.results);
    }
    expect(docs.filter((d) => d.status === "indexed")).toHaveLength(ENTRIES);

    // In the store itself: every stored chunk belongs to a live document, and no document has two copies.
    await server.stop();
    const store = await Store.open(server.dataDir);
    try {
      const rows = await (await store.db.openTable("retrieval_chunks"))
        .query()
        .select(["documentId", "ordinal"])
        .toArray();
      const live = new Set(store.documents.filter((d) => d.dataSourceId === created.id).map((d) => d.id));
      const perDoc = new Map<string, number>();
      for (const row of rows)
        perDoc.set(String(row.documentId), (perDoc.get(String(row.documentId)) ?? 0) + 1);
      const orphans = [...perDoc.keys()].filter((id) => !live.has(id));
      expect(orphans, "chunks whose document record does not exist").toEqual([]);
      for (const [id, n] of perDoc) expect(n, `chunks of document ${id}`).toBe(1);
      expect(rows).toHaveLength(ENTRIES);
    } finally {
      await store.close();
    }
  }, 180_000);
});

// A tmpfs the test can fill and remount read-only (root ignores file modes, not a read-only mount).
function tryMount(dir: string): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=48m", "tmpfs", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("storage faults", () => {
  const mountPoint = makeTempDir("lore-tmpfs-");
  const mounted = tryMount(mountPoint);
  cleanup.push(() => {
    if (mounted) execFileSync("umount", ["-l", mountPoint], { stdio: "ignore" });
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it.runIf(mounted)(
    "full and read-only data directory: writes get a clear 503, reads keep working, the server recovers by itself",
    async () => {
      const dataDir = join(mountPoint, "data");
      mkdirSync(dataDir);
      const server: TestServer = await startTestServer({ LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: "silent" });
      cleanup.push(() => server.close());
      const token = (await server.login()).access;
      const source = await readyTextSource(server, token, "Before", [
        { title: "Weather", content: "Fog rolls in over the bay most July mornings." },
      ]);
      const agent = await createAgent(server, token, { name: "Weather", dataSourceIds: [source.id] });

      const expectStorageError = (res: { status: number; body: unknown }) => {
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        const body = errorBodySchema.parse(res.body);
        expect(body.error).toBe("service_unavailable");
        expect(body.message).toMatch(/storage|disk|written/i);
        expect(JSON.stringify(body)).not.toMatch(/\n\s+at |\.rs:|\.ts:\d+/);
      };
      const reads = async () => {
        expect((await server.request("GET", "/agents/", { token })).status).toBe(200);
        expect((await server.request("GET", `/data-sources/${source.id}/`, { token })).status).toBe(200);
        const { results } = await search(server, token, agent.id, "fog bay");
        expect(results[0]?.content).toMatch(/Fog rolls in/);
      };

      for (const fault of ["full", "read-only"] as const) {
        if (fault === "full") {
          // Fill what is left of the 48 MB with one file; writes then fail with ENOSPC.
          try {
            execFileSync("dd", ["if=/dev/zero", `of=${join(mountPoint, "filler")}`, "bs=1M", "count=64"], {
              stdio: "ignore",
            });
          } catch {
            // dd stops at "No space left on device": exactly the point
          }
        } else {
          execFileSync("mount", ["-o", "remount,ro", mountPoint]);
        }
        expectStorageError(
          await server.request("POST", "/agents/", { token, body: { name: `During ${fault}` } }),
        );
        expectStorageError(
          await server.request("PATCH", `/agents/${agent.id}/`, { token, body: { name: "Renamed" } }),
        );
        const createdDuring = await server.request("POST", "/data-sources/", {
          token,
          body: { name: "During", type: "text", config: { entries: [{ title: "t", content: "c" }] } },
        });
        expectStorageError(createdDuring);
        await reads();
        // A failed write changed nothing a reader sees.
        expect(
          (await server.request<{ name: string }>("GET", `/agents/${agent.id}/`, { token })).body.name,
        ).toBe("Weather");

        // Remove the fault: no restart, no repair.
        if (fault === "full") rmSync(join(mountPoint, "filler"));
        else execFileSync("mount", ["-o", "remount,rw", mountPoint]);
        const renamed = await server.request<{ name: string }>("PATCH", `/agents/${agent.id}/`, {
          token,
          body: { name: "Weather" },
        });
        expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
        const after = await readyTextSource(server, token, `After ${fault}`, [
          {
            title: `Tide ${fault}`,
            content: `Spring tides after the ${fault} disk fault reach four metres.`,
          },
        ]);
        expect(after.status).toBe("ready");
        await reads();
      }
      // Every table still opens after a restart.
      await server.close();
      const reopened = await startTestServer({ LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: "silent" });
      cleanup.push(() => reopened.close());
      const t2 = (await reopened.login()).access;
      const list = await reopened.request<Page<{ name: string }>>("GET", "/data-sources/", { token: t2 });
      expect(list.body.results.map((s) => s.name).sort()).toEqual([
        "After full",
        "After read-only",
        "Before",
      ]);
    },
    120_000,
  );
});

describe("upstream model", () => {
  it("failing: JSON gets 502 upstream_error and SSE an error event; slow: the same within the timeout", async () => {
    const fake = await startFakeOpenAI({ failTimes: 1000, failStatus: 500 });
    cleanup.push(() => fake.close());
    const server = await startTestServer({
      LORE_CHAT_MODEL: "openai:fake-chat",
      LORE_OPENAI_BASE_URL: fake.url,
      LORE_OPENAI_TIMEOUT_MS: "1500",
      LORE_LOG_LEVEL: "silent",
    });
    cleanup.push(() => server.close());
    const token = (await server.login()).access;
    const source = await readyTextSource(server, token, "Upstream", [
      { title: "Bridge", content: "The bridge opens for ships every hour on the hour." },
    ]);
    const agent = await createAgent(server, token, { name: "Upstream", dataSourceIds: [source.id] });
    const url = `${server.api}/agents/${agent.id}/query/`;

    for (const behaviour of ["failing", "hanging", "slow tokens"] as const) {
      if (behaviour === "hanging") fake.setBehaviour({ failTimes: 0, hang: true });
      if (behaviour === "slow tokens")
        fake.setBehaviour({ hang: false, tokenDelayMs: 600, firstTokenDelayMs: 5_000 });
      const started = performance.now();
      const json = await server.request("POST", `/agents/${agent.id}/query/`, {
        token,
        body: { message: "When does the bridge open?" },
      });
      const elapsed = performance.now() - started;
      expect(json.status, `${behaviour}: ${JSON.stringify(json.body)}`).toBe(502);
      expect(errorBodySchema.parse(json.body).error).toBe("upstream_error");
      expect(elapsed, behaviour).toBeLessThan(12_000);

      const sse = await streamQuery(url, token, { message: "When does the bridge open?" });
      const types = sse.events.map((e) => e.event.type);
      expect(types[0], behaviour).toBe("start");
      const last = sse.events.at(-1)?.event;
      expect(last?.type, behaviour).toBe("error");
      if (last?.type === "error") {
        expect(last.error).toBe("upstream_error");
        expect(last.message).not.toMatch(/\n\s+at /);
      }
    }
    // The server is fine once the model is.
    fake.setBehaviour({ hang: false, tokenDelayMs: 0, firstTokenDelayMs: 0, failTimes: 0 });
    const ok = await server.request("POST", `/agents/${agent.id}/query/`, {
      token,
      body: { message: "When does the bridge open?" },
    });
    expect(ok.status).toBe(200);
    writeFileSync(join(server.dataDir, "probe"), "ok"); // the data dir is still writable: nothing was left locked
  }, 120_000);
});
