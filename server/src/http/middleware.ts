import { randomUUID } from "node:crypto";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
import { getPath } from "hono/utils/url";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import type { Services } from "../services.ts";
import type { AnswerReplay } from "./answer-replay.ts";
import { createClientIp, createProxyCheck, limitKey } from "./client-ip.ts";
import { requestBase } from "./forwarded.ts";
import type { AppEnv, Principal } from "./principal.ts";
import type { LimitRule, LimitState, RateLimiter } from "./rate-limiter.ts";
import { requestHeader } from "./request-header.ts";
import { setResponseHeaders, writeResponseHeaders } from "./response-headers.ts";
import type { ChargeTarget } from "./route.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id, client IP and an anonymous principal; after the handler, the shared headers and one log line. */
export function requestContext(
  config: Pick<Config, "proxyTrust" | "publicUrl">,
  services: Pick<Services, "logger"> & Partial<Pick<Services, "watchdog">>,
): MiddlewareHandler<AppEnv> {
  const clientIp = createClientIp(config.proxyTrust);
  const fromTrustedProxy = createProxyCheck(config.proxyTrust);
  return async (c, next) => {
    // On the watchdog's list while any of its code can run: a stall in it is laid to this request.
    const ended = services.watchdog?.begin(c);
    try {
      await handle(c, next);
    } finally {
      ended?.();
    }
  };

  async function handle(c: Context<AppEnv>, next: () => Promise<void>): Promise<void> {
    const incoming = requestHeader(c, "x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const headers: Record<string, string> = { "X-Request-ID": requestId };
    c.set("requestId", requestId);
    const socket = socketAddress(c);
    const trusted = fromTrustedProxy(socket);
    c.set("clientIp", clientIp(socket, trusted ? requestHeader(c, "x-forwarded-for") : undefined));
    c.set("base", requestBase(c, config.publicUrl, trusted));
    c.set("principal", { kind: "anonymous" });
    c.set("responseHeaders", headers);
    // Before the handler too, so c.json() & co. build on these Headers (see response-headers.ts).
    c.header("X-Request-ID", requestId);
    const started = performance.now();
    await next();
    // Applied to whatever response the handler built (JSON, error, SSE stream), replacing its values.
    setResponseHeaders(c, headers);
    services.logger.info("request", {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round(performance.now() - started),
      ip: c.get("clientIp"),
    });
  }
}

function socketAddress(c: Context): string | null {
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null; // app.request() in unit tests has no socket
  }
}

/** Production refuses plain HTTP unless a trusted proxy terminated TLS; HSTS always in production. */
export function httpsPolicy(config: Config): MiddlewareHandler<AppEnv> {
  // Outside production there is nothing to check: pass straight through.
  if (!config.production) return (_c, next) => next();
  return async (c, next) => {
    if (!c.get("base").secure) throw new AppError("https_required", "Use HTTPS for every request");
    await next();
    writeResponseHeaders(c, (headers) =>
      headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains"),
    );
  };
}

/**
 * The path Hono routes a request by: an API path (under `prefix`) sent without its trailing slash
 * gets it, so every API route answers with or without it, for every method, with no redirect (an
 * SDK that posts `/chat/completions` and a proxy under a path prefix both work). `c.req.path` is
 * this canonical path; paths ending `.json` (the OpenAPI document) are as declared.
 */
export function canonicalPath(prefix: string): (request: Request) => string {
  return (request) => {
    const path = getPath(request);
    return path.startsWith(`${prefix}/`) && !path.endsWith("/") && !path.endsWith(".json")
      ? `${path}/`
      : path;
  };
}

/**
 * Resolves `Authorization: Bearer` to a principal: an API key, a user's access token, or nobody.
 * On `ignoredOn` paths (routes declared `ignoresAuthorization`) the header is not read at all.
 */
export function authenticate(
  services: Pick<Services, "apiKeys" | "auth">,
  ignoredOn: ReadonlySet<string> = new Set(),
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = ignoredOn.has(c.req.path) ? undefined : requestHeader(c, "authorization");
    if (header) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match?.[1]) throw new AppError("invalid_token", "Use 'Authorization: Bearer <token>'");
      const token = match[1];
      const principal: Principal = services.apiKeys.isKeyLike(token)
        ? { kind: "apiKey", key: services.apiKeys.authenticate(token) }
        : { kind: "user", user: await services.auth.userFromAccessToken(token) };
      c.set("principal", principal);
    }
    await next();
  };
}

const HOUR = 3_600_000;
const MINUTE = 60_000;

/**
 * The limits a request is charged to: its principal (or, without a credential, the widget visitor
 * of a valid visitor token, else the client IP), plus the agent for queries.
 */
export function limitRules(
  config: Config,
  c: Context<AppEnv>,
  agentId?: string,
  visitorId?: string,
): LimitRule[] {
  const principal = c.get("principal");
  const rules: LimitRule[] =
    principal.kind === "user"
      ? [{ name: "user_per_hour", key: principal.user.id, limit: config.limits.userPerHour, windowMs: HOUR }]
      : principal.kind === "apiKey"
        ? [
            {
              name: "user_per_hour",
              key: `key:${principal.key.id}`,
              limit: config.limits.userPerHour,
              windowMs: HOUR,
            },
          ]
        : [
            {
              name: "anonymous_per_hour",
              // Visitors behind one address (an office, a school) each get their own quota.
              key: visitorId ? `visitor:${visitorId}` : limitKey(c.get("clientIp")),
              limit: config.limits.anonPerHour,
              windowMs: HOUR,
            },
          ];
  if (agentId) {
    rules.push({
      name: "agent_queries_per_minute",
      key: agentId,
      limit: config.limits.agentQueriesPerMinute,
      windowMs: MINUTE,
    });
    if (principal.kind !== "user" && principal.kind !== "apiKey")
      rules.push(...anonymousQuestionRules(config, c, agentId, visitorId));
  }
  return rules;
}

