import {
  type DataSource,
  dataSourceSchema,
  documentSchema,
  errorBodySchema,
  type Page,
  pageSchema,
  type SyncRun,
  syncRunSchema,
} from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_PASSWORD,
  personalWorkspaceId,
  startTestServer,
  type TestServer,
} from "../helpers/server.ts";
import {
  call,
  createAgent,
  createTextSource,
  documents,
  getSource,
  readyTextSource,
  syncRuns,
  waitForSettled,
} from "./source-helpers.ts";

let server: TestServer;
let token: string;
let workspaceId: string;
let viewerToken: string;
let strangerToken: string;

const entries = (n: number, prefix = "Entry") =>
  Array.from({ length: n }, (_, i) => ({
    title: `${prefix} ${i + 1}`,
    content: `${prefix} number ${i + 1} talks about topic${i + 1} in a complete sentence.`,
  }));

beforeAll(async () => {
  server = await startTestServer();
  const login = await server.login();
  token = login.access;
  workspaceId = personalWorkspaceId(server.services, login.user.id);
  const viewer = await server.createUser("viewer@example.com");
  await server.addMember(workspaceId, viewer.id, "viewer");
  viewerToken = (await server.login("viewer@example.com", DEFAULT_PASSWORD)).access;
  await server.createUser("stranger@example.com");
  strangerToken = (await server.login("stranger@example.com", DEFAULT_PASSWORD)).access;
});
afterAll(() => server?.close());

