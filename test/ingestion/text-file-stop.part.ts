import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { LoginResponse } from "@lore/shared";
import { afterEach, expect, it } from "vitest";
import { httpRequest, type ServerProcess, startServerProcess } from "../helpers/server.ts";
import { createAgent, createTextSource, search, waitForSettled } from "./source-helpers.ts";

let proc: ServerProcess | null = null;
afterEach(async () => {
  await proc?.close();
  proc = null;
});

const textFiles = (dataDir: string) => {
  const dir = join(dataDir, "index");
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(".chunk-texts-")) : [];
};

it("removes the chunk text file when the server stops, and reads the texts again after a restart", async () => {
  proc = await startServerProcess();
  const login = async () =>
    (
      await httpRequest<LoginResponse>(proc?.api ?? "", "POST", "/auth/login/", {
        body: { email: "admin@example.com", password: "correct-horse-battery" },
      })
    ).body.access;
  let token = await login();
  const source = await createTextSource(proc, token, "Notes", [
    { title: "Ferries", content: "The harbour ferry leaves every quarter hour from pier seven." },
  ]);
  expect((await waitForSettled(proc, token, source.id, 60_000)).status).toBe("ready");
  expect(textFiles(proc.dataDir)).toHaveLength(1);

  await proc.stop();
  expect(textFiles(proc.dataDir)).toEqual([]);

  await proc.restart();
  token = await login();
  const agent = await createAgent(proc, token, { dataSourceIds: [source.id] });
  const hits = (await search(proc, token, agent.id, "harbour ferry")).results;
  expect(hits.map((h) => h.content)).toContain(
    "The harbour ferry leaves every quarter hour from pier seven.",
  );
});
