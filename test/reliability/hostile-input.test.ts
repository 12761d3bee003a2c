/**
 * Hostile input: encrypted, truncated and damaged PDFs (and, with the public datasets, every real PDF of py-pdf/sample-files), a DOCX decompression bomb, a 1 GB streamed upload,
 * lying extensions, empty files, pathological JSON, forged credentials and look-alike origins.
 * Each gets the right status and the one error body; nothing crashes; the server stays healthy.
 */

import { readdirSync, readFileSync, statSync } from "node:fs";
import { request as httpRequestRaw } from "node:http";
import { join } from "node:path";
import { type Agent, type ErrorCode, errorBodySchema } from "@lore/shared";
import { Zip, ZipDeflate } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { datasetPath, hasDatasets } from "../../bench/src/datasets.ts";
import { makePdf, truncatePdf } from "../fixtures/pdf.ts";
import type { TestResponse, TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import {
  createAgent,
  createFileSource,
  documents,
  readyTextSource,
  search,
  syncRuns,
  waitForSettled,
} from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agent: Agent;
let bomb: Uint8Array;

beforeAll(async () => {
  // Built before the server starts: compressing blocks the event loop the in-process server shares.
  bomb = await docxBomb(101);
  ({ server, token, agent } = await startServerWithAgent({
    env: { LORE_LOG_LEVEL: "error" },
    source: {
      name: "Hostile facts",
      entries: [{ title: "Tea", content: "Green tea is steeped at eighty degrees for two minutes." }],
    },
    agent: {
      name: "Hostile agent",
      allowedOrigins: ["https://allowed.com"],
    },
  }));
}, 120_000);

afterAll(async () => {
  await server?.close();
});

function expectError(res: TestResponse, status: number, code: ErrorCode): void {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
  const body = errorBodySchema.parse(res.body);
  expect(body.error).toBe(code);
  expect(JSON.stringify(body)).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

async function expectHealthy(): Promise<void> {
  const res = await server.request("GET", `${server.url}/healthz`);
  expect(res.status).toBe(200);
  const answer = await server.request<{ response: string }>("POST", `/agents/${agent.id}/query/`, {
    token,
    body: { message: "How long is green tea steeped?" },
  });
  expect(answer.status).toBe(200);
  expect(answer.body.response).toMatch(/two minutes/);
}

function listPdfs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listPdfs(path));
    else if (name.toLowerCase().endsWith(".pdf")) out.push(path);
  }
  return out.sort();
}

/** A .docx whose word/document.xml inflates to `mb` MiB, compressed by fflate chunk by chunk (never whole in memory). */
function docxBomb(mb: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((error, data, final) => {
      if (error) return reject(error);
      parts.push(data);
      if (final) resolve(Buffer.concat(parts));
    });
    const types = new ZipDeflate("[Content_Types].xml");
    zip.add(types);
    types.push(
      new TextEncoder().encode(
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
      true,
    );
    const doc = new ZipDeflate("word/document.xml", { level: 1 });
    zip.add(doc);
    const chunk = new TextEncoder().encode(
      "<w:p><w:r><w:t>bomb</w:t></w:r></w:p>".repeat(Math.ceil((1024 * 1024) / 38)).slice(0, 1024 * 1024),
    );
    doc.push(
      new TextEncoder().encode(
        '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>',
      ),
    );
    for (let i = 0; i < mb; i++) doc.push(chunk);
    doc.push(new TextEncoder().encode("</w:body></w:document>"), true);
    zip.end();
  });
}

/** Deterministic noise (a linear congruential generator), so a failure reproduces. */
function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0, x = seed; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x & 255;
  }
  return out;
}

