import { readFileSync } from "node:fs";
import { join } from "node:path";
import { statusByCode } from "@lore/server/errors.ts";
import { routesTable } from "@lore/server/openapi/routes-table.ts";
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

  it("documents every endpoint of the routes table", () => {
    const documented = new Set(
      [...doc.matchAll(/^\| *(GET|POST|PATCH|DELETE) *\| *`([^`]+)`/gm)].map((m) => `${m[1]} ${m[2]}`),
    );
    const missing = routesTable
      .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/^~/, "")}`)
      .filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
  });
});
