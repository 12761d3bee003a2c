/**
 * Shared mode as a deployment runs it: three `lore serve` processes on one storage location and one
 * Redis, behind a round-robin proxy (test/helpers/fleet.ts). Each replica keeps its own in-memory
 * copies (resource tables, the lexical index, cached conversations); these tests check that they
 * behave as one server.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Agent, Conversation, DataSource, Message, QueryResponse, SyncRun } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, startFleet } from "../helpers/fleet.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEFAULT_PASSWORD, makeTempDir, runCli } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import { createFileSource, waitForSettled } from "../ingestion/source-helpers.ts";

let fleet: Fleet;
let token = "";

beforeAll(async () => {
  fleet = await startFleet(3, {
    LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "60",
    LORE_OUTBOUND_ALLOWLIST: "127.0.0.1",
    // The start-up lines say how each replica's search index came to be.
    LORE_LOG_LEVEL: "info",
    LORE_REFRESH_ROTATION: "true",
    LORE_REFRESH_REUSE_GRACE: "0",
  });
  const login = await fleet.direct<{ access: string }>(0, "POST", "/auth/login/", {
    body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  });
  token = login.body.access;
}, 180_000);

afterAll(async () => {
  await fleet?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function settledSource(replica: number, id: string): Promise<DataSource> {
  return waitForSettled({ api: fleet.replicas[replica]?.api ?? "" }, token, id);
}

async function textSource(replica: number, name: string, content: string): Promise<DataSource> {
  const created = await fleet.direct<DataSource>(replica, "POST", "/data-sources/", {
    token,
    body: { name, type: "text", config: { entries: [{ title: name, content }] } },
  });
  expect(created.status).toBe(201);
  return settledSource(replica, created.body.id);
}

async function agentWith(replica: number, dataSourceIds: string[]): Promise<Agent> {
  const res = await fleet.direct<Agent>(replica, "POST", "/agents/", {
    token,
    body: { name: "Fleet agent", dataSourceIds },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe("three replicas on one storage location", { timeout: 180_000 }, () => {
  it("shows an agent created on one replica on the others within a second", async () => {
    const agent = await agentWith(0, []);
    const started = Date.now();
    for (const replica of [1, 2]) {
      let status = 0;
      while (status !== 200 && Date.now() - started < 1_000) {
        status = (await fleet.direct(replica, "GET", `/agents/${agent.id}/`, { token })).status;
      }
      expect(status).toBe(200);
    }
    expect(Date.now() - started).toBeLessThanOrEqual(1_000);
    // And a change: renamed on the third, read on the first.
    expect(
      (await fleet.direct(2, "PATCH", `/agents/${agent.id}/`, { token, body: { name: "Renamed" } })).status,
    ).toBe(200);
    expect((await fleet.direct<Agent>(0, "GET", `/agents/${agent.id}/`, { token })).body.name).toBe(
      "Renamed",
    );
    // Two replicas changing different fields of it at the same moment: neither change is lost.
    for (let round = 0; round < 5; round++) {
      const [named, instructed] = await Promise.all([
        fleet.direct(0, "PATCH", `/agents/${agent.id}/`, { token, body: { name: `Name ${round}` } }),
        fleet.direct(1, "PATCH", `/agents/${agent.id}/`, { token, body: { instructions: `Rule ${round}` } }),
      ]);
      expect([named.status, instructed.status]).toEqual([200, 200]);
      const merged = (await fleet.direct<Agent>(2, "GET", `/agents/${agent.id}/`, { token })).body;
      expect([merged.name, merged.instructions]).toEqual([`Name ${round}`, `Rule ${round}`]);
    }
  });

  it("never cites a source another replica deleted once the delete has returned", async () => {
    const kept = await textSource(0, "Kept", "The lighthouse keeper logs the tide twice a day.");
    const doomed = await textSource(1, "Doomed", "The lighthouse lamp burns whale oil from the north shed.");
    const agent = await agentWith(2, [kept.id, doomed.id]);
    const ask = (replica: number) =>
      fleet.direct<QueryResponse>(replica, "POST", `/agents/${agent.id}/query/`, {
        token,
        body: { message: "What does the lighthouse lamp burn?" },
      });
    // Every replica cites it before the delete (its chunks reached every in-memory index).
    for (const replica of [0, 1, 2]) {
      const before = await ask(replica);
      expect(before.status).toBe(200);
      expect(before.body.sources.map((s) => s.dataSourceId)).toContain(doomed.id);
    }
    expect((await fleet.direct(1, "DELETE", `/data-sources/${doomed.id}/`, { token })).status).toBe(204);
    // At once, on the replicas that did not delete it.
    for (const replica of [0, 2, 0, 2]) {
      const after = await ask(replica);
      expect(after.status).toBe(200);
      expect(after.body.sources.map((s) => s.dataSourceId)).not.toContain(doomed.id);
    }
  });

  it("keeps uploaded files in the shared storage: whichever replica syncs reads them, and re-syncs too", async () => {
    const created = await createFileSource({ api: fleet.replicas[0]?.api ?? "" }, token, "Manual", [
      {
        name: "manual.md",
        bytes: "# Boiler\n\nThe boiler pressure must stay below two bar.",
        type: "text/markdown",
      },
    ]);
    expect(created.status).toBe(201);
    expect((await settledSource(1, created.body.id)).status).toBe("ready");
    // Every replica asked to sync it again: the run (on any of them) reads the same stored file.
    for (const replica of [1, 2]) {
      const run = await fleet.direct<SyncRun>(replica, "POST", `/data-sources/${created.body.id}/sync/`, {
        token,
      });
      expect(run.status).toBe(202);
      const settled = await settledSource(replica, created.body.id);
      expect(settled.status).toBe("ready");
      expect(settled.lastError).toBeNull();
    }
    const agent = await agentWith(2, [created.body.id]);
    const answer = await fleet.direct<QueryResponse>(1, "POST", `/agents/${agent.id}/query/`, {
      token,
      body: { message: "What must the boiler pressure stay below?" },
    });
    expect(answer.body.sources.map((x) => x.dataSourceId)).toContain(created.body.id);
  });

  it("holds the per-agent query limit for the fleet: 60 a minute in total", async () => {
    const source = await textSource(0, "Limits", "The ferry leaves the harbour every hour on the hour.");
    const agent = await agentWith(0, [source.id]);
    const statuses: number[] = [];
    for (let i = 0; i < 66; i++) {
      const res = await fleet.request("POST", `/agents/${agent.id}/query/`, {
        token,
        body: { message: "When does the ferry leave?" },
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.slice(60)).toEqual([429, 429, 429, 429, 429, 429]);
    // Analytics count the fleet's answers on every replica, whichever answered.
    const counted: number[] = [];
    for (const replica of [0, 1, 2]) {
      let queries = -1;
      for (let i = 0; i < 20 && queries !== 60; i++) {
        const report = await fleet.direct<{ totals: { queries: number } }>(
          replica,
          "GET",
          `/analytics/agents/${agent.id}/`,
          { token },
        );
        queries = report.body.totals.queries;
        if (queries !== 60) await sleep(100);
      }
      counted.push(queries);
    }
    expect(counted).toEqual([60, 60, 60]);
  });

  it("runs a sync once across the fleet, however many replicas are asked", async () => {
    const site = await countingSite();
    try {
      const created = await fleet.direct<DataSource>(0, "POST", "/data-sources/", {
        token,
        body: { name: "Site", type: "web", config: { url: `${site.url}/page`, mode: "page" } },
      });
      expect(created.status).toBe(201);
      await settledSource(1, created.body.id);
      expect(site.fetches()).toBe(1);
      // All three asked at the same moment while the page is slow: one run, one fetch.
      const runs = await Promise.all(
        [0, 1, 2].map((replica) =>
          fleet.direct<SyncRun>(replica, "POST", `/data-sources/${created.body.id}/sync/`, { token }),
        ),
      );
      expect(new Set(runs.map((r) => r.body.id)).size).toBe(1);
      await sleep(300);
      await settledSource(2, created.body.id);
      expect(site.fetches()).toBe(2);
    } finally {
      await site.close();
    }
  });

  it("keeps serving when a replica is killed (kill -9), and loses no stored message", async () => {
    const agents = await loadAgents("Harbour");
    const load = steadyLoad(agents);
    await sleep(1_000);
    const victim = fleet.replicas[1];
    if (!victim) throw new Error("no replica");
    victim.kill("SIGKILL");
    const killedAt = Date.now();
    await sleep(4_000);
    // Enough answers to judge (4 s is ~25 of them on a quiet machine, fewer on a busy one).
    await until(() => load.sofar().filter((r) => r.startedAt > killedAt + 200).length > 12, {
      timeout: 30_000,
      what: "13 answers to questions asked after the kill",
    });
    const results = await load.stop();
    // Requests started after the kill (the proxy's health check needs ~100 ms to notice) all succeed.
    const afterKill = results.filter((r) => r.startedAt > killedAt + 200);
    expect(afterKill.length).toBeGreaterThan(12);
    expect(afterKill.filter((r) => r.status !== 200)).toEqual([]);
    // Indexed while it is down: back, it loads its older snapshot, reconciles it with the chunk
    // table instead of rebuilding, and cites the new source.
    const late = await textSource(0, "Late", "The night ferry to the island leaves at eleven.");
    const lateAgent = await agentWith(0, [late.id]);
    // What a kill between a commit and its notice leaves: a row in the storage that the serving
    // replicas never heard of (here a user, written by the CLI without the fleet's Redis).
    const { LORE_REDIS_URL: _redis, ...unannounced } = fleet.env;
    const cliDir = makeTempDir();
    const email = "unannounced@example.com";
    const cli = await runCli(["users", "create", "--email", email, "--password", DEFAULT_PASSWORD], {
      ...unannounced,
      LORE_DATA_DIR: cliDir,
    });
    rmSync(cliDir, { recursive: true, force: true });
    expect(cli.code, cli.stderr).toBe(0);
    const login = (replica: number) =>
      fleet.direct(replica, "POST", "/auth/login/", { body: { email, password: DEFAULT_PASSWORD } });
    expect((await login(0)).status).toBe(401);
    const reloadsBefore = [0, 2].map(uncleanStartReloads);
    await victim.restart();
    expect(victim.output()).toContain("saved at an earlier table version; reconciled with the table");
    const answer = await fleet.direct<QueryResponse>(1, "POST", `/agents/${lateAgent.id}/query/`, {
      token,
      body: { message: "When does the night ferry leave?" },
    });
    expect(answer.body.sources.map((x) => x.dataSourceId)).toContain(late.id);
    // Started, it has the others re-read the storage: the unannounced user logs in everywhere.
    for (const replica of [1, 0, 2]) {
      await until(async () => (await login(replica)).status === 200, {
        timeout: 10_000,
        // Slowly: each refusal counts as a failed login.
        interval: 500,
        what: `replica ${replica} to know the user committed without a notice`,
      });
    }
    // Killed, it could not say it left nothing unannounced: each other replica reloaded, and says so.
    expect(victim.output()).toContain("the last stop was not clean");
    expect([0, 2].map(uncleanStartReloads)).toEqual(reloadsBefore.map((n) => n + 1));
    // Every answer any replica acknowledged is stored.
    await expectStored(results.filter((r) => r.status === 200));
  });

  it("replays the journal of a replica that died and never came back", async () => {
    const agents = await loadAgents("Journal");
    const agentId = agents[0] ?? "";
    const agent = (await fleet.direct<Agent>(0, "GET", `/agents/${agentId}/`, { token })).body;
    const asked = await fleet.request<QueryResponse>("POST", `/agents/${agentId}/query/`, {
      token,
      body: { message: "What does the crane lift?" },
    });
    expect(asked.status).toBe(200);
    // What a replica killed between journaling an answer and moving it to LanceDB leaves behind: a
    // journal under the shared storage, named by a replica id that no longer announces itself.
    const deadReplica = randomUUID();
    const dir = join(fleet.storage, "journals", deadReplica, "conversations");
    mkdirSync(dir, { recursive: true });
    const message = {
      id: randomUUID(),
      conversationId: asked.body.conversationId,
      agentId,
      workspaceId: agent.workspaceId,
      role: "assistant",
      content: "Acknowledged by a replica that died.",
      sources: [],
      createdAt: new Date().toISOString(),
      feedback: null,
      feedbackComment: null,
    };
    // With the conversation as it stood after the question (revision 2), older than what was stored
    // since (the answer): the replay must not set it back, and counts the message it adds.
    const before = await fleet.direct<Conversation>(
      0,
      "GET",
      `/agents/${agentId}/conversations/${asked.body.conversationId}/`,
      { token },
    );
    expect(before.body.messageCount).toBe(2);
    const conversation = {
      id: before.body.id,
      agentId,
      workspaceId: agent.workspaceId,
      title: before.body.title,
      messageCount: 1,
      channel: before.body.channel,
      visitorId: null,
      createdAt: before.body.createdAt,
      updatedAt: before.body.createdAt,
      revision: 2,
    };
    writeFileSync(join(dir, "current.jsonl"), `${JSON.stringify({ conversation, message, seq: 99 })}\n`);
    let stored = false;
    for (let i = 0; i < 100 && !stored; i++) {
      await sleep(200);
      const transcript = await fleet.request<Conversation & { messages: Message[] }>(
        "GET",
        `/agents/${agentId}/conversations/${asked.body.conversationId}/`,
        { token },
      );
      stored = transcript.body.messages.some((m) => m.id === message.id && m.content === message.content);
    }
    expect(stored).toBe(true);
    // Every replica shows it, the one that replayed it too (it had read the conversation before).
    for (const replica of [0, 1, 2]) {
      const transcript = await fleet.direct<Conversation & { messages: Message[] }>(
        replica,
        "GET",
        `/agents/${agentId}/conversations/${asked.body.conversationId}/`,
        { token },
      );
      expect(transcript.body.messages.map((m) => m.id)).toContain(message.id);
      expect(transcript.body.messages.at(-1)?.id).toBe(message.id);
      expect(transcript.body.messageCount).toBe(3);
    }
    // Replayed once, then gone from the storage.
    expect(readdirSync(dir).filter((f) => f.endsWith(".jsonl"))).toEqual([]);
  });

  it("restarts every replica in turn under steady load with no failed request", async () => {
    const agents = await loadAgents("Rolling");
    const load = steadyLoad(agents);
    await sleep(500);
    const reloadsBefore = [0, 1, 2].map(uncleanStartReloads);
    for (const replica of fleet.replicas) {
      await replica.restart();
      // The proxy takes it back after its next health check.
      await sleep(300);
    }
    const results = await load.stop();
    expect(results.length).toBeGreaterThan(20);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    await expectStored(results);
    // Each stopped cleanly (SIGTERM), every commit announced: no replica reloaded everything.
    expect([0, 1, 2].map(uncleanStartReloads)).toEqual(reloadsBefore);
  });

  it("answers within a second while Redis is down, and a follow-up finds its conversation on any replica, during and after", async () => {
    const source = await textSource(0, "Lamp", "The lighthouse keeper lights the lamp at dusk.");
    const agent = await agentWith(0, [source.id]);
    const ask = async (replica: number, conversationId?: string) => {
      const started = performance.now();
      const res = await fleet.direct<QueryResponse>(replica, "POST", `/agents/${agent.id}/query/`, {
        token,
        body: { message: "When is the lamp lit?", ...(conversationId ? { conversationId } : {}) },
      });
      return { res, ms: Math.round(performance.now() - started) };
    };
    // Each replica has answered from the new source once (its first search of it warms its index).
    for (const replica of [0, 1, 2]) expect((await ask(replica)).res.status).toBe(200);

    await fleet.redis.stop();
    const outage: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      // A new conversation on one replica, its follow-up on the next: the change feed is down.
      const first = await ask(i % 3);
      const follow = await ask((i + 1) % 3, first.res.body.conversationId);
      statuses.push(first.res.status, follow.res.status);
      outage.push(first.ms, follow.ms);
    }
    const created = performance.now();
    const agentCreated = await fleet.direct<Agent>(2, "POST", "/agents/", {
      token,
      body: { name: "Made while Redis was down", dataSourceIds: [source.id] },
    });
    const createMs = Math.round(performance.now() - created);
    console.log("[fleet] Redis down:", JSON.stringify({ statuses, outage, createMs }));
    expect(
      statuses.every((s) => s === 200),
      JSON.stringify(statuses),
    ).toBe(true);
    expect(agentCreated.status).toBe(201);
    // No request waits on Redis: local limits and local coordination at once. (Each takes 40–300 ms
    // here; the bound leaves room for a busy machine. Before, they waited for Redis: 30 s and more.)
    expect(Math.max(...outage, createMs), JSON.stringify({ outage, createMs })).toBeLessThan(2_000);

    // Redis back (empty: no persistence). Follow-ups on another replica never 404 while the feed
    // catches up: a conversation a replica has not heard of is read from the shared table.
    await fleet.redis.start();
    const back = performance.now();
    const after: Array<{ status: number; ms: number }> = [];
    while (performance.now() - back < 3_000) {
      const first = await ask(0);
      const follow = await ask(1, first.res.body.conversationId);
      after.push({ status: first.res.status, ms: first.ms }, { status: follow.res.status, ms: follow.ms });
    }
    expect(after.filter((r) => r.status !== 200)).toEqual([]);
    // Every replica is back on the shared limits, leases and feed, and says so.
    for (const replica of fleet.replicas)
      await until(() => replica.output().includes("Redis is back"), { timeout: 10_000, what: "Redis back" });
    console.log(
      "[fleet] Redis back:",
      JSON.stringify({ requests: after.length, maxMs: Math.max(...after.map((r) => r.ms)) }),
    );
  });
});

/** How often a replica reloaded every table because another started after a stop that was not clean. */
function uncleanStartReloads(replica: number): number {
  const line = "reloading shared tables from storage (a replica started after a stop that was not clean)";
  return (fleet.replicas[replica]?.output() ?? "").split(line).length - 1;
}

