import * as agents from "./agents/agents-api.ts";
import * as analytics from "./analytics/analytics-api.ts";
import * as answers from "./answers/answers-api.ts";
import * as auth from "./auth/auth-api.ts";
import * as conversations from "./conversations/conversations-api.ts";
import * as corrections from "./corrections/corrections-api.ts";
import * as handoffs from "./handoffs/handoffs-api.ts";
import type { ApiRoute } from "./http/route.ts";
import * as mcp from "./mcp/mcp-api.ts";
import * as meta from "./meta/meta-api.ts";
import * as openai from "./openai/openai-api.ts";
import * as sources from "./sources/sources-api.ts";
import * as webhooks from "./webhooks/webhooks-api.ts";
import * as widget from "./widget-api/widget-api.ts";
import * as widgetOrigins from "./widget-api/widget-origins-api.ts";
import * as workspaces from "./workspaces/workspaces-api.ts";

const isRoute = (value: unknown): value is ApiRoute =>
  typeof value === "object" && value !== null && "getRoutingPath" in value;

/** Every endpoint of the product, as declared: the OpenAPI document, docs and tests are built from it. */
export const apiRoutes: readonly ApiRoute[] = [
  meta,
  auth,
  workspaces,
  webhooks,
  agents,
  answers,
  openai,
  conversations,
  handoffs,
  corrections,
  analytics,
  sources,
  widget,
  widgetOrigins,
  mcp,
].flatMap((domain) => Object.values(domain).filter(isRoute));