const fourPages = makePdf([["Page one of four."], ["Page two."], ["Page three."], ["Page four."]], {
  title: "Four pages",
});
const pdfPages = (topic: string) => [
  [`The ${topic} chapter opens here.`],
  [`The ${topic} chapter ends here.`],
];
/** Broken and locked PDFs as uploads bring them, each with what Lore must make of it. */
const hostilePdfs: { name: string; bytes: Uint8Array; outcome: RegExp | "indexed" }[] = [
  {
    name: "locked-rc4.pdf",
    bytes: makePdf(pdfPages("locked"), { encrypt: { cipher: "rc4-128", userPassword: "openpassword" } }),
    outcome: /encrypted PDF: a password is required/,
  },
  {
    name: "locked-aes256.pdf",
    bytes: makePdf(pdfPages("sealed"), { encrypt: { cipher: "aes-256", userPassword: "openpassword" } }),
    outcome: /encrypted PDF: a password is required/,
  },
  { name: "cut-in-half.pdf", bytes: truncatePdf(fourPages, fourPages.length >> 1), outcome: /malformed PDF/ },
  {
    name: "cut-before-trailer.pdf",
    bytes: truncatePdf(fourPages, fourPages.length - 60),
    outcome: /malformed PDF/,
  },
  {
    name: "dangling-root.pdf",
    bytes: makePdf(pdfPages("rootless"), { damage: "dangling-root" }),
    outcome: /malformed PDF/,
  },
  {
    name: "noise.pdf",
    bytes: new Uint8Array([...new TextEncoder().encode("%PDF-1.7\n"), ...noise(4000, 7)]),
    outcome: /malformed PDF/,
  },
  { name: "header-only.pdf", bytes: new TextEncoder().encode("%PDF-1.4\n%%EOF\n"), outcome: /malformed PDF/ },
  {
    name: "scanned.pdf",
    bytes: makePdf([[{ image: { width: 48, height: 64 } }], [{ image: { width: 48, height: 64 } }]]),
    outcome: /no text layer in 2 page/,
  },
  {
    name: "wrong-xref.pdf",
    bytes: makePdf(pdfPages("misnumbered"), { damage: "xref-offsets" }),
    outcome: "indexed",
  },
  {
    name: "lost-startxref.pdf",
    bytes: makePdf(pdfPages("unanchored"), { damage: "startxref" }),
    outcome: "indexed",
  },
  {
    name: "photo-with-caption.pdf",
    bytes: makePdf([[{ image: { width: 64, height: 48 } }, "The captioned photograph shows the hangar."]]),
    outcome: "indexed",
  },
];

