import { readFileSync } from "node:fs";
import { join } from "node:path";
import { apiRoutes } from "@lore/server/api.ts";
import { statusByCode } from "@lore/server/errors.ts";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/server.ts";

const doc = readFileSync(join(repoRoot, "docs/api.md"), "utf8");

describe("docs/api.md", () => {
  it("lists every error code with the status the server answers it with, and no other", () => {
    // Cells may be padded (Biome formats Markdown tables).
    const rows = [...doc.matchAll(/^\| *`([a-z_]+)` *\| *(\d{3}) *\|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(statusByCode);
    expect(rows).toHaveLength(Object.keys(statusByCode).length);
  });

  it("documents every declared endpoint", () => {
    const documented = new Set(
      [...doc.matchAll(/^\| *(GET|POST|PUT|PATCH|DELETE) *\| *`([^`]+)`/gm)].map((m) => `${m[1]} ${m[2]}`),
    );
    const missing = apiRoutes
      .map((r) => `${r.method.toUpperCase()} ${r.path}`)
      .filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
  });
});
