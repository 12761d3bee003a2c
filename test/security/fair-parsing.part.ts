/**
 * Issue #49 item 3: one workspace's hostile uploads or slow site must not keep another workspace's
 * small source queued. Syncs are taken in turn across workspaces, parses queue per workspace, and
 * markup is checked against nesting and element budgets while it streams.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { DataSource } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDocx } from "../fixtures/docx.ts";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import {
  call,
  createFileSource,
  createTextSource,
  documents,
  getSource,
  waitForSettled,
} from "../ingestion/source-helpers.ts";

let server: TestServer;
let ownerA: string;
let ownerB: string;

beforeAll(async () => {
  server = await startTestServer({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" });
  ownerA = (await server.login()).access;
  await server.createUser("tenant-b@example.com");
  ownerB = (await server.login("tenant-b@example.com", DEFAULT_PASSWORD)).access;
});
afterAll(() => server?.close());

/** Waits until the source is ready and says how long that took from `since`. */
async function readyAfter(token: string, id: string, since: number, timeout: number): Promise<number> {
  let last = "";
  await until(
    async () => {
      const source = await getSource(server, token, id);
      last = `${source.status} ${source.lastError ?? ""}`;
      return source.status === "ready";
    },
    { timeout, interval: 50, what: () => `source ${id} to be ready (last: ${last})` },
  );
  return Date.now() - since;
}

describe("fair parsing across workspaces", { timeout: 120_000 }, () => {
  it("indexes another workspace's one-entry source and one-line file while hostile HTML and DOCX are parsed", async () => {
    // The nested-<w:p> file as HTML: 200,000 nested <div> (2.2 MB) held a parse thread 97 s
    // and then overflowed its stack; two of them kept every other workspace's source queued.
    const nested = `<html><body>${"<div>".repeat(200_000)}deep${"</div>".repeat(200_000)}</body></html>`;
    // And the issue's own file: a 33 KB DOCX of 2 million nested <w:p>.
    const docx = makeDocx(
      `${"<w:p>".repeat(2_000_000)}<w:r><w:t>deep</w:t></w:r>${"</w:p>".repeat(2_000_000)}`,
    );
    const hostile = await createFileSource(server, ownerA, "Hostile pages", [
      { name: "one.html", bytes: nested, type: "text/html" },
      { name: "two.html", bytes: nested, type: "text/html" },
      { name: "deep.docx", bytes: docx },
    ]);
    expect(hostile.status).toBe(201);
    const started = Date.now();
    const entry = await createTextSource(server, ownerB, "Opening hours", [
      { title: "Hours", content: "The shop opens at nine and closes at five." },
    ]);
    const file = await createFileSource(server, ownerB, "Returns note", [
      { name: "returns.md", bytes: "Returns are accepted within thirty days.\n", type: "text/markdown" },
    ]);
    expect(file.status).toBe(201);
    // The goal is 10 s (6–16 s here, mostly starting parse threads at a load average of 20–29);
    // the margin allows for this shared machine. On main: minutes (97 s per file, then retries).
    const entryMs = await readyAfter(ownerB, entry.id, started, 30_000);
    const fileMs = await readyAfter(ownerB, file.body.id, started, 30_000);
    console.log(`another workspace's entry ready after ${entryMs} ms, its .md file after ${fileMs} ms`);

    const settled = await waitForSettled(server, ownerA, hostile.body.id, 60_000);
    expect(settled.status).toBe("failed");
    const docs = await documents(server, ownerA, hostile.body.id);
    expect(docs.map((d) => [d.title, d.status, d.error]).sort()).toEqual([
      ["deep.docx", "failed", "the document nests elements deeper than 256 levels"],
      ["one.html", "failed", "the document nests elements deeper than 1000 levels"],
      ["two.html", "failed", "the document nests elements deeper than 1000 levels"],
    ]);
  });

  describe("while one workspace's sync waits on a site that does not answer", () => {
    let site: Server;
    const held: ServerResponse[] = [];

    beforeAll(async () => {
      site = createServer((_req: IncomingMessage, res: ServerResponse) => {
        held.push(res);
      });
      await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    });
    afterAll(async () => {
      for (const res of held) res.destroy();
      await new Promise<void>((resolve) => site.close(() => resolve()));
    });

    it("starts and finishes another workspace's sync", async () => {
      const { port } = site.address() as AddressInfo;
      const slow = await call<DataSource>(server, "POST", "/data-sources/", ownerA, {
        name: "Slow site",
        type: "web",
        config: { url: `http://127.0.0.1:${port}/`, mode: "page" },
      });
      expect(slow.status).toBe(201);
      await until(() => held.length > 0, { timeout: 30_000, what: "the slow site to be asked" });
      const started = Date.now();
      const entry = await createTextSource(server, ownerB, "Delivery", [
        { title: "Delivery", content: "Parcels leave the warehouse every weekday." },
      ]);
      // The site holds its answer past the 30 s outbound timeout; on main this waited behind it.
      const ms = await readyAfter(ownerB, entry.id, started, 25_000);
      console.log(`another workspace's source ready after ${ms} ms while a sync waits on a silent site`);
      expect((await getSource(server, ownerA, slow.body.id)).status).toBe("syncing");
    });
  });
});
