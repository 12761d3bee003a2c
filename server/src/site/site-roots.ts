import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the served files live: the built widget, the demo page, and the console's build (if any). */
export interface SiteRoots {
  widget: string;
  demo: string;
  /** The console's own build; null when only the demo's console files exist. */
  console: string | null;
}

function fromSiteDir(siteDir: string): SiteRoots {
  const consoleDir = join(siteDir, "console");
  return {
    widget: join(siteDir, "widget"),
    demo: join(siteDir, "demo"),
    console: existsSync(consoleDir) ? consoleDir : null,
  };
}

/**
 * The site roots: `siteDir` (LORE_SITE_DIR) when set; else `site/` beside the running bundle (what
 * `npm run build` writes as dist/site); else the source tree's widget/dist, demo and console/dist.
 */
export function resolveSiteRoots(siteDir: string | null, moduleUrl = import.meta.url): SiteRoots {
  if (siteDir) return fromSiteDir(resolve(siteDir));
  const here = dirname(fileURLToPath(moduleUrl));
  const bundled = join(here, "site");
  if (existsSync(join(bundled, "demo"))) return fromSiteDir(bundled);
  const repoRoot = resolve(here, "../../..");
  const consoleDist = join(repoRoot, "console", "dist");
  return {
    widget: join(repoRoot, "widget", "dist"),
    demo: join(repoRoot, "demo"),
    console: existsSync(consoleDist) ? consoleDist : null,
  };
}
