import ipaddr from "ipaddr.js";

/**
 * Which proxies in front of the server are trusted to append to `X-Forwarded-For`: none, a number
 * of hops (`LORE_TRUST_PROXY=true` is one), or the proxies' addresses as CIDRs.
 */
export type ProxyTrust =
  | { kind: "none" }
  | { kind: "hops"; hops: number }
  | { kind: "cidrs"; cidrs: readonly string[] };

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses `LORE_TRUST_PROXY`: false/true, a hop count, or a comma list of IPs and CIDRs; null if invalid. */
export function parseProxyTrust(value: string): ProxyTrust | null {
  const v = value.trim().toLowerCase();
  if (["", "false", "0", "no"].includes(v)) return { kind: "none" };
  if (["true", "yes"].includes(v)) return { kind: "hops", hops: 1 };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return hops >= 1 && hops <= 32 ? { kind: "hops", hops } : null;
  }
  const cidrs = v
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  return cidrs.every((c) => toRange(c) !== null) ? { kind: "cidrs", cidrs } : null;
}

function toRange(entry: string): Range | null {
  try {
    if (entry.includes("/")) return ipaddr.parseCIDR(entry);
    const ip = ipaddr.parse(entry);
    return [ip, ip.kind() === "ipv4" ? 32 : 128];
  } catch {
    return null;
  }
}

/** An address as written in X-Forwarded-For or by the socket, canonical (IPv4-mapped IPv6 unwrapped, port dropped); null if not an IP. */
export function canonicalIp(raw: string): string | null {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed?.[1]) s = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.indexOf(":"));
  try {
    const ip = ipaddr.process(s); // ::ffff:a.b.c.d → a.b.c.d
    return ip.toString();
  } catch {
    return null;
  }
}

/** Whether a canonical address is one of the listed proxies' (`cidrs` trust only). */
function listedProxy(trust: ProxyTrust): (ip: string) => boolean {
  const ranges: Range[] = [];
  if (trust.kind === "cidrs")
    for (const c of trust.cidrs) {
      const range = toRange(c);
      if (range) ranges.push(range);
    }
  return (ip) => {
    const parsed = ipaddr.parse(ip);
    return ranges.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
  };
}

/**
 * The one decision of whether a request came through a trusted proxy, so that anything the proxy
 * adds (`X-Forwarded-For`, `-Proto`, `-Host`, `-Prefix`, `Forwarded`) may be read: never without
 * trust; always with a hop count (the socket's peer is taken to be the proxy); with listed proxies,
 * only when the socket's peer is one of them.
 */
export function createProxyCheck(trust: ProxyTrust): (socketAddress: string | null) => boolean {
  if (trust.kind === "none") return () => false;
  if (trust.kind === "hops") return () => true;
  const listed = listedProxy(trust);
  return (socketAddress) => {
    const ip = socketAddress ? canonicalIp(socketAddress) : null;
    return ip !== null && listed(ip);
  };
}

/**
 * The client's address: the rightmost one not added by a trusted proxy. Entries left of it are
 * whatever the client sent and are never used, so rotating `X-Forwarded-For` changes nothing.
 */
export function createClientIp(
  trust: ProxyTrust,
): (socketAddress: string | null, forwardedFor: string | undefined) => string {
  const trusted = listedProxy(trust);
  return (socketAddress, forwardedFor) => {
    const socket = socketAddress ? (canonicalIp(socketAddress) ?? socketAddress) : "unknown";
    if (trust.kind === "none" || !forwardedFor) return socket;
    // The socket's peer is the last hop; each proxy appended the address it was called from.
    const chain = [...forwardedFor.split(","), socket].map((a) => canonicalIp(a));
    if (trust.kind === "hops") {
      const picked = chain[Math.max(0, chain.length - 1 - trust.hops)];
      return picked ?? socket;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const address = chain[i];
      // A hop that is not a valid address cannot be a trusted proxy: the one to its right is the client.
      if (!address) return chain[i + 1] ?? socket;
      if (!trusted(address)) return address;
    }
    return chain[0] ?? socket;
  };
}

/**
 * What anonymous and login limits count an address as: an IPv4 address itself, an IPv6 address its
 * /64 (one subscriber's network, as an IPv4 address is one NAT): a /64 holder gets no fresh budget
 * per address (issue #34). Anything that is not an IP ("unknown") is itself.
 */
export function limitKey(ip: string): string {
  if (!ip.includes(":")) return ip;
  try {
    const parts = ipaddr.IPv6.parse(ip).parts.slice(0, 4);
    return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
  } catch {
    return ip;
  }
}
