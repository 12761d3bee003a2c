import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createContext, runInContext } from "node:vm";
import { describe, expect, it } from "vitest";

// The built loader shares the host page's global scope: it must declare nothing there but
// `window.LoreWidget`, or a page script declaring the same short name (`const T`, `let d`) breaks
// with "Identifier has already been declared", whichever of the two runs second.
const loaderPath = join(resolve(import.meta.dirname, "../dist"), "widget.js");

/** A global scope like a page's, with the few things the loader reads before it mounts anything. */
function pageScope(): Record<string, unknown> {
  const scope: Record<string, unknown> = {
    document: { currentScript: null },
    location: { href: "https://shop.example/" },
  };
  scope.window = scope;
  return createContext(scope);
}

describe.skipIf(!existsSync(loaderPath))("the built loader in a host page", () => {
  const loader = readFileSync(loaderPath, "utf8");

  it("adds only window.LoreWidget to the page's globals", () => {
    const scope = pageScope();
    const before = new Set(Object.keys(scope));
    runInContext(loader, scope);
    expect(Object.keys(scope).filter((k) => !before.has(k))).toEqual(["LoreWidget"]);
  });

  it("runs beside page scripts that declare short top-level names, before or after them", () => {
    const names = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");
    const pageScript = `${names.map((n) => `const ${n}=1;`).join("")}`;
    const first = pageScope();
    runInContext(pageScript, first);
    expect(() => runInContext(loader, first)).not.toThrow();
    const second = pageScope();
    runInContext(loader, second);
    expect(() => runInContext(pageScript, second)).not.toThrow();
  });
});
