/**
 * LORE_STORAGE_URI on an object store: the tables and the uploaded files live in the bucket, the
 * data directory holds only what is the process's own, so a new process with an empty data
 * directory serves the same agents and sources. S3 cannot run here: `s3rver` is a local S3 server
 * speaking the S3 HTTP API (the fake of a third-party service), which LanceDB's object store talks to.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Agent, QueryResponse, SyncRun } from "@lore/shared";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, httpRequest, runCli, startServerProcess } from "../helpers/server.ts";
import { createFileSource, waitForSettled } from "../ingestion/source-helpers.ts";

let s3: S3rver;
let bucketDir = "";
let endpoint = "";

beforeAll(async () => {
  bucketDir = mkdtempSync(join(tmpdir(), "lore-s3-"));
  s3 = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: bucketDir,
    configureBuckets: [{ name: "lore", configs: [] }],
  });
  const { port } = await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await s3?.close();
  rmSync(bucketDir, { recursive: true, force: true });
});

function storageEnv(prefix: string): Record<string, string> {
  return {
    LORE_STORAGE_URI: `s3://lore/${prefix}`,
    LORE_JWT_SECRET: "object-storage-test-secret-0123456789abcdef",
    AWS_ENDPOINT: endpoint,
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_REGION: "us-east-1",
    AWS_ALLOW_HTTP: "true",
  };
}

describe("LORE_STORAGE_URI on an object store", { timeout: 180_000 }, () => {
  it("keeps the tables and uploaded files in the bucket: a process with an empty data directory serves them", async () => {
    const env = storageEnv("deployment");
    const first = await startServerProcess(env);
    let agentId = "";
    let sourceId = "";
    try {
      const login = await httpRequest<{ access: string }>(first.api, "POST", "/auth/login/", {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      });
      const token = login.body.access;
      const created = await createFileSource(first, token, "Manual", [
        {
          name: "boiler.md",
          bytes: "# Boiler\n\nThe boiler pressure must stay below two bar.",
          type: "text/markdown",
        },
      ]);
      expect(created.status).toBe(201);
      sourceId = created.body.id;
      await waitForSettled(first, token, sourceId);
      const agent = await httpRequest<Agent>(first.api, "POST", "/agents/", {
        token,
        body: { name: "Plant", dataSourceIds: [sourceId] },
      });
      agentId = agent.body.id;
      // Nothing of the store in the data directory: no tables, no files.
      expect(existsSync(join(first.dataDir, "lance"))).toBe(false);
      expect(existsSync(join(first.dataDir, "files"))).toBe(false);
    } finally {
      await first.close();
    }

    // Another process, another (empty) data directory, the same bucket.
    const second = await startServerProcess(env);
    try {
      const login = await httpRequest<{ access: string }>(second.api, "POST", "/auth/login/", {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      });
      const token = login.body.access;
      const answer = await httpRequest<QueryResponse>(second.api, "POST", `/agents/${agentId}/query/`, {
        token,
        body: { message: "What must the boiler pressure stay below?" },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.sources.map((s) => s.dataSourceId)).toContain(sourceId);
      // The uploaded file is read back from the bucket by a re-sync.
      const run = await httpRequest<SyncRun>(second.api, "POST", `/data-sources/${sourceId}/sync/`, {
        token,
      });
      expect(run.status).toBe(202);
      const source = await waitForSettled(second, token, sourceId);
      expect(source.lastError).toBeNull();
      expect(source.documentCount).toBe(1);
    } finally {
      await second.close();
    }
  });

  it("refuses to start when the object store cannot be reached, naming LORE_STORAGE_URI", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "lore-s3-down-"));
    const result = await runCli(["serve"], {
      ...storageEnv("down"),
      AWS_ENDPOINT: "http://127.0.0.1:9",
      LORE_DATA_DIR: dataDir,
      LORE_PORT: "0",
    });
    rmSync(dataDir, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("LORE_STORAGE_URI: cannot open s3://lore/down");
  });
});
