/**
 * Wildcard matching without backtracking (issue #34): robots.txt rules come from the crawled site and
 * include/exclude globs from the source's owner, so neither may become a `RegExp`, whose backtracking
 * let `/*a*a*a*a*a*a*b` hold the event loop for tens of seconds against one long URL.
 */

/** The longest URL (or path) a pattern is matched against; a crawl skips longer URLs. */
export const MAX_MATCHED_URL = 2048;
/** The longest robots.txt rule kept; longer ones are ignored (RFC 9309 needs no more). */
export const MAX_ROBOTS_RULE = 512;

/**
 * A robots.txt path pattern (RFC 9309: `*` is any run of characters, a final `$` anchors the end)
 * against the start of a path. The literal pieces between stars are found left to right, each at its
 * leftmost place, which is optimal for `*`-only patterns: O(|pattern| · |path|) at worst, linear in
 * practice.
 */
export function matchRobotsRule(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith("$");
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split("*");
  const first = pieces[0] ?? "";
  if (!path.startsWith(first)) return false;
  if (pieces.length === 1) return !anchored || path.length === first.length;
  let at = first.length;
  const last = pieces.length - 1;
  for (let i = 1; i < last; i++) {
    const piece = pieces[i] ?? "";
    const found = path.indexOf(piece, at);
    if (found < 0) return false;
    at = found + piece.length;
  }
  const tail = pieces[last] ?? "";
  if (!anchored) return path.indexOf(tail, at) >= 0;
  return path.length - tail.length >= at && path.endsWith(tail);
}

/** A step of a compiled glob: what one character must be, and whether the step repeats. */
type Step =
  | { kind: "char"; test: (c: string) => boolean }
  /** `*`: a run of characters other than `/` (at least one when the star is a whole segment). */
  | { kind: "star"; atLeastOne: boolean }
  /** `**` as a leading or inner segment (`**‍/`): any run ending in `/`, or nothing. */
  | { kind: "segments" }
  /** `/**` at the end: nothing, or `/` and anything after it. */
  | { kind: "rest" };

/** Brace alternatives a pattern may expand to (`{a,b}{c,d}` is four globs). */
const MAX_ALTERNATIVES = 32;

/** `{a,b}` alternatives expanded, innermost group first; undefined past MAX_ALTERNATIVES. */
function expandBraces(pattern: string): string[] | undefined {
  const open = pattern.lastIndexOf("{");
  if (open < 0) return [pattern];
  const close = pattern.indexOf("}", open);
  if (close < 0) return [pattern];
  const options = pattern.slice(open + 1, close).split(",");
  const out: string[] = [];
  for (const option of options) {
    const expanded = expandBraces(pattern.slice(0, open) + option + pattern.slice(close + 1));
    if (!expanded) return undefined;
    out.push(...expanded);
    if (out.length > MAX_ALTERNATIVES) return undefined;
  }
  return out;
}

/** A `[...]` class at `start` (the `[`): its test and the index after `]`, or undefined if unclosed. */
function readClass(
  pattern: string,
  start: number,
): { test: (c: string) => boolean; end: number } | undefined {
  let i = start + 1;
  const negated = pattern[i] === "!" || pattern[i] === "^";
  if (negated) i++;
  const ranges: [string, string][] = [];
  let first = true;
  for (; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === "]" && !first) {
      const test = (ch: string) => ch !== "/" && ranges.some(([lo, hi]) => ch >= lo && ch <= hi) !== negated;
      return { test, end: i + 1 };
    }
    first = false;
    const literal = c === "\\" ? pattern.charAt(++i) : c;
    if (pattern[i + 1] === "-" && pattern[i + 2] !== undefined && pattern[i + 2] !== "]") {
      ranges.push([literal, pattern.charAt(i + 2)]);
      i += 2;
    } else ranges.push([literal, literal]);
  }
  return undefined;
}

