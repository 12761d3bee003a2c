import { analyticsRoutes } from "./analytics/analytics-routes.ts";
import { answersRoutes } from "./answers/answers-routes.ts";
import type { AppOptions } from "./app.ts";
import type { Services } from "./services.ts";
import { mountSite } from "./site/site-routes.ts";
import { sourcesRoutes } from "./sources/sources-routes.ts";
import { webhooksRoutes } from "./webhooks/webhooks-routes.ts";
import { widgetRoutes } from "./widget-api/widget-routes.ts";

/** The domains beyond the foundation, mounted by createApp. */
export function appOptions(_s: Services): AppOptions {
  return {
    domains: [
      ["/data-sources/", sourcesRoutes],
      ["/agents/", answersRoutes],
      ["/widget/", widgetRoutes],
      ["/analytics/", analyticsRoutes],
      ["/workspaces/", webhooksRoutes],
    ],
    site: mountSite,
    isQueryPath: (path) =>
      /^\/agents\/[^/]+\/(query|chat\/completions)\/$/.test(path) || /^\/widget\/[^/]+\/query\/$/.test(path),
  };
}