/** Twelve agents over one source: steady load at ~8 questions a second stays at ~40 a minute each. */
async function loadAgents(name: string): Promise<string[]> {
  const source = await textSource(0, name, "The harbour crane lifts forty tonnes. It was installed in 1990.");
  const agents: string[] = [];
  for (let i = 0; i < 12; i++) agents.push((await agentWith(i % 3, [source.id])).id);
  return agents;
}

describe("tokens across the fleet", { timeout: 60_000 }, () => {
  it("applies a user the CLI creates or changes while the fleet runs on every replica at once", async () => {
    // The CLI with the fleet's settings and a data directory of its own (the replicas hold theirs).
    const dirs: string[] = [];
    const cli = (args: string[]) => {
      dirs.push(makeTempDir());
      return runCli(args, { ...fleet.env, LORE_DATA_DIR: dirs.at(-1) ?? "" });
    };
    const email = "operator@example.com";
    const created = await cli(["users", "create", "--email", email, "--password", DEFAULT_PASSWORD]);
    expect(created.code, created.stderr).toBe(0);
    const login = (replica: number, password: string) =>
      fleet.direct<{ access: string }>(replica, "POST", "/auth/login/", { body: { email, password } });
    const tokens: string[] = [];
    for (const replica of [0, 1, 2]) {
      const res = await login(replica, DEFAULT_PASSWORD);
      expect(res.status).toBe(200);
      tokens.push(res.body.access);
    }
    // The email stays unique for the fleet; a new password refuses earlier tokens on every replica.
    expect((await cli(["users", "create", "--email", email, "--password", DEFAULT_PASSWORD])).code).toBe(1);
    const changed = await cli([
      "users",
      "set-password",
      "--email",
      email,
      "--password",
      "Fresh-Ledger-42-Quay",
    ]);
    expect(changed.code).toBe(0);
    for (const [replica, access] of tokens.entries()) {
      expect((await fleet.direct(replica, "GET", "/auth/me/", { token: access })).status).toBe(401);
      expect((await login(replica, "Fresh-Ledger-42-Quay")).status).toBe(200);
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  // Last: a replayed token signs the admin out everywhere.
  it("refuses a refresh token spent on another replica, and a logout signs out on every replica", async () => {
    const login = async () =>
      (
        await fleet.direct<{ access: string; refresh: string }>(0, "POST", "/auth/login/", {
          body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
        })
      ).body;
    const first = await login();
    const refresh = (replica: number, token: string) =>
      fleet.direct<{ access: string; refresh: string }>(replica, "POST", "/auth/token/refresh/", {
        body: { refresh: token },
      });
    // Presented to all three at the same moment: spent once (one new pair), the other two are
    // replays, and a replay revokes the account's tokens everywhere.
    const uses = await Promise.all([0, 1, 2].map((replica) => refresh(replica, first.refresh)));
    expect(uses.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    expect((await refresh(0, first.refresh)).status).toBe(401);
    for (const replica of [0, 1, 2]) {
      expect((await fleet.direct(replica, "GET", "/auth/me/", { token: first.access })).status).toBe(401);
    }

    const second = await login();
    expect((await fleet.direct(1, "GET", "/auth/me/", { token: second.access })).status).toBe(200);
    expect((await fleet.direct(1, "POST", "/auth/logout/", { token: second.access })).status).toBe(204);
    for (const replica of [0, 2]) {
      expect((await fleet.direct(replica, "GET", "/auth/me/", { token: second.access })).status).toBe(401);
      expect((await refresh(replica, second.refresh)).status).toBe(401);
    }
  });
});

interface LoadResult {
  status: number;
  startedAt: number;
  conversationId?: string;
  messageId?: string;
}

/**
 * Four loops asking follow-up questions through the proxy, each about 2 a second, spread over the
 * agents so none passes the per-agent limit (60 a minute), until stopped. Each loop keeps one
 * conversation per agent, so consecutive turns of a conversation reach different replicas.
 */
function steadyLoad(agentIds: string[]): { sofar(): readonly LoadResult[]; stop(): Promise<LoadResult[]> } {
  let running = true;
  let turn = 0;
  const results: LoadResult[] = [];
  const loops = Array.from({ length: 4 }, async () => {
    const conversations = new Map<string, string>();
    while (running) {
      const agentId = agentIds[turn++ % agentIds.length] ?? "";
      const conversationId = conversations.get(agentId);
      const startedAt = Date.now();
      try {
        const res = await fleet.request<QueryResponse>("POST", `/agents/${agentId}/query/`, {
          token,
          body: { message: "What does the crane lift?", ...(conversationId ? { conversationId } : {}) },
        });
        if (res.status === 200) conversations.set(agentId, res.body.conversationId);
        results.push({
          status: res.status,
          startedAt,
          conversationId: res.status === 200 ? res.body.conversationId : undefined,
          messageId: res.status === 200 ? res.body.messageId : undefined,
        });
      } catch {
        results.push({ status: 0, startedAt });
      }
      await sleep(500);
    }
  });
  return {
    sofar: () => results,
    async stop() {
      running = false;
      await Promise.all(loops);
      return results;
    },
  };
}

/** Each acknowledged answer is in its conversation's transcript, read through any replica. */
async function expectStored(results: LoadResult[]): Promise<void> {
  const byConversation = new Map<string, Set<string>>();
  for (const r of results) {
    if (!r.conversationId || !r.messageId) continue;
    const ids = byConversation.get(r.conversationId) ?? new Set<string>();
    ids.add(r.messageId);
    byConversation.set(r.conversationId, ids);
  }
  expect(byConversation.size).toBeGreaterThan(0);
  for (const [conversationId, ids] of byConversation) {
    const agentId = await agentOf(conversationId);
    const transcript = await fleet.request<Conversation & { messages: Message[] }>(
      "GET",
      `/agents/${agentId}/conversations/${conversationId}/`,
      { token },
    );
    expect(transcript.status).toBe(200);
    const stored = new Set(transcript.body.messages.map((m) => m.id));
    for (const id of ids) expect(stored.has(id), `message ${id} of ${conversationId}`).toBe(true);
  }
}

const agentsByConversation = new Map<string, string>();
async function agentOf(conversationId: string): Promise<string> {
  const known = agentsByConversation.get(conversationId);
  if (known) return known;
  const agents = await fleet.request<{ results: Agent[] }>("GET", "/agents/?page_size=100", { token });
  for (const agent of agents.body.results) {
    const list = await fleet.request<{ results: Conversation[] }>(
      "GET",
      `/agents/${agent.id}/conversations/?page_size=100`,
      { token },
    );
    for (const c of list.body.results) agentsByConversation.set(c.id, agent.id);
  }
  const found = agentsByConversation.get(conversationId);
  if (!found) throw new Error(`conversation ${conversationId} is in no agent's list`);
  return found;
}

/** A page on loopback that answers slowly and counts how often it is fetched. */
async function countingSite(): Promise<{ url: string; fetches(): number; close(): Promise<void> }> {
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== "/page") {
      res.writeHead(404).end();
      return;
    }
    fetches += 1;
    setTimeout(() => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        "<html><head><title>Opening hours</title></head><body><p>The museum opens at nine.</p></body></html>",
      );
    }, 1_000);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fetches: () => fetches,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
