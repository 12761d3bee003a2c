import {
  type DataSource,
  errorBodySchema,
  type Page,
  type ReplaceFileResponse,
  type SourceDocument,
  type UploadFilesResponse,
  type UploadLimits,
} from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpRequest, startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, createFileSource, documents, search, waitForSettled } from "./source-helpers.ts";

const MAX_UPLOAD = 64 * 1024;
let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ LORE_MAX_UPLOAD_BYTES: String(MAX_UPLOAD) });
  token = (await server.login()).access;
});
afterAll(() => server?.close());

/** A Markdown guide of four short sections under one title. */
const guide = [
  "# Kettle guide",
  "",
  "## Filling",
  "",
  "Fill the kettle to the line marked MAX, never above it.",
  "",
  "## Boiling",
  "",
  "Press the switch once; the light turns blue while it heats.",
  "",
  "## Descaling",
  "",
  "Descale every month with white vinegar and rinse twice.",
  "",
  "## Warranty",
  "",
  "The warranty lasts two years from the date on the receipt.",
  "",
].join("\n");

function form(parts: Array<{ field?: string; name: string; body: string }>): FormData {
  const f = new FormData();
  for (const p of parts) f.append(p.field ?? "files", new Blob([p.body], { type: "text/plain" }), p.name);
  return f;
}

function expectError(res: { status: number; body: unknown }, status: number, error: string): void {
  expect(res.status).toBe(status);
  const body = errorBodySchema.parse(res.body);
  expect(body.error).toBe(error);
  expect(body.message).toEqual(expect.any(String));
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/);
}

