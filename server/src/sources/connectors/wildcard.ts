/**
 * A wildcard matcher that cannot backtrack (issue #34): robots.txt rules and include/exclude globs
 * used to become RegExps, and `/*a*a*a*a*a*a*b` against a long path held the event loop for tens of
 * seconds. The pattern is read as a list of steps and matched by simulating all its positions at once
 * (Thompson's construction): O(n · m) time and O(m) memory for a text of n and a pattern of m
 * characters, whatever their content.
 */

/** One step of a pattern: a literal character, `?` (one character but `/`), `*` (a run without `/`), `**` (any run). */
type Step = { kind: "char"; char: string } | { kind: "one" } | { kind: "run" } | { kind: "any" };

export interface Wildcard {
  readonly steps: readonly Step[];
}

/** A robots.txt path pattern (RFC 9309): `*` is any run of characters, a final `$` ends the path; otherwise a prefix. */
export function robotsPattern(pattern: string): Wildcard {
  const anchored = pattern.endsWith("$");
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const steps: Step[] = [];
  for (const char of body) {
    if (char === "*") {
      if (steps.at(-1)?.kind !== "any") steps.push({ kind: "any" });
    } else steps.push({ kind: "char", char });
  }
  if (!anchored && steps.at(-1)?.kind !== "any") steps.push({ kind: "any" });
  return { steps };
}

/** Glob syntax Lore does not support (picomatch's braces, classes, extglobs, negation, escapes). */
export const UNSUPPORTED_GLOB = /[[\]{}()\\]|^!/;

/** Most `**` in one glob: each doubles the patterns a glob compiles to (at most 2⁴ = 16). */
export const MAX_GLOBSTARS = 4;

/**
 * A glob over a path or URL as the patterns it stands for: `**` matches any run, and as a whole
 * segment also no segment at all (`/docs/**` matches `/docs`, `**​/*.pdf` matches `a.pdf`); `*` a run
 * without `/`, `?` one character but `/`; everything else is literal.
 */
export function globPatterns(glob: string): Wildcard[] {
  // Each whole-segment `**` is either a run between slashes or nothing (the slashes merged).
  let variants = [glob];
  for (let k = 0; k < MAX_GLOBSTARS; k++) {
    const out: string[] = [];
    let changed = false;
    for (const v of variants) {
      const m = /(^|\/)\*\*(\/|$)/.exec(v);
      if (!m) {
        out.push(v);
        continue;
      }
      changed = true;
      const before = v.slice(0, m.index);
      const after = v.slice(m.index + m[0].length);
      const lead = m[1] ?? "";
      const trail = m[2] ?? "";
      // "a/**/b" → "a/\0/b" (a run, marked \0) or "a/b"; "a/**" → "a/\0" or "a"; "**/b" → "\0/b" or "b".
      out.push(`${before}${lead}\0${trail}${after}`);
      out.push(lead && trail ? `${before}/${after}` : `${before}${after}`);
    }
    variants = out;
    if (!changed) break;
  }
  return variants.map((v) => {
    const steps: Step[] = [];
    for (let i = 0; i < v.length; i++) {
      const char = v.charAt(i);
      if (char === "\0") steps.push({ kind: "any" });
      else if (char === "*" && v.charAt(i + 1) === "*") {
        while (v.charAt(i + 1) === "*") i++;
        steps.push({ kind: "any" });
      } else if (char === "*") steps.push({ kind: "run" });
      else if (char === "?") steps.push({ kind: "one" });
      else steps.push({ kind: "char", char });
    }
    return { steps };
  });
}

/** Whether the whole text matches. O(n · m): each character advances every live position once. */
export function matchWildcard(pattern: Wildcard, text: string): boolean {
  const { steps } = pattern;
  const m = steps.length;
  let live = new Uint8Array(m + 1);
  let next = new Uint8Array(m + 1);
  const close = (set: Uint8Array, at: number): void => {
    // Runs may match nothing: a live run also makes the step after it live.
    for (let p = at; p <= m; p++) {
      if (!set[p]) continue;
      const step = steps[p];
      if (step && (step.kind === "run" || step.kind === "any")) set[p + 1] = 1;
    }
  };
  live[0] = 1;
  close(live, 0);
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    next.fill(0);
    let any = false;
    for (let p = 0; p < m; p++) {
      if (!live[p]) continue;
      const step = steps[p] as Step;
      switch (step.kind) {
        case "char":
          if (step.char === char) next[p + 1] = 1;
          break;
        case "one":
          if (char !== "/") next[p + 1] = 1;
          break;
        case "run":
          if (char !== "/") next[p] = 1;
          break;
        case "any":
          next[p] = 1;
          break;
      }
      any = true;
    }
    if (!any) return false;
    close(next, 0);
    [live, next] = [next, live];
  }
  return live[m] === 1;
}
