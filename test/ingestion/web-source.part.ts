import { errorBodySchema } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fakes/web-site.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, documents, search, syncRuns, waitForSettled } from "./source-helpers.ts";

let site: TestSite;
let server: TestServer;
let token: string;

beforeAll(async () => {
  site = await startTestSite();
  server = await startTestServer({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" });
  token = (await server.login()).access;
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

describe("web source", () => {
  it("ingests a site from its sitemap, honours robots.txt, strips boilerplate and re-syncs incrementally", async () => {
    const created = await call<{ id: string; status: string }>(server, "POST", "/data-sources/", token, {
      name: "Test site",
      type: "web",
      config: { url: `${site.url}/sitemap.xml`, mode: "sitemap", maxPages: 50 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const source = await waitForSettled(server, token, created.body.id);
    expect(source.status).toBe("ready");
    const docs = await documents(server, token, source.id);
    const urls = docs.map((d) => d.sourceUrl ?? "");
    expect(urls).toContain(`${site.url}/docs/install`);
    expect(urls.some((u) => u.includes("/private/"))).toBe(false);
    expect(site.requests.some((r) => r.startsWith("/private/"))).toBe(false);
    // The print copy declares /docs/install canonical: indexed once.
    expect(urls.filter((u) => u.includes("/docs/install")).length).toBe(1);
    expect(docs.find((d) => d.sourceUrl?.endsWith(".pdf"))?.kind).toBe("pdf");

    const agent = await createAgent(server, token, { dataSourceIds: [source.id] });
    const hit = (await search(server, token, agent.id, "how long does installation take")).results[0];
    expect(hit).toMatchObject({ sourceUrl: `${site.url}/docs/install`, dataSourceType: "web" });
    const boilerplate = (
      await search(server, token, agent.id, "This site uses cookies Copyright Test Site Inc")
    ).results;
    expect(boilerplate.every((r) => !/cookies|Copyright/.test(r.content))).toBe(true);
    const answer = await call<{ response: string; sources: Array<{ sourceUrl: string }> }>(
      server,
      "POST",
      `/agents/${agent.id}/query/`,
      token,
      { message: "How long does the installation take?" },
    );
    expect(answer.body.response).toMatch(/four minutes/);
    expect(answer.body.sources[0]?.sourceUrl).toBe(`${site.url}/docs/install`);

    await call(server, "POST", `/data-sources/${source.id}/sync/`, token);
    await waitForSettled(server, token, source.id);
    const unchanged = (await syncRuns(server, token, source.id))[0];
    expect(unchanged).toMatchObject({
      status: "completed",
      added: 0,
      updated: 0,
      removed: 0,
      failed: 0,
      unchanged: docs.length,
    });

    site.setPage("/docs/configure", {
      title: "Configure",
      html: "<h1>Configure</h1><p>Set the colour of the launcher in the appearance tab.</p>",
    });
    site.removePage("/docs/guide");
    site.setPage("/docs/faq", {
      title: "FAQ",
      html: "<h1>FAQ</h1><p>The widget supports right to left languages.</p>",
    });
    await call(server, "POST", `/data-sources/${source.id}/sync/`, token);
    await waitForSettled(server, token, source.id);
    expect((await syncRuns(server, token, source.id))[0]).toMatchObject({
      status: "completed",
      added: 1,
      updated: 1,
      removed: 1,
      unchanged: docs.length - 2,
    });
    expect((await search(server, token, agent.id, "right to left languages")).results[0]?.sourceUrl).toBe(
      `${site.url}/docs/faq`,
    );
    expect(
      (await search(server, token, agent.id, "advanced usage guide")).results.some((r) =>
        r.sourceUrl.endsWith("/docs/guide"),
      ),
    ).toBe(false);
  });
});

describe("outbound guard", () => {
  it("refuses a loopback site that is not allow-listed", async () => {
    const guarded = await startTestServer();
    try {
      const t = (await guarded.login()).access;
      const before = site.requests.length;
      const res = await call(guarded, "POST", "/data-sources/", t, {
        name: "Loopback",
        type: "web",
        config: { url: `${site.url}/`, mode: "page" },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(errorBodySchema.parse(res.body).details)).toMatch(/loopback/);
      expect(site.requests.length).toBe(before);
    } finally {
      await guarded.close();
    }
  });
});
