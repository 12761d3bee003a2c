import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlobs, compileUrlGlobs, type MatchMeter, matchRobotsRule } from "./wildcard.ts";

const PATHS = [
  "/",
  "/docs",
  "/docs/",
  "/docs/a",
  "/docs/a/b",
  "/docs/a.html",
  "/docs/a/b.html",
  "/docsx",
  "/x/a.pdf",
  "/a.pdf",
  "/abc",
  "/bc",
  "/b/x",
  "/a/x",
  "/.hidden/a",
  "x.test/docs/a",
  "/a/b/c/d.md",
  "https://x.test/docs/guide?page=2",
  "/blog/2024/01/post",
  "/shop/item?id=3",
];
const GLOBS = [
  "/docs/**",
  "/docs/*",
  "**/a",
  "a/**/b",
  "**",
  "*.pdf",
  "/x/*.pdf",
  "**/*.pdf",
  "x.test/docs/**",
  "/a?c",
  "/[ab]c",
  "/[^a]c",
  "/{a,b}/x",
  "/docs/**/*.html",
  "/a*",
  "/docs/*/b",
  "/blog/*/*/*",
  "**/*.{md,html}",
  "/shop/item?id=*",
  "https://x.test/docs/**",
  "/.hidden/**",
  "/d?cs/**",
];

describe("globs without backtracking", () => {
  it("agrees with picomatch (dot: true) on the pattern shapes sources use", () => {
    for (const glob of GLOBS) {
      const ours = compileGlobs([glob]);
      const reference = picomatch(glob, { dot: true });
      for (const path of PATHS) expect([glob, path, ours(path)]).toEqual([glob, path, reference(path)]);
    }
  });

  it("reads [!a] as a negated class, as POSIX globs do (picomatch 4 reads it otherwise)", () => {
    expect(compileGlobs(["/[!a]c"])("/bc")).toBe(true);
    expect(compileGlobs(["/[!a]c"])("/ac")).toBe(false);
  });

  it("matches six nested wildcards against a long path in linear time", () => {
    // picomatch's RegExp took 121 s on this shape (issue #34).
    const matcher = compileGlobs(["**/*a*a*a*a*a*a*b"]);
    const path = `/${"a".repeat(2000)}`;
    const started = performance.now();
    expect(matcher(path)).toBe(false);
    expect(matcher(`${path}b`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("steps whole words of pattern positions per character and stops once none is live (issue #49)", () => {
    // The exclude list less its braces: four 483-character globs against a 2,000-character URL.
    const glob = `/*${"a*".repeat(240)}b`;
    const matcher = compileUrlGlobs([glob, glob, glob, glob]);
    const meter: MatchMeter = { spent: 0 };
    expect(matcher(new URL(`https://x.test/${"a".repeat(1990)}`), meter)).toBe(false);
    // 4 globs × 8 words (484 positions) × 1,991 characters; stepping positions one by one was 3.6 million.
    expect(meter.spent).toBe(4 * 8 * 1991);
    const dead: MatchMeter = { spent: 0 };
    expect(matcher(new URL(`https://x.test/b/${"a".repeat(1990)}`), dead)).toBe(false);
    expect(dead.spent).toBeLessThanOrEqual(4 * 8 * 3);
  });

  it("matches a URL once per glob, in the form the glob names", () => {
    const url = new URL("https://x.test/docs/a.pdf?v=1");
    expect(compileUrlGlobs(["/docs/*.pdf"])(url)).toBe(true);
    expect(compileUrlGlobs(["/docs/*.pdf?v=*"])(url)).toBe(true);
    expect(compileUrlGlobs(["https://x.test/docs/**"])(url)).toBe(true);
    expect(compileUrlGlobs(["x.test/docs/**"])(url)).toBe(true);
    expect(compileUrlGlobs(["**/*.pdf*"])(url)).toBe(true);
    expect(compileUrlGlobs(["/blog/**"])(url)).toBe(false);
  });

  it("never matches a URL longer than any crawl follows", () => {
    expect(compileGlobs(["**"])(`/${"a".repeat(3000)}`)).toBe(false);
  });
});

describe("robots.txt rules without backtracking", () => {
  it("matches RFC 9309 patterns: prefix, * and a final $", () => {
    expect(matchRobotsRule("/private", "/private/x")).toBe(true);
    expect(matchRobotsRule("/private", "/priv")).toBe(false);
    expect(matchRobotsRule("/*.pdf$", "/a/b.pdf")).toBe(true);
    expect(matchRobotsRule("/*.pdf$", "/a/b.pdf?x=1")).toBe(false);
    expect(matchRobotsRule("/*.pdf", "/a/b.pdf?x=1")).toBe(true);
    expect(matchRobotsRule("/a*b*c", "/axxbyyc")).toBe(true);
    expect(matchRobotsRule("/a*b*c", "/axxcyyb")).toBe(false);
    expect(matchRobotsRule("/fish$", "/fish")).toBe(true);
    expect(matchRobotsRule("/fish$", "/fishy")).toBe(false);
    expect(matchRobotsRule("*", "/anything")).toBe(true);
    expect(matchRobotsRule("/a*$", "/a")).toBe(true);
    expect(matchRobotsRule("/ab*ba$", "/aba")).toBe(false);
  });

  it("answers a backtracking trap at once", () => {
    const started = performance.now();
    expect(matchRobotsRule("/*a*a*a*a*a*a*b", `/${"a".repeat(2000)}`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
