/** robots.txt rules that apply to one crawler (RFC 9309: the most specific group, longest match wins). */
export interface RobotsRules {
  isAllowed(pathAndQuery: string): boolean;
  /** Crawl-delay in seconds, if the group sets one. */
  crawlDelay: number | null;
  sitemaps: string[];
}

import { matchWildcard, robotsPattern, type Wildcard } from "./wildcard.ts";

interface Rule {
  allow: boolean;
  pattern: string;
  wildcard: Wildcard;
}

/** Longer rules are ignored, and paths are matched on their first MAX_ROBOTS_PATH characters (issue #34). */
export const MAX_ROBOTS_RULE = 500;
export const MAX_ROBOTS_PATH = 2048;
/** Rules kept per robots.txt: matching a path costs O(rules · 2,048 · 500) at most. */
export const MAX_ROBOTS_RULES = 500;

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
      // Matched without a RegExp: `/*a*a*a*a*a*a*b` used to backtrack for tens of seconds.
      if (value.length <= MAX_ROBOTS_RULE && current.rules.length < MAX_ROBOTS_RULES)
        current.rules.push({
          allow: key === "allow",
          pattern: value,
          wildcard: robotsPattern(safeDecode(value)),
        });
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
    isAllowed(pathAndQuery) {
      const path = safeDecode(pathAndQuery).slice(0, MAX_ROBOTS_PATH);
      let best: Rule | null = null;
      for (const rule of rules) {
        if (!matchWildcard(rule.wildcard, path)) continue;
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
