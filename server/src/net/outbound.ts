import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import ipaddr from "ipaddr.js";
import type { Agent } from "undici";

export type OutboundErrorCode =
  | "invalid_url"
  | "blocked_address"
  | "dns_failed"
  | "too_large"
  | "timeout"
  | "too_many_redirects"
  | "bad_status"
  | "network_error";

/** An outbound fetch refused or failed; `code` says why, `url` which hop. */
export class OutboundError extends Error {
  override readonly name = "OutboundError";
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    readonly url: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface GuardedResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** Media type without parameters, lower case ("text/html"), or null. */
  contentType: string | null;
}

export interface GuardedFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Throw `bad_status` unless the final status is 2xx. */
  requireOk?: boolean;
  /** Per-call override of the byte cap. */
  maxBytes?: number;
}

export type GuardedFetch = (url: string, init?: GuardedFetchInit) => Promise<GuardedResponse>;

/** Resolves a host name to addresses (injectable so tests can play a rebinding DNS server). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface GuardedFetchOptions {
  /** Hosts ("localhost", "*.corp.test"), IPs ("127.0.0.1") or CIDRs ("10.0.0.0/8") exempt from the address check. */
  allowlist?: readonly string[];
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  userAgent?: string;
  resolve?: Resolver;
}

export const DEFAULT_OUTBOUND_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_OUTBOUND_TIMEOUT_MS = 30_000;
export const DEFAULT_OUTBOUND_MAX_REDIRECTS = 5;
export const DEFAULT_USER_AGENT = "LoreBot/1.0 (+https://github.com/lore)";

const systemResolver: Resolver = async (hostname) => {
  const found: LookupAddress[] = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Why an address may not be contacted (its IANA special-purpose range), or null for public unicast.
 * An IPv6 address embedding an IPv4 one (mapped, translated, compatible, NAT64, 6to4, Teredo) is
 * judged by that IPv4 address; anything unparseable is "invalid". Never throws.
 */
export function blockedRange(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    if (!ipaddr.isValid(address)) return "invalid";
    ip = ipaddr.parse(address);
  } catch {
    return "invalid";
  }
  if (ip.kind() === "ipv4") return publicOrRange(ip.range());
  const v6 = ip as ipaddr.IPv6;
  if (v6.range() === "loopback" || v6.range() === "unspecified") return v6.range(); // ::1 and ::
  const embedded = embeddedIpv4(v6);
  if (embedded.length > 0) {
    for (const v4 of embedded) {
      const range = v4.range();
      if (range !== "unicast") return range;
    }
    return null;
  }
  return publicOrRange(v6.range());
}

function publicOrRange(range: string): string | null {
  return range === "unicast" ? null : range;
}

/** The IPv4 addresses an IPv6 address carries, by the form it has; empty for a plain IPv6 address. */
function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = ip.toByteArray();
  const v4 = (from: number, mask = 0): ipaddr.IPv4 =>
    new ipaddr.IPv4(bytes.slice(from, from + 4).map((b) => b ^ mask));
  const zero = (from: number, to: number): boolean => bytes.slice(from, to).every((b) => b === 0);
  const word = (i: number): number => ((bytes[i * 2] ?? 0) << 8) | (bytes[i * 2 + 1] ?? 0);
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (RFC 6145 translated), ::a.b.c.d (compatible; :: and ::1 included).
  if (zero(0, 10) && word(5) === 0xffff) return [v4(12)];
  if (zero(0, 8) && word(4) === 0xffff && word(5) === 0) return [v4(12)];
  if (zero(0, 12)) return [v4(12)];
  // 64:ff9b::/96 (NAT64 well-known) and 64:ff9b:1::/48 (local-use NAT64, RFC 8215).
  if (word(0) === 0x64 && word(1) === 0xff9b) return [v4(12)];
  if (word(0) === 0x2002) return [v4(2)]; // 6to4
  // Teredo 2001:0::/32: the server's address, and the client's stored inverted.
  if (word(0) === 0x2001 && word(1) === 0) return [v4(4), v4(12, 0xff)];
  return [];
}

interface Allowlist {
  allowsHost(hostname: string): boolean;
  allowsAddress(address: string): boolean;
}

