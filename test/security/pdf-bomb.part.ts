/**
 * Issue #16 item 11: a PDF decompression bomb is refused before pdf.js inflates it, so native
 * memory (ArrayBuffers, outside the worker's heap limit) never grows by the bomb's size.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, startTestServer, type TestServer } from "../helpers/server.ts";
import { createFileSource, documents, waitForSettled } from "../ingestion/source-helpers.ts";
import { makePdfBomb } from "./pdf-bomb.ts";

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
});

afterAll(async () => {
  await server?.close();
});

describe("a PDF decompression bomb", () => {
  it("is uploaded, and its document fails with the reason while the sync completes", async () => {
    const bomb = makePdfBomb(150);
    expect(bomb.length).toBeLessThan(300 * 1024);
    const created = await createFileSource(server, token, "Bomb", [
      { name: "bomb.pdf", bytes: bomb, type: "application/pdf" },
    ]);
    expect(created.status).toBe(201);
    const settled = await waitForSettled(server, token, created.body.id, 60_000);
    const [doc] = await documents(server, token, settled.id);
    expect(doc?.status).toBe("failed");
    expect(doc?.error).toMatch(/inflate past \d+ bytes \(decompression bomb\?\)/);
  });

  it("leaves RSS within 100 MB of where it was (measured in a child process)", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", join(repoRoot, "test/security/pdf-bomb.ts"), "150"],
      { cwd: repoRoot, timeout: 60_000 },
    );
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
      before: { rss: number; peak: number };
      after: { rss: number; peak: number };
      outcome: string;
    };
    expect(result.outcome).toMatch(/decompression bomb/);
    expect(result.after.rss - result.before.rss).toBeLessThan(100);
    expect(result.after.peak - result.before.peak).toBeLessThan(100);
  });
});
