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

/** Work done by matching (machine words of pattern positions stepped), charged by a crawl to yield. */
export interface MatchMeter {
  spent: number;
}

/**
 * A glob as a bit-parallel NFA (shift-and, as agrep runs it): bit p of the state is "the first p
 * positions match the text read so far". Per character: `forward` positions move on to p + 1,
 * `loop` positions (stars, `**`) stay, and live `skippable` positions pass on at once — all runs of
 * them in one addition. Each character costs O(positions / 64) machine words whatever the pattern,
 * and matching stops once no position is live. Issue #49: stepping every position for every
 * character one by one made four 491-character globs cost 180 ms per URL, 5.7 s over one crawl.
 */
interface Automaton {
  steps: readonly Step[];
  /** Positions a glob may end at: the last, and the one before a final `/**`. */
  accept: bigint;
  skippable: bigint;
  /** Per character: the positions that move on (`forward`) and stay (`loop`), computed on first use. */
  masks: Map<string, { forward: bigint; loop: bigint }>;
  words: number;
}

const bit = (p: number) => 1n << BigInt(p);

function automaton(compiled: readonly Step[]): Automaton {
  // A star of at least one character is one character other than `/`, then a star.
  const steps = compiled.flatMap((step): Step[] =>
    step.kind === "star" && step.atLeastOne
      ? [
          { kind: "char", test: (c) => c !== "/" },
          { kind: "star", atLeastOne: false },
        ]
      : [step],
  );
  const m = steps.length;
  let accept = bit(m);
  let skippable = 0n;
  steps.forEach((step, p) => {
    if (step.kind === "star" || step.kind === "segments") skippable |= bit(p);
    // `/**` at the end: its position accepts (nothing), and after its `/` anything (the last loops).
    if (step.kind === "rest") accept |= bit(p);
  });
  return { steps, accept, skippable, masks: new Map(), words: Math.ceil((m + 1) / 64) };
}

function masksFor(a: Automaton, c: string): { forward: bigint; loop: bigint } {
  const cached = a.masks.get(c);
  if (cached) return cached;
  let forward = 0n;
  let loop = 0n;
  a.steps.forEach((step, p) => {
    switch (step.kind) {
      case "char":
        if (step.test(c)) forward |= bit(p);
        break;
      case "star":
        if (c !== "/") loop |= bit(p);
        break;
      case "segments":
        loop |= bit(p);
        if (c === "/") forward |= bit(p);
        break;
      case "rest":
        if (c === "/") forward |= bit(p);
        break;
    }
  });
  if (a.steps.at(-1)?.kind === "rest") loop |= bit(a.steps.length);
  const masks = { forward, loop };
  // URLs are ASCII; other texts may bring more characters, each cached once per glob.
  if (a.masks.size < 512) a.masks.set(c, masks);
  return masks;
}

/** Live skippable positions pass on through their run: the carry of one addition fills each run. */
function close(state: bigint, skippable: bigint): bigint {
  const live = state & skippable;
  return live === 0n ? state : state | ((skippable + live) ^ skippable) | live;
}

function run(a: Automaton, text: string, meter?: MatchMeter): boolean {
  let state = close(1n, a.skippable);
  let t = 0;
  for (; t < text.length && state !== 0n; t++) {
    const { forward, loop } = masksFor(a, text.charAt(t));
    state = close(((state & forward) << 1n) | (state & loop), a.skippable);
  }
  if (meter) meter.spent += a.words * t;
  return (state & a.accept) !== 0n;
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
  const compiled = globs.flatMap((glob) => (expandBraces(glob) ?? [glob]).map((g) => automaton(compile(g))));
  return (text) => text.length <= MAX_MATCHED_URL && compiled.some((a) => run(a, text));
}

/** The spelling of a URL a glob is matched against, decided once per glob (issue #49: was all four). */
type UrlForm = "path" | "pathQuery" | "href" | "hostPath";

function formOf(glob: string): UrlForm {
  if (/^https?:\/\//i.test(glob)) return "href";
  // A path glob naming a query parameter (`/search?q=*`) is matched with the URL's query.
  if (glob.startsWith("/")) return glob.includes("=") ? "pathQuery" : "path";
  return "hostPath";
}

function urlText(url: URL, form: UrlForm): string {
  switch (form) {
    case "path":
      return url.pathname;
    case "pathQuery":
      return url.pathname + url.search;
    case "href":
      return url.href;
    case "hostPath":
      return url.href.replace(/^https?:\/\//, "");
    default:
      return form satisfies never;
  }
}

/** Globs matched against URLs; the meter, when given, is charged with the matching's work. */
export type UrlMatcher = (url: URL, meter?: MatchMeter) => boolean;

/**
 * compileGlobs for URLs: a glob starting with `/` is matched against the path (with the query when
 * the glob holds `=`), one starting with `http(s)://` against the whole URL, any other against the
 * URL without its scheme (`x.test/docs/**`, `**‍/*.pdf`). Each URL is matched once per glob, in one form.
 */
export function compileUrlGlobs(globs: readonly string[]): UrlMatcher {
  const compiled = globs.flatMap((glob) =>
    (expandBraces(glob) ?? [glob]).map((g) => ({ form: formOf(g), automaton: automaton(compile(g)) })),
  );
  return (url, meter) =>
    url.href.length <= MAX_MATCHED_URL &&
    compiled.some(({ form, automaton }) => run(automaton, urlText(url, form), meter));
}

/** Why a glob cannot be used, or undefined when it can (too many brace alternatives). */
export function globProblem(glob: string): string | undefined {
  return expandBraces(glob) ? undefined : `expands to more than ${MAX_ALTERNATIVES} alternatives`;
}