function parseAllowlist(entries: readonly string[]): Allowlist {
  const hosts: string[] = [];
  const cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of entries) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, "");
    if (!entry) continue;
    if (entry.includes("/") && ipaddr.isValidCIDR(entry)) cidrs.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) {
      const ip = ipaddr.parse(entry);
      cidrs.push([ip, ip.kind() === "ipv4" ? 32 : 128]);
    } else hosts.push(entry.replace(/\.$/, ""));
  }
  const normalise = (address: string): (ipaddr.IPv4 | ipaddr.IPv6)[] => {
    if (!ipaddr.isValid(address)) return [];
    const ip = ipaddr.parse(address);
    return ip.kind() === "ipv6" ? [ip, ...embeddedIpv4(ip as ipaddr.IPv6)] : [ip];
  };
  return {
    allowsHost(hostname) {
      const h = hostname.toLowerCase().replace(/\.$/, "");
      return hosts.some((e) => e === h || (e.startsWith("*.") && h.endsWith(e.slice(1))));
    },
    allowsAddress(address) {
      return normalise(address).some((ip) =>
        cidrs.some(([range, bits]) => ip.kind() === range.kind() && ip.match(range, bits)),
      );
    },
  };
}

interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

function parseHttpUrl(input: string): URL {
  let url: URL;
  try {
    // WHATWG parsing canonicalises decimal/octal/hex IPv4 spellings (http://0x7f000001/ → 127.0.0.1).
    url = new URL(input);
  } catch {
    throw new OutboundError("invalid_url", `not a valid URL: ${input}`, input);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundError(
      "invalid_url",
      `only http and https URLs may be fetched, not ${url.protocol}`,
      input,
    );
  }
  if (url.username || url.password)
    throw new OutboundError("invalid_url", "URLs with credentials are not fetched", input);
  return url;
}

async function checkTarget(
  url: URL,
  allowlist: Allowlist,
  resolve: Resolver,
  deadline: Promise<never>,
): Promise<CheckedTarget> {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string; family: 4 | 6 }[];
  if (ipaddr.isValid(hostname)) addresses = [{ address: hostname, family: hostname.includes(":") ? 6 : 4 }];
  else {
    try {
      addresses = await Promise.race([resolve(hostname), deadline]);
    } catch (err) {
      if (err instanceof OutboundError) throw err;
      throw new OutboundError("dns_failed", `could not resolve ${hostname}`, url.href);
    }
    if (addresses.length === 0)
      throw new OutboundError("dns_failed", `no addresses for ${hostname}`, url.href);
  }
  const hostAllowed = allowlist.allowsHost(hostname);
  const literal = ipaddr.isValid(hostname);
  // Every address must pass: a name resolving to one public and one private address is refused.
  for (const { address } of addresses) {
    const range = blockedRange(address);
    if (range && !hostAllowed && !allowlist.allowsAddress(address)) {
      // A name's DNS answer stays out of the message: echoing it would map internal names.
      const why = literal ? `${range} address` : "it does not resolve to a public address";
      throw new OutboundError("blocked_address", `refusing to connect to ${hostname}: ${why}`, url.href);
    }
  }
  const first = addresses[0];
  if (!first) throw new OutboundError("dns_failed", `no addresses for ${hostname}`, url.href);
  return { url, address: first.address, family: first.family };
}

/** Validates a URL an owner configured (webhook, model endpoint): http(s), and not private unless allow-listed. */
export async function assertPublicUrl(
  url: string,
  allowlist: readonly string[] = [],
  resolve: Resolver = systemResolver,
): Promise<URL> {
  const parsed = parseHttpUrl(url);
  // A resolver that never answers must not hold the request that configures the URL.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new OutboundError("dns_failed", `could not resolve ${parsed.hostname} in time`, parsed.href)),
      5_000,
    );
  });
  deadline.catch(() => undefined);
  try {
    await checkTarget(parsed, parseAllowlist(allowlist), resolve, deadline);
  } finally {
    clearTimeout(timer);
  }
  return parsed;
}

let undici: Promise<typeof import("undici")> | undefined;
/** undici, loaded with the first outbound request: a server that makes none never pays for it. */
const loadUndici = () => (undici ??= import("undici"));

/** An undici dispatcher that connects to the address that was checked, whatever DNS says now. */
function pinnedAgent(Dispatcher: typeof Agent, target: CheckedTarget, timeoutMs: number): Agent {
  return new Dispatcher({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: {
      timeout: timeoutMs,
      lookup: (_hostname, options, callback) => {
        if (typeof options === "object" && options !== null && "all" in options && options.all) {
          callback(null, [{ address: target.address, family: target.family }]);
        } else callback(null, target.address, target.family);
      },
    },
  });
}

function decoded(body: Readable, encoding: string | null): Readable {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return body.pipe(createGunzip());
    case "deflate":
      return body.pipe(createInflate());
    case "br":
      return body.pipe(createBrotliDecompress());
    default:
      return body;
  }
}