describe("uploads", () => {
  it("indexes or fails with the reason each encrypted, truncated and damaged PDF, and the sync completes", async () => {
    const created = await createFileSource(
      server,
      token,
      "hostile PDFs",
      hostilePdfs.map(({ name, bytes }) => ({ name, bytes, type: "application/pdf" })),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const source = await waitForSettled(server, token, created.body.id, 60_000);
    const docs = await documents(server, token, source.id);
    expect(docs).toHaveLength(hostilePdfs.length);
    for (const { name, outcome } of hostilePdfs) {
      // Titled after the file: "wrong-xref.pdf" (failed) or "wrong xref" (indexed, as the server titles files).
      const stem = (title: string) => title.replace(/\.pdf$/, "").replace(/[_-]+/g, " ");
      const doc = docs.find((d) => stem(d.title) === stem(name));
      if (outcome === "indexed") {
        expect(doc?.status, name).toBe("indexed");
        expect(doc?.chunkCount, name).toBeGreaterThan(0);
      } else {
        expect(doc?.status, name).toBe("failed");
        expect(doc?.error, name).toMatch(outcome);
        expect(doc?.chunkCount, name).toBe(0);
      }
    }
    const runs = await syncRuns(server, token, source.id);
    expect(runs[0]).toMatchObject({ status: "completed", added: 3, failed: 8 });
    expect(source.status).toBe("ready");
    // What the damaged-but-readable files say is searchable; what the locked ones hide is not.
    const reader = await createAgent(server, token, { name: "PDF reader", dataSourceIds: [source.id] });
    const texts = async (q: string) =>
      (await search(server, token, reader.id, q)).results.map((r) => r.content);
    expect((await texts("misnumbered chapter")).join(" ")).toMatch(/misnumbered chapter ends here/);
    expect((await texts("unanchored chapter")).join(" ")).toMatch(/unanchored chapter opens here/);
    expect((await texts("captioned photograph hangar")).join(" ")).toMatch(/hangar/);
    expect((await texts("locked sealed chapter")).join(" ")).not.toMatch(/locked|sealed/);
    await expectHealthy();
  }, 90_000);

  it.runIf(hasDatasets("the upload of every PDF of py-pdf/sample-files", "py-pdf-sample-files"))(
    "indexes or fails with a reason every PDF of py-pdf/sample-files (public dataset; encrypted and broken included)",
    async () => {
      const dir = datasetPath("py-pdf-sample-files");
      const pdfs = listPdfs(dir);
      expect(pdfs.length).toBeGreaterThanOrEqual(30);
      const files = pdfs.map((p) => ({
        name: p.slice(dir.length + 1).replaceAll("/", "__"),
        bytes: new Uint8Array(readFileSync(p)),
        type: "application/pdf",
      }));
      const created = await createFileSource(server, token, "py-pdf samples", files);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const source = await waitForSettled(server, token, created.body.id, 170_000);
      const docs = await documents(server, token, source.id);
      expect(docs).toHaveLength(pdfs.length);
      for (const doc of docs) {
        if (doc.status === "failed") expect(doc.error, doc.title).toMatch(/\w{3}/);
        else expect(doc.status, doc.title).toBe("indexed");
      }
      const indexed = docs.filter((d) => d.status === "indexed");
      expect(indexed.length).toBeGreaterThan(pdfs.length / 2);
      const runs = await syncRuns(server, token, source.id);
      expect(runs[0]?.status).toBe("completed");
      expect(source.status).toBe("ready");
      await expectHealthy();
    },
    180_000,
  );

  it("fails a DOCX decompression bomb (a small zip inflating past 100 MB) without a memory blow-up", async () => {
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    try {
      const created = await createFileSource(server, token, "bomb", [{ name: "bomb.docx", bytes: bomb }]);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const source = await waitForSettled(server, token, created.body.id, 60_000);
      const [doc] = await documents(server, token, source.id);
      expect(doc?.status).toBe("failed");
      expect(doc?.error).toMatch(/bytes|large|bomb/i);
      expect(source.status).toBe("failed");
    } finally {
      clearInterval(sampler);
    }
    // The inflate stops at the parser's cap (50 MB): far from the 101 MB the bomb would need.
    expect(peak - before).toBeLessThan(400 * 1024 * 1024);
    await expectHealthy();
  }, 90_000);

  it("cuts a 1 GB streamed upload at the cap with 413, without buffering it", async () => {
    const CHUNK = 1024 * 1024;
    const block = new Uint8Array(CHUNK).fill(0x61);
    let sent = 0;
    const boundary = "----lore-hostile";
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nhuge\r\n--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nfile\r\n--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="huge.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      pull(controller) {
        if (sent >= 1024 * CHUNK) return controller.close();
        sent += CHUNK;
        controller.enqueue(block);
      },
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    let status = 0;
    let text = "";
    try {
      const res = await fetch(`${server.api}/data-sources/`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": `multipart/form-data; boundary=${boundary}`,
        },
        body,
        duplex: "half",
      } as RequestInit & { duplex: "half" });
      status = res.status;
      text = await res.text();
    } catch (error) {
      // The server may close the socket after answering; the answer must have been a 413 then.
      throw new Error(`upload failed after ${sent} bytes: ${String(error)}`);
    } finally {
      clearInterval(sampler);
    }
    expect(status, text).toBe(413);
    expect(errorBodySchema.parse(JSON.parse(text)).error).toBe("payload_too_large");
    expect(sent).toBeLessThan(400 * CHUNK); // refused long before the gigabyte
    expect(peak - before).toBeLessThan(500 * 1024 * 1024);
    await expectHealthy();
  }, 120_000);

  it("refuses a declared 1 GB body at once from its Content-Length", async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(`${server.api}/data-sources/`);
      const req = httpRequestRaw(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: {
            Authorization: `Bearer ${token}`,
            "Content-Type": "multipart/form-data; boundary=x",
            "Content-Length": String(1024 ** 3),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      req.write("--x\r\n"); // a few bytes, then wait: the answer must come without the rest
    });
    expect(status).toBe(413);
    expect(errorBodySchema.parse(JSON.parse(body)).error).toBe("payload_too_large");
  });

  it("treats wrong extensions by content: binaries refused with 415, a fake PDF failed with a reason", async () => {
    const exe = await createFileSource(server, token, "exe", [
      {
        name: "setup.exe",
        bytes: new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0, 0]),
      },
    ]);
    expectError(exe, 415, "unsupported_media_type");
    const elf = await createFileSource(server, token, "elf", [
      {
        name: "notes.txt",
        bytes: new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe]),
      },
    ]);
    expectError(elf, 415, "unsupported_media_type");

    const fake = await createFileSource(server, token, "fake pdf", [
      { name: "report.pdf", bytes: "%PDF-1.7\nthis is not really a PDF\n%%EOF", type: "application/pdf" },
    ]);
    expect(fake.status, JSON.stringify(fake.body)).toBe(201);
    const source = await waitForSettled(server, token, fake.body.id);
    const [doc] = await documents(server, token, source.id);
    expect(doc?.status).toBe("failed");
    expect(doc?.error).toMatch(/\w{3}/);

    // Text with a misleading extension is read as what it is.
    const md = await createFileSource(server, token, "md as csv", [
      { name: "table.csv", bytes: "# Heading\n\nPlain paragraph about otters." },
    ]);
    expect(md.status).toBe(201);
    const mdSource = await waitForSettled(server, token, md.body.id);
    expect((await documents(server, token, mdSource.id))[0]?.status).toBe("indexed");
    await expectHealthy();
  }, 60_000);

  it("refuses empty files with 400 naming the file", async () => {
    const res = await createFileSource(server, token, "empty", [
      { name: "empty.txt", bytes: new Uint8Array(0) },
    ]);
    expectError(res, 400, "validation_error");
    expect(JSON.stringify(res.body)).toContain("empty.txt");
    const noFiles = new FormData();
    noFiles.set("name", "none");
    noFiles.set("type", "file");
    expectError(
      await server.request("POST", "/data-sources/", { token, body: noFiles }),
      400,
      "validation_error",
    );
  });
});

