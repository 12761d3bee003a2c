import type { Context } from "hono";
import type { AppEnv } from "./principal.ts";
import { requestHeader } from "./request-header.ts";

/** Where a request reached this server from the client's side, for every link the server writes. */
export interface RequestBase {
  /** The client's connection is HTTPS: this server's own, or a trusted proxy's that terminated TLS. */
  readonly secure: boolean;
  /**
   * The absolute URL of this server's root as the client sees it, without a trailing slash:
   * `LORE_PUBLIC_URL`, else the trusted proxy's scheme, host and prefix, else the request's origin.
   * A path prefix (`/support`) is the proxy's: it strips it before passing the request on.
   */
  readonly root: string;
}

const HOST = /^[A-Za-z0-9.:[\]-]{1,255}$/;
// A path of plain segments: no empty, `.` or `..` segment, nothing that would end the path.
const PREFIX = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/;

/** The first value of a comma list, trimmed. */
const first = (value: string | undefined) => value?.split(",")[0]?.trim() || undefined;

/** Where an absolute URL's path starts (its length when it has none). */
function pathStart(url: string): number {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start === -1 ? url.length : start;
}

/** `proto` and `host` of the first element of an RFC 7239 `Forwarded` header (the client's side). */
function parseForwarded(value: string | undefined): { proto?: string; host?: string } {
  const element = value?.split(",")[0];
  if (!element) return {};
  const out: { proto?: string; host?: string } = {};
  for (const pair of element.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim().toLowerCase();
    const raw = pair.slice(eq + 1).trim();
    const unquoted = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    if (name === "proto" || name === "host") out[name] = unquoted;
  }
  return out;
}

/**
 * The request's base. The forwarded headers (`X-Forwarded-Proto`, `-Host`, `-Prefix`, else
 * `Forwarded`'s `proto` and `host`) are read only when `fromTrustedProxy` (see createProxyCheck); a
 * value that is not a scheme, host or path is ignored.
 */
export function requestBase(c: Context, publicUrl: string | null, fromTrustedProxy: boolean): RequestBase {
  const url = c.req.url;
  const ownScheme = url.startsWith("https:") ? "https" : "http";
  const ownOrigin = url.slice(0, pathStart(url));
  if (!fromTrustedProxy) return { secure: ownScheme === "https", root: publicUrl ?? ownOrigin };
  const forwarded = parseForwarded(requestHeader(c, "forwarded"));
  const proto = (first(requestHeader(c, "x-forwarded-proto")) ?? forwarded.proto)?.toLowerCase();
  const scheme = proto === "http" || proto === "https" ? proto : ownScheme;
  const secure = scheme === "https";
  if (publicUrl) return { secure, root: publicUrl };
  const host = first(requestHeader(c, "x-forwarded-host")) ?? forwarded.host;
  const authority = host && HOST.test(host) && URL.canParse(`${scheme}://${host}`) ? host : null;
  const prefix = first(requestHeader(c, "x-forwarded-prefix"))?.replace(/\/+$/, "");
  const path =
    prefix && prefix.length <= 200 && PREFIX.test(prefix) && !/\/\.\.?(\/|$)/.test(prefix) ? prefix : "";
  const origin = authority
    ? `${scheme}://${authority}`
    : `${scheme}:${ownOrigin.slice(ownOrigin.indexOf("//"))}`;
  return { secure, root: `${origin}${path}` };
}

/** The request's base (set by requestContext), or the request's own origin outside it. */
export function baseOf(c: Context<AppEnv>): RequestBase {
  return c.get("base") ?? requestBase(c, null, false);
}

/** The public root of this server (no trailing slash), e.g. `https://example.com/support`. */
export function publicRoot(c: Context<AppEnv>): string {
  return baseOf(c).root;
}

/** The path prefix a proxy serves this server under (`""` at the root), e.g. `/support`. */
export function publicPrefix(c: Context<AppEnv>): string {
  const root = publicRoot(c);
  return root.slice(pathStart(root));
}

/**
 * The request's own absolute URL as the client sees it: the public root, the path (an API path in
 * its canonical form, with its trailing slash) and the query.
 */
export function requestUrl(c: Context<AppEnv>): URL {
  const url = c.req.url;
  const rest = url.slice(pathStart(url)) || "/";
  const query = rest.search(/[?#]/);
  let path = query === -1 ? rest : rest.slice(0, query);
  const search = query === -1 ? "" : rest.slice(query);
  if (c.req.path.endsWith("/") && !path.endsWith("/")) path += "/";
  return new URL(`${publicRoot(c)}${path}${search}`);
}
