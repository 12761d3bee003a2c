import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { LoginResponse, SearchResponse } from "@lore/shared";
import { afterAll, describe, expect, it } from "vitest";
import { makePdf } from "../fixtures/pdf.ts";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  httpRequest,
  makeTempDir,
  repoRoot,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server.ts";
import {
  call,
  createAgent,
  createFileSource,
  readyTextSource,
  waitForSettled,
} from "../ingestion/source-helpers.ts";

interface Stage {
  name: string;
  workdir: string;
  lines: string[];
}

/** The Dockerfile's stages with their instructions (continuation lines joined). */
function dockerStages(): Stage[] {
  const text = readFileSync(join(repoRoot, "Dockerfile"), "utf8").replace(/\\\n\s*/g, " ");
  const stages: Stage[] = [];
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (!line || line.startsWith("#")) continue;
    const from = /^FROM \S+ AS (\S+)$/i.exec(line);
    if (from?.[1]) stages.push({ name: from[1], workdir: "/", lines: [] });
    const stage = stages.at(-1);
    if (!stage) continue;
    const workdir = /^WORKDIR (\S+)$/.exec(line);
    if (workdir?.[1]) stage.workdir = workdir[1];
    stage.lines.push(line);
  }
  return stages;
}

const copyLine = /^COPY --from=(\S+) (\S+) (\S+)$/;

/**
 * Assembles the runtime stage's files in `root` without a container runtime: the build stage is
 * `npm run build` (here, scripts/build.mjs into a temp dir, the widget already built), the other
 * stages are replayed (their COPY --from lines and RUN commands) in a directory each, and the
 * runtime stage's COPY --from lines copy from those directories.
 */
function assembleRuntime(root: string): string {
  const stages = dockerStages();
  const build = stages.find((s) => s.name === "build");
  const runtime = stages.at(-1);
  if (!build || !runtime || runtime === build)
    throw new Error("Dockerfile: expected a build and a runtime stage");
  const built = join(root, "build-dist");
  const result = spawnSync(process.execPath, ["scripts/build.mjs", "--out", built], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`build failed:\n${result.stdout}${result.stderr}`);
  // A path inside a stage's file system, as a path here.
  const dirs = new Map<string, string>();
  const local = (stage: string, path: string): string => {
    if (stage === "build") {
      if (!path.startsWith("/src/dist")) throw new Error(`unexpected build path ${path}`);
      return join(built, path.slice("/src/dist".length));
    }
    const dir = dirs.get(stage);
    const workdir = stages.find((s) => s.name === stage)?.workdir;
    if (!dir || !workdir || !path.startsWith(workdir)) throw new Error(`unexpected path ${stage}:${path}`);
    return join(dir, path.slice(workdir.length));
  };
  const replay = (stage: Stage, dir: string) => {
    mkdirSync(dir, { recursive: true });
    dirs.set(stage.name, dir);
    for (const line of stage.lines) {
      const copy = copyLine.exec(line);
      if (copy?.[1] && copy[2] && copy[3]) {
        const from = local(copy[1], copy[2]);
        // `COPY file dir/` puts the file inside dir; `COPY dir/ dest` copies dir's contents.
        const into = join(dir, copy[3]);
        cpSync(from, copy[3].endsWith("/") && statSync(from).isFile() ? join(into, basename(from)) : into, {
          recursive: true,
          preserveTimestamps: true, // as COPY does
        });
        continue;
      }
      // The runtime stage's own RUN lines make its user and data dir: nothing to replay here.
      const run = /^RUN (npm .*)$/.exec(line);
      if (run?.[1] && stage !== runtime) {
        const done = spawnSync("sh", ["-c", run[1]], { cwd: dir, encoding: "utf8" });
        if (done.status !== 0) throw new Error(`${run[1]} failed:\n${done.stdout}${done.stderr}`);
      }
    }
  };
  for (const stage of stages) if (stage !== build) replay(stage, join(root, stage.name));
  return local(runtime.name, runtime.workdir);
}

const scratch = makeTempDir("lore-image-");
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the container image's files", { timeout: 300_000 }, () => {
  it("boot with production dependencies only: ready, login, widget, console, and a source synced through the bundled parse worker", async () => {
    const app = assembleRuntime(scratch);
    expect(existsSync(join(app, "lore.mjs"))).toBe(true);
    // Production dependencies only: no TypeScript runner, test runner or bundler, no source tree.
    for (const dev of ["tsx", "vitest", "typescript", "esbuild", "vite"])
      expect(existsSync(join(app, "node_modules", dev))).toBe(false);
    expect(existsSync(join(app, "node_modules", "@lancedb", "lancedb"))).toBe(true);
    expect(existsSync(join(app, "server"))).toBe(false);
    // The word vectors the install compiled: the container ranks English questions by meaning too.
    expect(existsSync(join(app, "dictionaries", "word-vectors-en.bin"))).toBe(true);

    server = await startServerProcess({}, { args: ["lore.mjs"], cwd: app });
    const ready = await httpRequest<{ status: string }>(server.url, "GET", "/readyz");
    expect(ready.status).toBe(200);
    const login = await httpRequest<LoginResponse>(server.api, "POST", "/auth/login/", {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    expect(login.status).toBe(200);

    const widget = await fetch(`${server.url}/widget.js`);
    expect(widget.status).toBe(200);
    expect(widget.headers.get("content-type")).toContain("javascript");
    const manifest = JSON.parse(readFileSync(join(app, "site", "widget", "manifest.json"), "utf8")) as {
      panel: { file: string };
    };
    expect((await fetch(`${server.url}/${manifest.panel.file}`)).status).toBe(200);
    const consolePage = await fetch(`${server.url}/console/`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toContain("<script");
    expect((await fetch(`${server.url}/`)).status).toBe(200);

    // Every document is parsed in the bundled worker; a PDF also exercises the bundled PDF parser.
    const token = login.body.access;
    const upload = await createFileSource(server, token, "Manual", [
      {
        name: "warranty.pdf",
        bytes: makePdf([["The warranty covers the espresso machine for two years."]]),
        type: "application/pdf",
      },
    ]);
    expect(upload.status).toBe(201);
    const pdf = await waitForSettled(server, token, upload.body.id);
    expect(pdf.status).toBe("ready");
    const text = await readyTextSource(server, token, "Policies", [
      { title: "Returns", content: "Returns are accepted within thirty days of delivery." },
    ]);
    const agent = await createAgent(server, token, { dataSourceIds: [pdf.id, text.id] });
    const ask = (query: string) =>
      call<SearchResponse>(server as ServerProcess, "POST", `/agents/${agent.id}/search/`, token, { query });
    expect(JSON.stringify((await ask("how long do I have to return an item")).body)).toContain("thirty days");
    expect(JSON.stringify((await ask("espresso machine warranty")).body)).toContain("two years");
  });
});