/** Widget questions per client IP and hour, as a multiple of the anonymous limit, whatever the token. */
export const IP_QUESTIONS_FACTOR = 3;
/** The part of an agent's per-minute quota one client IP may use (a quarter): others keep being answered. */
export const AGENT_SHARE_PER_IP = 4;

/**
 * Issue #49: a visitor token has its own quota, but minting tokens no longer resets an address's.
 * New visitors (a question without a valid token) are limited per client IP, every question also
 * counts per IP, and one IP may use only a share of the agent's per-minute quota. An IPv6 client
 * counts by its /64 (limitKey).
 */
function anonymousQuestionRules(
  config: Config,
  c: Context<AppEnv>,
  agentId: string,
  visitorId: string | undefined,
): LimitRule[] {
  const ip = limitKey(c.get("clientIp"));
  const rules: LimitRule[] = [
    {
      name: "ip_questions_per_hour",
      key: ip,
      limit: config.limits.anonPerHour * IP_QUESTIONS_FACTOR,
      windowMs: HOUR,
    },
    {
      name: "agent_queries_per_minute_per_ip",
      key: `${agentId}:${ip}`,
      limit: Math.ceil(config.limits.agentQueriesPerMinute / AGENT_SHARE_PER_IP),
      windowMs: MINUTE,
    },
  ];
  if (!visitorId)
    rules.push({ name: "visitors_per_hour", key: ip, limit: config.limits.anonPerHour, windowMs: HOUR });
  return rules;
}

/** Rate-limit state for the response, whichever the handler returns (added by requestContext). */
export function setLimitHeaders(c: Context<AppEnv>, state: LimitState): void {
  const headers = c.get("responseHeaders");
  headers["X-RateLimit-Limit"] = String(state.limit);
  headers["X-RateLimit-Remaining"] = String(state.remaining);
  headers["X-RateLimit-Reset"] = String(state.reset);
}

/** Charges a request to its principal (or client IP). */
export async function chargeRequest(config: Config, limiter: RateLimiter, c: Context<AppEnv>): Promise<void> {
  setLimitHeaders(c, await limiter.charge(limitRules(config, c)));
}

/** Route middleware: the request is charged before its handler runs. */
export function rateLimit(config: Config, limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await chargeRequest(config, limiter, c);
    await next();
  };
}

/**
 * Route middleware for answer streams: a request carrying `Last-Event-ID` resumes the stream it
 * names (see AnswerReplay) for the same caller, and goes no further.
 */
export function resumeStream(
  replay: AnswerReplay,
  ownerOf: (c: Context<AppEnv>) => string | Promise<string>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const lastEventId = requestHeader(c, "last-event-id");
    if (lastEventId === undefined) return next();
    return replay.resume(lastEventId, await ownerOf(c));
  };
}

/** Widget config reads per client IP and hour, as a multiple of the anonymous limit (a page view each). */
const WIDGET_CONFIG_FACTOR = 10;

/** The rules of a charge target (see `ChargeTarget`). */
function targetRules(config: Config, c: Context<AppEnv>, target: ChargeTarget): LimitRule[] {
  if ("id" in target) return limitRules(config, c, target.id, target.visitorId);
  return [
    {
      name: "widget_config_per_hour",
      key: limitKey(c.get("clientIp")),
      limit: config.limits.anonPerHour * WIDGET_CONFIG_FACTOR,
      windowMs: HOUR,
    },
  ];
}

/**
 * Route middleware for questions (and widget config reads): finds what the request is charged to
 * (access checked first) and charges the caller and the agent's query limit together. A refused
 * caller (no credential, another tenant's agent, a refused origin) is still charged to its own
 * limit, never to the agent's, and gets the headers.
 */
export function rateLimitQuery(
  config: Config,
  limiter: RateLimiter,
  targetOf: (c: Context<AppEnv>) => ChargeTarget | Promise<ChargeTarget>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let target: ChargeTarget;
    try {
      target = await targetOf(c);
    } catch (error) {
      await chargeRequest(config, limiter, c);
      throw error;
    }
    const questions = "id" in target ? (target.questions ?? 1) : 1;
    // Asks nothing (an MCP initialize, tools/list, ping…): the caller's ordinary request limit only.
    if (questions === 0) await chargeRequest(config, limiter, c);
    else {
      const quota = await chargeQuestions(limiter, targetRules(config, c, target), questions);
      setLimitHeaders(c, quota.state);
      c.set("questions", { charged: quota.charged, refusal: quota.refusal });
    }
    await next();
  };
}

/**
 * Charges `count` questions one by one, each to every rule, until one is refused: the caller gets
 * the answers it paid for and a 429 for each of the rest. If not even the first fits, the whole
 * request is refused with the 429 (as a single question always is).
 */
async function chargeQuestions(
  limiter: RateLimiter,
  rules: LimitRule[],
  count: number,
): Promise<{ state: LimitState; charged: number; refusal: AppError | null }> {
  let state = await limiter.charge(rules);
  let charged = 1;
  for (; charged < count; charged++) {
    try {
      state = await limiter.charge(rules);
    } catch (error) {
      if (error instanceof AppError && error.code === "rate_limited")
        return { state, charged, refusal: error };
      throw error;
    }
  }
  return { state, charged, refusal: null };
}
