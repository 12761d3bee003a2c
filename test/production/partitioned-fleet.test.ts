/**
 * A partitioned fleet (LORE_INDEX_MAX_CHUNKS): three replicas whose search index can hold one
 * workspace each, three workspaces, and a plain round-robin proxy (no affinity), so every replica
 * keeps loading and letting go workspaces. Answers must stay right and current regardless.
 */
import { type DataSource, type QueryResponse, readinessSchema } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, startFleet } from "../helpers/fleet.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../helpers/server.ts";
import { waitForSettled } from "../ingestion/source-helpers.ts";

let fleet: Fleet;
let token = "";

/** Two one-chunk entries per workspace: one workspace (2 chunks) fits the budget, two (4) do not. */
const BUDGET = 3;

interface Tenant {
  workspaceId: string;
  source: DataSource;
  agentId: string;
  colour: string;
}

const tenants: Tenant[] = [];

beforeAll(async () => {
  fleet = await startFleet(3, {
    LORE_INDEX_MAX_CHUNKS: String(BUDGET),
    LORE_LIMIT_AGENT_QUERIES_PER_MINUTE: "1000",
    LORE_LOG_LEVEL: "info",
  });
  const login = await fleet.direct<{ access: string }>(0, "POST", "/auth/login/", {
    body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  });
  token = login.body.access;
  const names = ["Alder", "Birch", "Cedar"];
  const colours = ["crimson", "teal", "ochre"];
  for (const [i, name] of names.entries()) {
    const colour = colours[i] ?? "";
    // Each workspace made through a different replica.
    const workspace = await fleet.direct<{ id: string }>(i, "POST", "/workspaces/", {
      token,
      body: { name },
    });
    expect(workspace.status).toBe(201);
    const created = await fleet.direct<DataSource>(i, "POST", "/data-sources/", {
      token,
      body: {
        name: `${name} handbook`,
        type: "text",
        workspaceId: workspace.body.id,
        config: {
          entries: [
            { title: "Front door", content: `The front door of the ${name} office is painted ${colour}.` },
            { title: "Parking", content: `Visitors to the ${name} office park behind the bakery.` },
          ],
        },
      },
    });
    expect(created.status).toBe(201);
    const source = await waitForSettled({ api: fleet.replicas[i]?.api ?? "" }, token, created.body.id);
    expect(source.status).toBe("ready");
    const agent = await fleet.direct<{ id: string }>(i, "POST", "/agents/", {
      token,
      body: { name: `${name} agent`, workspaceId: workspace.body.id, dataSourceIds: [source.id] },
    });
    expect(agent.status).toBe(201);
    tenants.push({ workspaceId: workspace.body.id, source, agentId: agent.body.id, colour });
  }
}, 180_000);

afterAll(async () => {
  await fleet?.close();
});

async function held(replica: number) {
  const ready = await fetch(`${fleet.replicas[replica]?.url}/readyz`);
  const body = readinessSchema.parse(await ready.json());
  if (!body.searchIndex) throw new Error("no searchIndex in /readyz");
  return body.searchIndex;
}

function ask(tenant: Tenant): Promise<{ status: number; body: QueryResponse }> {
  return fleet.request<QueryResponse>("POST", `/agents/${tenant.agentId}/query/`, {
    token,
    body: { message: "What colour is the front door painted?" },
  });
}

describe("three replicas that each hold one workspace's search index", { timeout: 180_000 }, () => {
  it("start holding nothing: syncs wrote to the shared tables only", async () => {
    for (const replica of [0, 1, 2]) {
      expect(await held(replica)).toEqual({ maxChunks: BUDGET, chunks: 0, workspaces: 0 });
    }
  });

  it("answers every workspace's question from its own document through a round-robin proxy", async () => {
    // The proxy's turn and the workspace asked shift against each other, so each replica is asked
    // about every workspace and has to load one and let another go.
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < 3; k++) {
        const tenant = tenants[(k + round) % 3];
        if (!tenant) throw new Error("fixture");
        const answer = await ask(tenant);
        expect(answer.status).toBe(200);
        expect(answer.body.sources.length).toBeGreaterThan(0);
        for (const cited of answer.body.sources) expect(cited.dataSourceId).toBe(tenant.source.id);
        expect(answer.body.response).toContain(tenant.colour);
        for (const other of tenants) {
          if (other !== tenant) expect(answer.body.response).not.toContain(other.colour);
        }
      }
      for (const replica of [0, 1, 2]) {
        const index = await held(replica);
        expect(index.chunks).toBeLessThanOrEqual(BUDGET);
        expect(index.workspaces).toBeLessThanOrEqual(1);
      }
    }
    // Every replica answered some of them and so loaded a workspace; some had to let one go.
    const count = (text: string, msg: string) => text.split(`"msg":"${msg}"`).length - 1;
    const outputs = fleet.replicas.map((r) => r.output());
    for (const output of outputs) expect(count(output, "search index loaded a workspace")).toBeGreaterThan(0);
    const evictions = outputs.map((o) => count(o, "search index let a workspace go"));
    expect(evictions.reduce((a, b) => a + b)).toBeGreaterThan(0);
    for (const replica of [0, 1, 2]) expect((await held(replica)).workspaces).toBe(1);
  });

  it("answers from changes other replicas made, whether this one held the workspace or not", async () => {
    const [alder, birch] = tenants;
    if (!alder || !birch) throw new Error("fixture");
    const askOn = (replica: number, tenant: Tenant) =>
      fleet.direct<QueryResponse>(replica, "POST", `/agents/${tenant.agentId}/query/`, {
        token,
        body: { message: "What colour is the front door painted?" },
      });
    // Every replica holds Alder now (and so not Birch).
    for (const replica of [0, 1, 2]) expect((await askOn(replica, alder)).body.response).toContain("crimson");
    const repaint = async (replica: number, tenant: Tenant, name: string, colour: string) => {
      const entries = await fleet.direct<{ results: { key: string; title: string }[] }>(
        replica,
        "GET",
        `/data-sources/${tenant.source.id}/entries/`,
        { token },
      );
      const door = entries.body.results.find((e) => e.title === "Front door");
      if (!door) throw new Error("no front door entry");
      const put = await fleet.direct(
        replica,
        "PUT",
        `/data-sources/${tenant.source.id}/entries/${door.key}/`,
        {
          token,
          body: {
            title: "Front door",
            content: `The front door of the ${name} office is painted ${colour}.`,
          },
        },
      );
      expect(put.status).toBe(200);
      await waitForSettled({ api: fleet.replicas[replica]?.api ?? "" }, token, tenant.source.id);
    };
    // Alder changes while held everywhere (the others apply it from the change feed), Birch while
    // held nowhere (each replica reads it from the table at its next question).
    await repaint(1, alder, "Alder", "saffron");
    await repaint(2, birch, "Birch", "violet");
    for (const replica of [0, 1, 2]) {
      const a = await askOn(replica, alder);
      expect(a.status).toBe(200);
      expect(a.body.response).toContain("saffron");
      expect(a.body.response).not.toContain("crimson");
      const b = await askOn(replica, birch);
      expect(b.status).toBe(200);
      expect(b.body.response).toContain("violet");
      expect(b.body.response).not.toContain("teal");
    }
  });
});