describe("JSON bodies", () => {
  const post = (path: string, body: string | Uint8Array, method = "POST") =>
    server.request(method, path, { token, body, headers: { "Content-Type": "application/json" } });

  it("refuses 100k levels of nesting with 400", async () => {
    expectError(await post("/agents/", "[".repeat(100_000) + "]".repeat(100_000)), 400, "validation_error");
    expectError(
      await post("/agents/", `{"name":"deep","x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`),
      400,
      "validation_error",
    );
    expectError(await post("/agents/", `{"name":${"[".repeat(100_000)}`), 400, "validation_error");
    // A free-form field (a source's config) must not take the nesting into storage either.
    const source = await readyTextSource(server, token, "nest", [{ title: "N", content: "nesting target" }]);
    const deep = `{"config":{"entries":[{"title":"t","content":"c","x":${"[".repeat(100_000)}${"]".repeat(100_000)}}]}}`;
    const res = await post(`/data-sources/${source.id}/`, deep, "PATCH");
    expect(res.status).not.toBe(500);
    expectError(res, 400, "validation_error");
    await expectHealthy();
  });

  it("refuses a 10 MB string with 400 and a body over the JSON cap with 413", async () => {
    expectError(
      await post("/agents/", JSON.stringify({ name: "x".repeat(10 * 1024 * 1024) })),
      400,
      "validation_error",
    );
    expectError(
      await post("/agents/", JSON.stringify({ name: "x".repeat(13 * 1024 * 1024) })),
      413,
      "payload_too_large",
    );
    await expectHealthy();
  });

  it("refuses invalid UTF-8 and NUL characters with 400", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"name":"bad'),
      0xff,
      0xfe,
      0xc3,
      ...new TextEncoder().encode('"}'),
    ]);
    const invalid = await post("/agents/", bytes);
    expectError(invalid, 400, "validation_error");
    expect(JSON.stringify(invalid.body)).toMatch(/UTF-8/);
    const overlong = new Uint8Array([
      ...new TextEncoder().encode('{"name":"'),
      0xc0,
      0xaf,
      ...new TextEncoder().encode('"}'),
    ]);
    expectError(await post("/agents/", overlong), 400, "validation_error");
    expectError(await post("/agents/", JSON.stringify({ name: "nul\u0000byte" })), 400, "validation_error");
    expectError(await post("/agents/", '{"name":"raw\u0000nul"}'), 400, "validation_error");
    expectError(
      await post(
        "/data-sources/",
        JSON.stringify({
          name: "n",
          type: "text",
          config: { entries: [{ title: "t", content: "a\u0000b" }] },
        }),
      ),
      400,
      "validation_error",
    );
    expectError(
      await post(`/agents/${agent.id}/query/`, JSON.stringify({ message: "tea\u0000" })),
      400,
      "validation_error",
    );
  });

  it("refuses prototype-pollution keys anywhere in the body and pollutes nothing", async () => {
    for (const body of [
      '{"name":"p","__proto__":{"isAdmin":true}}',
      '{"name":"p","constructor":{"prototype":{"polluted":1}}}',
      '{"name":"p","theme":{"__proto__":{"polluted":1}}}',
      '{"name":"p","retrieval":{"constructor":{"prototype":{"topK":1}}}}',
    ]) {
      expectError(await post("/agents/", body), 400, "validation_error");
    }
    const patch = await post(`/agents/${agent.id}/`, '{"__proto__":{"allowedOrigins":["*"]}}', "PATCH");
    expectError(patch, 400, "validation_error");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    const after = await server.request<Agent>("GET", `/agents/${agent.id}/`, { token });
    expect(after.body.allowedOrigins).toEqual(["https://allowed.com"]);
  });
});