describe("file sources edited in place", () => {
  let source: DataSource;
  let agentId: string;

  beforeAll(async () => {
    const res = await createFileSource(server, token, "Kettle", [{ name: "kettle.md", bytes: guide }]);
    expect(res.status).toBe(201);
    source = res.body;
    await waitForSettled(server, token, source.id);
    agentId = (await createAgent(server, token, { name: "Kettle agent", dataSourceIds: [source.id] })).id;
  });

  it("tells a signed-in user the upload limit and the file types", async () => {
    const res = await call<UploadLimits>(server, "GET", "/data-sources/limits/", token);
    expect(res.status).toBe(200);
    expect(res.body.maxUploadBytes).toBe(MAX_UPLOAD);
    expect(res.body.supportedExtensions).toEqual(expect.arrayContaining([".md", ".pdf", ".docx"]));
    expectError(await call(server, "GET", "/data-sources/limits/"), 401, "not_authenticated");
  });

  it("chunks a small four-section Markdown file at its headings and lists them", async () => {
    const [doc] = await documents(server, token, source.id);
    expect(doc?.chunkCount).toBe(4);
    expect(doc?.sections).toEqual([
      "Kettle guide > Filling",
      "Kettle guide > Boiling",
      "Kettle guide > Descaling",
      "Kettle guide > Warranty",
    ]);
  });

  it("cites the section that holds the answer", async () => {
    const [hit] = (await search(server, token, agentId, "descale vinegar")).results;
    expect(hit?.headingPath).toEqual(["Kettle guide", "Descaling"]);
    expect(hit?.content).toMatch(/white vinegar/);
    expect(hit?.content).not.toMatch(/warranty/i);
    const query = await call<{ response: string; sources: Array<{ headingPath?: string[] }> }>(
      server,
      "POST",
      `/agents/${agentId}/query/`,
      token,
      { message: "How long does the warranty last from the date on the receipt?" },
    );
    expect(query.status).toBe(200);
    expect(query.body).toMatchObject({
      response: expect.stringMatching(/two years/),
      sources: [expect.objectContaining({ headingPath: ["Kettle guide", "Warranty"] })],
    });
  });

  it("takes more files, then replaces one: the old version is never cited again", async () => {
    const added = await httpRequest<UploadFilesResponse>(
      server.api,
      "POST",
      `/data-sources/${source.id}/files/`,
      {
        token,
        body: form([{ name: "mugs.txt", body: "Mugs go on the top shelf of the cupboard." }]),
      },
    );
    expect(added.status).toBe(201);
    await waitForSettled(server, token, source.id);
    expect((await search(server, token, agentId, "mugs top shelf")).results[0]?.content).toMatch(/top shelf/);

    const mugs = added.body.documents[0];
    const replaced = await httpRequest<ReplaceFileResponse>(
      server.api,
      "PUT",
      `/data-sources/${source.id}/files/${mugs?.id}/`,
      {
        token,
        body: form([
          { field: "file", name: "mugs-v2.txt", body: "Mugs now live in the drawer by the sink." },
        ]),
      },
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.document).toMatchObject({ id: mugs?.id, title: "mugs-v2.txt", status: "pending" });
    expect(replaced.body.syncRun.trigger).toBe("files");
    // From the call on, the old text is gone.
    const stale = (await search(server, token, agentId, "mugs top shelf cupboard")).results;
    expect(stale.some((r) => /top shelf/.test(r.content))).toBe(false);

    const settled = await waitForSettled(server, token, source.id);
    expect(settled.documentCount).toBe(2);
    expect((await search(server, token, agentId, "mugs drawer sink")).results[0]?.content).toMatch(/drawer/);
    const docs = await documents(server, token, source.id);
    expect(docs.map((d) => [d.title, d.status])).toEqual([
      ["Kettle guide", "indexed"],
      ["mugs v2", "indexed"],
    ]);
  });

  it("refuses a replacement that is not exactly one supported, non-empty file within the cap", async () => {
    const [doc] = await documents(server, token, source.id);
    const path = `/data-sources/${source.id}/files/${doc?.id}/`;
    const put = (body: unknown) => httpRequest(server.api, "PUT", path, { token, body });

    expectError(await put({ name: "json" }), 415, "unsupported_media_type");
    expectError(await put(new FormData()), 400, "validation_error");
    const two = await put(
      form([
        { name: "a.txt", body: "one" },
        { name: "b.txt", body: "two" },
      ]),
    );
    expectError(two, 400, "validation_error");
    expect(two.body).toMatchObject({ details: { fields: { file: [expect.any(String)] } } });
    expectError(await put(form([{ name: "empty.txt", body: "" }])), 400, "validation_error");
    const zip = new FormData();
    zip.append("file", new Blob([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0])]), "x.zip");
    expectError(await put(zip), 415, "unsupported_media_type");
    const big = await put(form([{ name: "big.txt", body: "word ".repeat(MAX_UPLOAD / 4) }]));
    expectError(big, 413, "payload_too_large");
    expect(big.body).toMatchObject({ details: { maxBytes: MAX_UPLOAD } });
    expectError(
      await httpRequest(server.api, "PUT", `/data-sources/${source.id}/files/${crypto.randomUUID()}/`, {
        token,
        body: form([{ name: "a.txt", body: "one" }]),
      }),
      404,
      "not_found",
    );
    // Nothing refused touched the file.
    const after = await documents(server, token, source.id);
    expect(after[0]).toMatchObject({ id: doc?.id, title: "Kettle guide", status: "indexed", chunkCount: 4 });
  });

  it("refuses to replace a file of a source that is not a file source", async () => {
    const text = await call<DataSource>(server, "POST", "/data-sources/", token, {
      name: "Notes",
      type: "text",
      config: { entries: [{ title: "Note", content: "A note." }] },
    });
    await waitForSettled(server, token, text.body.id);
    const page = await call<Page<SourceDocument>>(
      server,
      "GET",
      `/data-sources/${text.body.id}/documents/`,
      token,
    );
    const res = await httpRequest(
      server.api,
      "PUT",
      `/data-sources/${text.body.id}/files/${page.body.results[0]?.id}/`,
      { token, body: form([{ name: "a.txt", body: "one" }]) },
    );
    expectError(res, 400, "validation_error");
  });
});
