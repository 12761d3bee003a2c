/**
 * Issue #16 item 12: data at rest is the server user's alone. A data directory left world-readable
 * (by an earlier version or another tool) is tightened at start with a warning; everything written
 * afterwards (uploads, LanceDB tables, the journal, backups) is 0600 in 0700 directories.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, runCli, type ServerProcess, startServerProcess } from "../helpers/server.ts";
import {
  call,
  createAgent,
  createFileSource,
  readyTextSource,
  waitForSettled,
} from "../ingestion/source-helpers.ts";

const dirs: string[] = [];
let proc: ServerProcess | undefined;

afterAll(async () => {
  await proc?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Every path under `root` whose mode lets group or others in, as "path 0755". */
function openToOthers(root: string): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0)
      found.push(`${path.slice(root.length) || "/"} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

function count(root: string): number {
  let n = 0;
  const visit = (path: string): void => {
    n += 1;
    if (lstatSync(path).isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return n;
}

describe("data directory permissions", () => {
  it("tightens a loose data directory at start, warns, and writes everything 0600/0700", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    // chmod, not the modes given at creation, which the process's umask narrows (a server started
    // in this process before, or a runner with umask 077, leaves 0700).
    chmodSync(dataDir, 0o755);
    mkdirSync(join(dataDir, "files", "legacy"), { recursive: true });
    chmodSync(join(dataDir, "files"), 0o755);
    chmodSync(join(dataDir, "files", "legacy"), 0o755);
    writeFileSync(join(dataDir, "files", "legacy", "old.pdf"), "x");
    chmodSync(join(dataDir, "files", "legacy", "old.pdf"), 0o644);
    expect(openToOthers(dataDir).length).toBe(4);

    proc = await startServerProcess({ LORE_DATA_DIR: dataDir });
    expect(proc.output()).toMatch(/readable by other users; tightened to 0700\/0600/);

    const token = (
      await call<{ access: string }>(proc, "POST", "/auth/login/", undefined, {
        email: "admin@example.com",
        password: "correct-horse-battery",
      })
    ).body.access;
    const upload = await createFileSource(proc, token, "Upload", [
      { name: "notes.md", bytes: "# Refunds\n\nRefunds take 14 days.", type: "text/markdown" },
    ]);
    expect(upload.status).toBe(201);
    await waitForSettled(proc, token, upload.body.id);
    const text = await readyTextSource(proc, token, "Text", [{ title: "Hours", content: "Open 9 to 5." }]);
    const agent = await createAgent(proc, token, { dataSourceIds: [upload.body.id, text.id] });
    const answer = await call(proc, "POST", `/agents/${agent.id}/query/`, token, {
      message: "How long do refunds take?",
    });
    expect(answer.status).toBe(200);

    const backup = join(makeTempDir(), "backup");
    dirs.push(join(backup, ".."));
    const result = await runCli(["backup", "--to", backup], { LORE_DATA_DIR: dataDir });
    expect(result.code, result.stderr).toBe(0);

    expect(count(join(dataDir, "lance"))).toBeGreaterThan(10);
    expect(count(join(dataDir, "files"))).toBeGreaterThan(3);
    expect(openToOthers(dataDir)).toEqual([]);
    expect(openToOthers(backup)).toEqual([]);
  });
});
