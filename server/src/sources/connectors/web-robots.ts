/** robots.txt rules that apply to one crawler (RFC 9309: the most specific group, longest match wins). */
export interface RobotsRules {
  /** The meter, when given, is charged with the matching's work (wildcard.ts). */
  isAllowed(pathAndQuery: string, meter?: MatchMeter): boolean;
  /** Crawl-delay in seconds, if the group sets one. */
  crawlDelay: number | null;
  sitemaps: string[];
}

import { MAX_MATCHED_URL, MAX_ROBOTS_RULE, type MatchMeter, matchRobotsRule } from "./wildcard.ts";

interface Rule {
  allow: boolean;
  /** The rule as written (its length decides precedence). */
  pattern: string;
  /** The decoded pattern that is matched (linear time: wildcard.ts). */
  decoded: string;
}

/** Rules kept per robots.txt: each URL is checked against all of them. */
const MAX_ROBOTS_RULES = 4096;
/** Characters of rules kept per robots.txt (issue #49): bounds one URL's check to rules × path. */
const MAX_ROBOTS_RULE_CHARS = 64 * 1024;

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Parses robots.txt for the given product token (e.g. "LoreBot"), falling back to the "*" group. */
export function parseRobots(text: string, agent: string): RobotsRules {
  const token = agent.toLowerCase();
  const groups: { agents: string[]; rules: Rule[]; delay: number | null }[] = [];
  const sitemaps: string[] = [];
  let current: { agents: string[]; rules: Rule[]; delay: number | null } | null = null;
  let lastWasAgent = false;
  let ruleChars = 0;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/#.*/, "").trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = (m[1] ?? "").toLowerCase();
    const value = (m[2] ?? "").trim();
    if (key === "user-agent") {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [], delay: null };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key === "sitemap") {
      sitemaps.push(value);
      continue;
    }
    if (!current) continue;
    if ((key === "allow" || key === "disallow") && value) {
      // Bounds: a rule longer than MAX_ROBOTS_RULE or past the first MAX_ROBOTS_RULES is ignored.
      if (
        value.length > MAX_ROBOTS_RULE ||
        current.rules.length >= MAX_ROBOTS_RULES ||
        ruleChars + value.length > MAX_ROBOTS_RULE_CHARS
      )
        continue;
      ruleChars += value.length;
      current.rules.push({ allow: key === "allow", pattern: value, decoded: safeDecode(value) });
    } else if (key === "crawl-delay") {
      const delay = Number(value);
      if (Number.isFinite(delay) && delay >= 0) current.delay = delay;
    }
  }
  const specific = groups.filter((g) => g.agents.some((a) => a !== "*" && token.includes(a)));
  const chosen = specific.length > 0 ? specific : groups.filter((g) => g.agents.includes("*"));
  const rules = chosen.flatMap((g) => g.rules);
  const delay = chosen.find((g) => g.delay !== null)?.delay ?? null;
  return {
    crawlDelay: delay,
    sitemaps,
    isAllowed(pathAndQuery, meter) {
      const path = safeDecode(pathAndQuery);
      // A URL longer than any crawl follows is refused rather than matched (wildcard.ts).
      if (path.length > MAX_MATCHED_URL) return false;
      // indexOf steps many characters in the time the glob automaton steps one word (wildcard.ts).
      if (meter) meter.spent += Math.ceil((rules.length * path.length) / 16);
      let best: Rule | null = null;
      for (const rule of rules) {
        if (!matchRobotsRule(rule.decoded, path)) continue;
        if (
          !best ||
          rule.pattern.length > best.pattern.length ||
          (rule.pattern.length === best.pattern.length && rule.allow)
        )
          best = rule;
      }
      return best ? best.allow : true;
    },
  };
}

export const ALLOW_ALL: RobotsRules = { isAllowed: () => true, crawlDelay: null, sitemaps: [] };