/** A JWT made by hand: header and payload as given, signature as given. */
function jwt(header: object, payload: object, signature = ""): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${enc(header)}.${enc(payload)}.${signature}`;
}

describe("credentials", () => {
  it("answers 401 invalid_token for alg none, a wrong signature, a refresh token, a visitor token and a deleted user's token", async () => {
    const login = await server.login();
    const [, payloadPart] = login.access.split(".");
    const claims = JSON.parse(Buffer.from(payloadPart ?? "", "base64url").toString()) as Record<
      string,
      unknown
    >;
    const forged = [
      jwt({ alg: "none", typ: "JWT" }, claims),
      jwt({ alg: "none", typ: "JWT" }, claims, "x"),
      jwt({ alg: "HS256", typ: "JWT" }, claims, "c2lnbmF0dXJl"),
      `${login.access.slice(0, -2)}${login.access.endsWith("AA") ? "BB" : "AA"}`,
      jwt({ alg: "HS512", typ: "JWT" }, claims, login.access.split(".")[2]),
      login.refresh,
      "not.a.jwt",
      "a",
    ];
    for (const bad of forged)
      expectError(await server.request("GET", "/agents/", { token: bad }), 401, "invalid_token");

    // A visitor token is signed by the same key but is not an access token.
    const widget = await server.request<{ visitorToken: string }>(
      "POST",
      `/widget/${agent.widgetId}/query/`,
      {
        body: { message: "tea" },
        headers: { Origin: "https://allowed.com" },
      },
    );
    expect(widget.status).toBe(200);
    expectError(
      await server.request("GET", "/agents/", { token: widget.body.visitorToken }),
      401,
      "invalid_token",
    );
    // …and an access token is no visitor token.
    expectError(
      await server.request("POST", `/widget/${agent.widgetId}/query/`, {
        body: { message: "tea", visitorToken: login.access },
        headers: { Origin: "https://allowed.com" },
      }),
      401,
      "invalid_token",
    );

    const doomed = await server.createUser("doomed@example.com");
    const doomedLogin = await server.login("doomed@example.com", "Tr0ub4dor-and-3");
    expect((await server.request("GET", "/agents/", { token: doomedLogin.access })).status).toBe(200);
    // No API deletes a user: the row goes directly, to see that the user's tokens die with it.
    await server.services.store.users.delete([doomed.id]);
    expectError(await server.request("GET", "/agents/", { token: doomedLogin.access }), 401, "invalid_token");
    expectError(
      await server.request("POST", "/auth/token/refresh/", { body: { refresh: doomedLogin.refresh } }),
      401,
      "invalid_token",
    );
  });

  it("answers 401 invalid_api_key for keys one character off, truncated or extended", async () => {
    const created = await server.request<{ key: string }>("POST", `/agents/${agent.id}/api-keys/`, {
      token,
      body: { name: "probe" },
    });
    expect(created.status).toBe(201);
    const key = created.body.key;
    expect((await server.request("GET", `/agents/${agent.id}/`, { token: key })).status).toBe(200);
    const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === "A" ? "B" : "A"}${s.slice(i + 1)}`;
    const variants = [
      flip(key, key.length - 1),
      flip(key, 8),
      flip(key, Math.floor(key.length / 2)),
      key.slice(0, -1),
      `${key}A`,
      key.toUpperCase().replace("LORE_SK_", "lore_sk_"),
      "lore_sk_",
    ];
    for (const bad of variants) {
      if (bad === key) continue;
      expectError(
        await server.request("GET", `/agents/${agent.id}/`, { token: bad }),
        401,
        "invalid_api_key",
      );
    }
  });
});

describe("widget origins", () => {
  it("answers 403 origin_not_allowed for origins that only look allowed", async () => {
    const lookalikes = [
      "https://evil-allowed.com",
      "https://allowed.com.evil.com",
      "null",
      "http://allowed.com",
      "https://allowed.com:8443",
      "https://sub.allowed.com",
      "https://allowed.co",
      "https://xn--allowed-7ya.com",
      "https://allowed.com@evil.com",
      "https://allowed.com%2eevil.com",
    ];
    for (const origin of lookalikes) {
      for (const [method, path, body] of [
        ["GET", `/widget/${agent.widgetId}/config/`, undefined],
        ["POST", `/widget/${agent.widgetId}/query/`, { message: "tea" }],
      ] as const) {
        const res = await server.request(method, path, { body, headers: { Origin: origin } });
        expectError(res, 403, "origin_not_allowed");
      }
    }
    // A Referer from a look-alike is no better than its Origin.
    expectError(
      await server.request("GET", `/widget/${agent.widgetId}/config/`, {
        headers: { Referer: "https://allowed.com.evil.com/page" },
      }),
      403,
      "origin_not_allowed",
    );
    const ok = await server.request("GET", `/widget/${agent.widgetId}/config/`, {
      headers: { Origin: "https://allowed.com" },
    });
    expect(ok.status).toBe(200);
  });
});
