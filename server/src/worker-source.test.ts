import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { useBuiltWorkers, workerSource } from "./worker-source.ts";

describe("a worker thread's bootstrap", () => {
  const build = mkdtempSync(join(tmpdir(), "lore-built-workers-"));
  afterAll(() => rmSync(build, { recursive: true, force: true }));
  const entry = new URL("./sources/parsing/parse-worker.ts", import.meta.url);
  const besideSource = new URL("./sources/parsing/parse-worker.mjs", import.meta.url);

  it("transpiles the source tree's worker without a build, and imports a build's worker once told where it is", () => {
    expect(workerSource(besideSource, entry)).toContain("tsx.register()");

    writeFileSync(join(build, "parse-worker.mjs"), "");
    useBuiltWorkers(build);
    const built = pathToFileURL(join(build, "parse-worker.mjs")).href;
    expect(workerSource(besideSource, entry)).toBe(`import(${JSON.stringify(built)});`);
    // A worker the build lacks still starts from source.
    const scan = new URL("./retrieval/scan-worker.ts", import.meta.url);
    expect(workerSource(new URL("./retrieval/scan-worker.mjs", import.meta.url), scan)).toContain(
      "tsx.register()",
    );
  });
});