describe("data source API", () => {
  it("creates a text source that goes from queued to ready with document and chunk counts", async () => {
    const res = await call<DataSource>(server, "POST", "/data-sources/", token, {
      name: "Handbook",
      type: "text",
      config: { entries: entries(3) },
    });
    expect(res.status).toBe(201);
    expect(dataSourceSchema.strict().parse(res.body).status).toBe("queued");
    expect(res.body.workspaceId).toBe(workspaceId);
    const ready = await waitForSettled(server, token, res.body.id);
    expect(ready.status).toBe("ready");
    expect(ready.documentCount).toBe(3);
    expect(ready.chunkCount).toBeGreaterThanOrEqual(3);
    expect(ready.lastSyncedAt).not.toBeNull();
    expect(ready.lastError).toBeNull();

    const docs = await documents(server, token, ready.id);
    expect(docs.map((d) => documentSchema.parse(d).title).sort()).toEqual(["Entry 1", "Entry 2", "Entry 3"]);
    expect(docs.every((d) => d.status === "indexed" && d.kind === "text")).toBe(true);
    expect(docs.reduce((n, d) => n + d.chunkCount, 0)).toBe(ready.chunkCount);

    const runs = await syncRuns(server, token, ready.id);
    expect(runs).toHaveLength(1);
    const run = syncRunSchema.parse(runs[0]);
    expect(run).toMatchObject({
      status: "completed",
      trigger: "create",
      added: 3,
      updated: 0,
      removed: 0,
      unchanged: 0,
      failed: 0,
      attempts: 1,
      error: null,
    });
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(run.finishedAt ?? "")).toBeGreaterThanOrEqual(Date.parse(run.startedAt ?? ""));
  });

  it("lists sources in the envelope with filters and pagination", async () => {
    const a = await readyTextSource(server, token, "List A", entries(1, "A"));
    const b = await readyTextSource(server, token, "List B", entries(1, "B"));
    const all = await call<Page<DataSource>>(server, "GET", "/data-sources/?page_size=100", token);
    expect(all.status).toBe(200);
    pageSchema(dataSourceSchema).parse(all.body);
    expect(all.body.results.map((s) => s.id)).toEqual(expect.arrayContaining([a.id, b.id]));

    const byType = await call<Page<DataSource>>(server, "GET", "/data-sources/?type=file", token);
    expect(byType.body.results.every((s) => s.type === "file")).toBe(true);
    expect(byType.body.results.map((s) => s.id)).not.toContain(a.id);
    const byStatus = await call<Page<DataSource>>(
      server,
      "GET",
      "/data-sources/?status=ready&page_size=100",
      token,
    );
    expect(byStatus.body.results.map((s) => s.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    const byQueued = await call<Page<DataSource>>(server, "GET", "/data-sources/?status=queued", token);
    expect(byQueued.body.results.map((s) => s.id)).not.toContain(a.id);
    const byWorkspace = await call<Page<DataSource>>(
      server,
      "GET",
      `/data-sources/?workspace_id=${workspaceId}&page_size=100`,
      token,
    );
    expect(byWorkspace.body.count).toBe(all.body.count);
    const strangerWs = await call(server, "GET", `/data-sources/?workspace_id=${workspaceId}`, strangerToken);
    expect(strangerWs.status).toBe(404);
    const badType = await call(server, "GET", "/data-sources/?type=ftp", token);
    expect(badType.status).toBe(400);

    const page1 = await call<Page<DataSource>>(server, "GET", "/data-sources/?page=1&page_size=1", token);
    expect(page1.body.results).toHaveLength(1);
    expect(page1.body.count).toBe(all.body.count);
    expect(page1.body.previous).toBeNull();
    expect(page1.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/data-sources\/\?.*page=2/);
    const page2 = await call<Page<DataSource>>(server, "GET", page1.body.next ?? "", token);
    expect(page2.body.results[0]?.id).not.toBe(page1.body.results[0]?.id);
    // The link back to page 1 has no `page` (Django REST framework's), the rest of the query kept.
    expect(page2.body.previous).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/data-sources\/\?page_size=1$/);
  });

  it("changes name and schedule without a sync, and re-syncs when the config changes", async () => {
    const source = await readyTextSource(server, token, "Patch me", entries(2, "P"));
    const renamed = await call<DataSource>(server, "PATCH", `/data-sources/${source.id}/`, token, {
      name: "Patched",
      schedule: { intervalMinutes: 60 },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Patched", schedule: { intervalMinutes: 60 } });
    expect(await syncRuns(server, token, source.id)).toHaveLength(1);

    const cleared = await call<DataSource>(server, "PATCH", `/data-sources/${source.id}/`, token, {
      schedule: null,
    });
    expect(cleared.body.schedule).toBeNull();

    const reconf = await call<DataSource>(server, "PATCH", `/data-sources/${source.id}/`, token, {
      config: { entries: entries(3, "P") },
    });
    expect(reconf.status).toBe(200);
    const after = await waitForSettled(server, token, source.id);
    expect(after.documentCount).toBe(3);
    const runs = await syncRuns(server, token, source.id);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ trigger: "manual", status: "completed", added: 1, unchanged: 2 });

    const invalid = await call(server, "PATCH", `/data-sources/${source.id}/`, token, {
      config: { entries: [] },
    });
    expect(invalid.status).toBe(400);
    const unknownField = await call(server, "PATCH", `/data-sources/${source.id}/`, token, { colour: "red" });
    expect(unknownField.status).toBe(400);
  });

  it("answers a sync trigger with 202 and the run, and a second trigger while it runs with the same run", async () => {
    const created = await createTextSource(server, token, "Sync twice", entries(5, "S"));
    const first = await call<SyncRun>(server, "POST", `/data-sources/${created.id}/sync/`, token);
    expect(first.status).toBe(202);
    syncRunSchema.parse(first.body);
    const second = await call<SyncRun>(server, "POST", `/data-sources/${created.id}/sync/`, token);
    expect(second.status).toBe(202);
    // The create sync is still queued or running: all three triggers share one run.
    expect(second.body.id).toBe(first.body.id);
    await waitForSettled(server, token, created.id);
    const runs = await syncRuns(server, token, created.id);
    expect(runs.map((r) => r.id)).toEqual([first.body.id]);

    const again = await call<SyncRun>(server, "POST", `/data-sources/${created.id}/sync/`, token);
    expect(again.status).toBe(202);
    expect(again.body.id).not.toBe(first.body.id);
    expect(["queued", "running"]).toContain(again.body.status);
    await waitForSettled(server, token, created.id);
    const latest = (await syncRuns(server, token, created.id))[0];
    expect(latest).toMatchObject({
      id: again.body.id,
      status: "completed",
      trigger: "manual",
      unchanged: 5,
      added: 0,
      updated: 0,
      removed: 0,
    });
  });

  it("refuses invalid bodies with 400 and the fields at fault", async () => {
    const cases: Array<[unknown, string]> = [
      [{ type: "text", config: { entries: entries(1) } }, "name"],
      [{ name: "x", type: "text", config: { entries: [] } }, "config.entries"],
      [
        { name: "x", type: "text", config: { entries: [{ title: "", content: "c" }] } },
        "config.entries.0.title",
      ],
      [{ name: "x", type: "web", config: { url: "ftp://example.com" } }, "config.url"],
      [{ name: "x", type: "carrier-pigeon", config: {} }, "type"],
    ];
    for (const [body, field] of cases) {
      const res = await call(server, "POST", "/data-sources/", token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = errorBodySchema.parse(res.body);
      expect(error.error).toBe("validation_error");
      const fields = (error.details as { fields?: Record<string, string[]> }).fields ?? {};
      expect(
        Object.keys(fields).some((k) => k === field || k.startsWith(field)),
        `${field} in ${JSON.stringify(fields)}`,
      ).toBe(true);
    }
    const notJson = await call(server, "POST", "/data-sources/", token, "{not json", {
      "Content-Type": "application/json",
    });
    expect(notJson.status).toBe(400);
  });

  it("hides another tenant's source (404), lets a viewer read but not write (403), and refuses API keys (403)", async () => {
    const source = await readyTextSource(server, token, "Guarded", entries(1, "G"));
    for (const [method, path, body] of [
      ["GET", `/data-sources/${source.id}/`, undefined],
      ["PATCH", `/data-sources/${source.id}/`, { name: "mine" }],
      ["DELETE", `/data-sources/${source.id}/`, undefined],
      ["POST", `/data-sources/${source.id}/sync/`, undefined],
      ["GET", `/data-sources/${source.id}/documents/`, undefined],
      ["GET", `/data-sources/${source.id}/syncs/`, undefined],
    ] as const) {
      const res = await call(server, method, path, strangerToken, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(errorBodySchema.parse(res.body).error).toBe("not_found");
    }
    const strangerList = await call<Page<DataSource>>(
      server,
      "GET",
      "/data-sources/?page_size=100",
      strangerToken,
    );
    expect(strangerList.body.results.map((s) => s.id)).not.toContain(source.id);

    expect((await call(server, "GET", `/data-sources/${source.id}/`, viewerToken)).status).toBe(200);
    expect((await call(server, "GET", `/data-sources/${source.id}/documents/`, viewerToken)).status).toBe(
      200,
    );
    for (const [method, path, body] of [
      ["PATCH", `/data-sources/${source.id}/`, { name: "viewer was here" }],
      ["DELETE", `/data-sources/${source.id}/`, undefined],
      ["POST", `/data-sources/${source.id}/sync/`, undefined],
      ["POST", "/data-sources/", { name: "v", type: "text", config: { entries: entries(1) }, workspaceId }],
    ] as const) {
      const res = await call(server, method, path, viewerToken, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(errorBodySchema.parse(res.body).error).toBe("permission_denied");
    }
    expect((await getSource(server, token, source.id)).name).toBe("Guarded");

    const agent = await createAgent(server, token, { dataSourceIds: [source.id] });
    const key = await call<{ key: string }>(server, "POST", `/agents/${agent.id}/api-keys/`, token, {
      name: "k",
    });
    expect(key.status).toBe(201);
    for (const [method, path] of [
      ["GET", "/data-sources/"],
      ["GET", `/data-sources/${source.id}/`],
      ["POST", `/data-sources/${source.id}/sync/`],
    ] as const) {
      const res = await call(server, method, path, key.body.key);
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await call(server, "GET", "/data-sources/")).status).toBe(401);
  });
});
