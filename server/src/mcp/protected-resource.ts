import type { Context, Hono } from "hono";
import { publicRoot } from "../http/forwarded.ts";
import type { AppEnv } from "../http/principal.ts";

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/**
 * RFC 9728's metadata URL of an agent's MCP endpoint, under this server's public root (RFC 9728's
 * own place at the root of a server that is not behind a path prefix): a 401 from the endpoint
 * names it in `WWW-Authenticate`, so an MCP client learns the resource takes a bearer token in the
 * header (an API key), with no authorization server to log in at, and reports the 401 as it is.
 */
export function resourceMetadataUrl(c: Context<AppEnv>, mcpPath: string): string {
  return `${publicRoot(c)}${WELL_KNOWN}${mcpPath}`;
}

/** A 401's challenge on an MCP endpoint, pointing at its resource metadata. */
export function mcpChallenge(c: Context<AppEnv>, challenge: string, mcpPath: string): string {
  return `${challenge}, resource_metadata="${resourceMetadataUrl(c, mcpPath)}"`;
}

/**
 * `GET /.well-known/oauth-protected-resource/<api prefix>/agents/{agentId}/mcp/` (with or without
 * the trailing slash, as clients build it from the endpoint's URL) and the bare well-known path
 * (the whole API): the resource, bearer tokens in the `Authorization` header, no authorization servers.
 */
export function mountProtectedResource(app: Hono<AppEnv>, apiPrefix: string): void {
  const metadata = (c: Context<AppEnv>, resourcePath: string) =>
    c.json(
      {
        resource: `${publicRoot(c)}${resourcePath}`,
        resource_name: "Lore",
        bearer_methods_supported: ["header"],
        authorization_servers: [],
        resource_documentation: `${publicRoot(c)}${apiPrefix}/openapi.json`,
      },
      200,
      { "Cache-Control": "public, max-age=3600", "Access-Control-Allow-Origin": "*" },
    );
  const agentMcp = (c: Context<AppEnv>) => {
    const agentId = c.req.param("agentId") ?? "";
    return metadata(c, `${apiPrefix}/agents/${encodeURIComponent(agentId)}/mcp/`);
  };
  app.get(WELL_KNOWN, (c) => metadata(c, `${apiPrefix}/`));
  app.get(`${WELL_KNOWN}${apiPrefix}/agents/:agentId/mcp`, agentMcp);
  app.get(`${WELL_KNOWN}${apiPrefix}/agents/:agentId/mcp/`, agentMcp);
}