function compile(glob: string): Step[] {
  const steps: Step[] = [];
  const segmentStart = (i: number) => i === 0 || glob[i - 1] === "/";
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === "*") {
      let end = i;
      while (glob[end] === "*") end++;
      const wholeSegment = segmentStart(i) && (end === glob.length || glob[end] === "/");
      if (end - i >= 2 && wholeSegment) {
        if (end === glob.length) {
          // `/**` at the end (or `**` alone): the slash before it becomes optional with the rest.
          if (steps.length > 0 && glob[i - 1] === "/") steps.pop();
          else steps.push({ kind: "star", atLeastOne: false });
          steps.push({ kind: "rest" });
        } else {
          steps.push({ kind: "segments" });
          end++; // the `/` after `**` belongs to the step
        }
      } else steps.push({ kind: "star", atLeastOne: wholeSegment });
      i = end - 1;
      continue;
    }
    if (c === "?") {
      steps.push({ kind: "char", test: (ch) => ch !== "/" });
      continue;
    }
    // An unclosed `[` is a literal character, like any other.
    const cls = c === "[" ? readClass(glob, i) : undefined;
    if (cls) {
      steps.push({ kind: "char", test: cls.test });
      i = cls.end - 1;
    } else {
      const literal = c === "\\" && i + 1 < glob.length ? glob.charAt(++i) : c;
      steps.push({ kind: "char", test: (ch) => ch === literal });
    }
  }
  return steps;
}

/**
 * Runs the steps over the text as a set of positions in the pattern (a Thompson-style simulation):
 * every character moves each live position at most once, so the cost is O(|steps| · |text|) whatever
 * the pattern, with no backtracking.
 */
function run(steps: readonly Step[], text: string): boolean {
  const m = steps.length;
  // live[p] = 1: the pattern's first p steps can match the text read so far. For a star or "rest"
  // step, `inside[p]` = the step has consumed at least one character and may take more.
  let live = new Uint8Array(m + 1);
  let inside = new Uint8Array(m + 1);
  let nextLive = new Uint8Array(m + 1);
  let nextInside = new Uint8Array(m + 1);
  const close = (l: Uint8Array, ins: Uint8Array) => {
    // Epsilon moves: a step that may match nothing lets the position pass it.
    for (let p = 0; p < m; p++) {
      const step = steps[p] as Step;
      const canSkip =
        step.kind === "segments" ||
        step.kind === "rest" ||
        (step.kind === "star" && (!step.atLeastOne || ins[p] === 1));
      if ((l[p] || (step.kind === "star" && ins[p])) && canSkip) l[p + 1] = 1;
    }
  };
  live[0] = 1;
  close(live, inside);
  for (let t = 0; t < text.length; t++) {
    const c = text.charAt(t);
    nextLive.fill(0);
    nextInside.fill(0);
    for (let p = 0; p < m; p++) {
      const step = steps[p] as Step;
      const here = live[p] === 1;
      const within = inside[p] === 1;
      if (!here && !within) continue;
      switch (step.kind) {
        case "char":
          if (here && step.test(c)) nextLive[p + 1] = 1;
          break;
        case "star":
          if (c !== "/") nextInside[p] = 1;
          break;
        case "segments":
          nextInside[p] = 1;
          if (c === "/") nextLive[p + 1] = 1;
          break;
        case "rest":
          if (within || c === "/") nextInside[p] = 1;
          break;
      }
    }
    // A step that has taken characters may end here: stars and "rest" pass on to the next step.
    for (let p = 0; p < m; p++) {
      const step = steps[p] as Step;
      if (nextInside[p] && (step.kind === "star" || step.kind === "rest")) nextLive[p + 1] = 1;
    }
    close(nextLive, nextInside);
    [live, nextLive] = [nextLive, live];
    [inside, nextInside] = [nextInside, inside];
  }
  return live[m] === 1;
}

/** A compiled set of globs: true when any matches the whole text. */
export type GlobMatcher = (text: string) => boolean;

/**
 * Globs as the crawl's include/exclude patterns use them: `*` (within a path segment), `**` (across
 * segments when it is a whole segment), `?`, `[a-z]`/`[!x]` classes, `{a,b}` alternatives and `\`
 * escapes; dot files match like any other. Linear-time in the text for a fixed pattern:
 * O(Σ|glob| · |text|), and the text is cut at MAX_MATCHED_URL.
 */
export function compileGlobs(globs: readonly string[]): GlobMatcher {
  const compiled = globs.flatMap((glob) => (expandBraces(glob) ?? [glob]).map(compile));
  return (text) => text.length <= MAX_MATCHED_URL && compiled.some((steps) => run(steps, text));
}

/** Why a glob cannot be used, or undefined when it can (too many brace alternatives). */
export function globProblem(glob: string): string | undefined {
  return expandBraces(glob) ? undefined : `expands to more than ${MAX_ALTERNATIVES} alternatives`;
}