/** Drops a body we will not read (destroying undici's stream without a listener raises AbortError). */
function discard(body: Readable): void {
  body.on("error", () => undefined);
  body.destroy();
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * An HTTP client for URLs chosen by users (crawls, webhooks): http(s) only; DNS resolved here and
 * every address checked (loopback, private, link-local/metadata, CGNAT, multicast, ULA, mapped forms)
 * on the first hop and every redirect; the connection pinned to the checked address so DNS cannot
 * change in between; bodies streamed and cut at maxBytes (after decompression); one overall deadline.
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const allowlist = parseAllowlist(options.allowlist ?? []);
  const resolve = options.resolve ?? systemResolver;
  const timeoutMs = options.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_OUTBOUND_MAX_REDIRECTS;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;

  return async function guardedFetch(input, init = {}) {
    const maxBytes = init.maxBytes ?? options.maxBytes ?? DEFAULT_OUTBOUND_MAX_BYTES;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let rejectDeadline: (err: OutboundError) => void = () => undefined;
    const deadline = new Promise<never>((_, reject) => {
      rejectDeadline = reject;
    });
    deadline.catch(() => undefined);
    const onAbort = (): void =>
      rejectDeadline(new OutboundError("timeout", `no answer within ${timeoutMs} ms`, input));
    timeout.addEventListener("abort", onAbort, { once: true });

    const { Agent, request } = await loadUndici();
    let url = parseHttpUrl(input);
    let method = (init.method ?? "GET").toUpperCase();
    let body = init.body;
    try {
      for (let hop = 0; ; hop++) {
        const target = await checkTarget(url, allowlist, resolve, deadline);
        const agent = pinnedAgent(Agent, target, timeoutMs);
        // undici gets a signal that is only ever aborted while this hop is in flight; aborting a
        // finished request's signal later would surface as an unhandled error from its body stream.
        const hopController = new AbortController();
        const abortHop = (): void => hopController.abort(signal.reason);
        signal.addEventListener("abort", abortHop, { once: true });
        try {
          const res = await request(url, {
            method: method as "GET",
            headers: { "user-agent": userAgent, "accept-encoding": "gzip, deflate, br", ...init.headers },
            body: body ?? null,
            signal: hopController.signal,
            dispatcher: agent,
          });
          const location = headerValue(res.headers.location);
          if ([301, 302, 303, 307, 308].includes(res.statusCode) && location) {
            discard(res.body);
            if (hop >= maxRedirects)
              throw new OutboundError("too_many_redirects", `more than ${maxRedirects} redirects`, url.href);
            url = parseHttpUrl(new URL(location, url).href);
            if (
              res.statusCode === 303 ||
              ((res.statusCode === 301 || res.statusCode === 302) && method === "POST")
            ) {
              method = "GET";
              body = undefined;
            }
            continue;
          }
          const declared = Number(headerValue(res.headers["content-length"]) ?? Number.NaN);
          if (Number.isFinite(declared) && declared > maxBytes) {
            discard(res.body);
            throw new OutboundError(
              "too_large",
              `response of ${declared} bytes exceeds the ${maxBytes} byte limit`,
              url.href,
            );
          }
          const parts: Uint8Array[] = [];
          let total = 0;
          const stream = decoded(res.body, headerValue(res.headers["content-encoding"]));
          try {
            for await (const chunk of stream) {
              const bytes = chunk as Uint8Array;
              total += bytes.length;
              if (total > maxBytes) {
                stream.on("error", () => undefined);
                stream.destroy();
                discard(res.body);
                throw new OutboundError("too_large", `response exceeds the ${maxBytes} byte limit`, url.href);
              }
              parts.push(bytes);
            }
          } catch (err) {
            if (err instanceof OutboundError) throw err;
            if (signal.aborted) throw err;
            throw new OutboundError(
              "network_error",
              `reading the response failed: ${(err as Error).message}`,
              url.href,
            );
          }
          const out = new Uint8Array(total);
          let offset = 0;
          for (const p of parts) {
            out.set(p, offset);
            offset += p.length;
          }
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue;
            for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
          }
          const contentType = headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() || null;
          if (init.requireOk && (res.statusCode < 200 || res.statusCode > 299)) {
            throw new OutboundError(
              "bad_status",
              `${url.href} answered ${res.statusCode}`,
              url.href,
              res.statusCode,
            );
          }
          return { url: url.href, status: res.statusCode, headers, body: out, contentType };
        } finally {
          signal.removeEventListener("abort", abortHop);
          void agent.close().catch(() => undefined);
        }
      }
    } catch (err) {
      if (err instanceof OutboundError) throw err;
      if (timeout.aborted) throw new OutboundError("timeout", `no answer within ${timeoutMs} ms`, url.href);
      if (init.signal?.aborted) throw err;
      throw new OutboundError(
        "network_error",
        `request to ${url.href} failed: ${(err as Error).message}`,
        url.href,
      );
    } finally {
      timeout.removeEventListener("abort", onAbort);
    }
  };
}
