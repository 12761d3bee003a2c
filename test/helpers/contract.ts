/**
 * The API contract as the server declares it (`apiRoutes`: one `createRoute` declaration per
 * endpoint), for tests: find the declaration a request hit, and check a response against it.
 */
import { apiRoutes } from "@lore/server/api.ts";
import type { ApiRoute } from "@lore/server/http/route.ts";
import { errorBodySchema, openAiErrorBodySchema } from "@lore/shared";
import type { z } from "zod";

/** `/agents/:id/` and `/agents/{agentId}/` both become `/agents/{}/`; a query string is dropped. */
export function routeShape(method: string, path: string): string {
  const bare = path.split("?")[0] ?? path;
  return `${method.toUpperCase()} ${bare.replace(/:[A-Za-z0-9_]+|\{[A-Za-z0-9_]+\}/g, "{}")}`;
}

/** The declared route of a shape (`GET /agents/{}/`; root routes as `GET /healthz`). */
export function declaredRoute(method: string, path: string): ApiRoute | undefined {
  const shape = routeShape(method, path);
  return apiRoutes.find((r) => routeShape(r.method, r.path) === shape);
}

const matchers = apiRoutes.map((route) => ({
  route,
  re: new RegExp(`^${route.path.replace(/\{\w+\}/g, "[^/]+").replace(/\./g, "\\.")}$`),
}));

/** The route a concrete request path (relative to the API prefix, or the site root for root routes) hits. */
export function routeOf(method: string, path: string, root: boolean): ApiRoute | undefined {
  const m = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
  return matchers.find((x) => x.route.method === m && Boolean(x.route.root) === root && x.re.test(path))
    ?.route;
}

/** The declared success status of a route (its first 2xx response). */
export function successStatus(route: ApiRoute): number {
  const status = Object.keys(route.responses).find((s) => s.startsWith("2"));
  if (!status) throw new Error(`${route.method} ${route.path} declares no success response`);
  return Number(status);
}

/** The JSON schema a route declares for a status, if any. */
export function declaredJson(route: ApiRoute, status: number): z.ZodType | undefined {
  const response = route.responses[status];
  if (!response || !("content" in response)) return undefined;
  const media = response.content?.["application/json"];
  return media && "schema" in media ? (media.schema as z.ZodType) : undefined;
}

/**
 * Checks a JSON response against the contract: an error body against the error schema, a success
 * body against the schema its route declares for that status. Returns the problems found.
 */
export function contractProblems(route: ApiRoute | undefined, status: number, body: unknown): string[] {
  if (status >= 400) {
    const schema = route?.errorFormat === "openai" ? openAiErrorBodySchema : errorBodySchema;
    const parsed = schema.safeParse(body);
    return parsed.success
      ? []
      : parsed.error.issues.map((i) => `error body ${i.path.join(".")}: ${i.message}`);
  }
  if (!route) return [];
  if (!(status in route.responses)) return [`status ${status} is not declared`];
  const schema = declaredJson(route, status);
  if (!schema) return [];
  const parsed = schema.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`);
}
