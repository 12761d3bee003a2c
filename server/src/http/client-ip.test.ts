import { describe, expect, it } from "vitest";
import { canonicalIp, createClientIp, limitKey, parseProxyTrust } from "./client-ip.ts";

describe("parseProxyTrust", () => {
  it.each([
    ["", { kind: "none" }],
    ["false", { kind: "none" }],
    ["0", { kind: "none" }],
    ["true", { kind: "hops", hops: 1 }],
    ["3", { kind: "hops", hops: 3 }],
    ["10.0.0.0/8, 192.168.1.5,fd00::/8", { kind: "cidrs", cidrs: ["10.0.0.0/8", "192.168.1.5", "fd00::/8"] }],
  ])("reads %j", (value, trust) => {
    expect(parseProxyTrust(value)).toEqual(trust);
  });

  it.each(["maybe", "10.0.0.0/33", "99"])("refuses %j", (value) => {
    expect(parseProxyTrust(value)).toBeNull();
  });
});

describe("client IP", () => {
  it("canonicalises ports, brackets and IPv4-mapped addresses", () => {
    expect(canonicalIp("203.0.113.7:4711")).toBe("203.0.113.7");
    expect(canonicalIp("[2001:db8::1]:443")).toBe("2001:db8::1");
    expect(canonicalIp("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(canonicalIp("unknown")).toBeNull();
  });

  it("takes the rightmost address no trusted proxy added", () => {
    const oneHop = createClientIp({ kind: "hops", hops: 1 });
    expect(oneHop("10.0.0.2", "1.1.1.1, 203.0.113.7")).toBe("203.0.113.7");
    expect(oneHop("10.0.0.2", undefined)).toBe("10.0.0.2");
    const cidrs = createClientIp({ kind: "cidrs", cidrs: ["10.0.0.0/8"] });
    expect(cidrs("10.0.0.2", "1.1.1.1, 203.0.113.7, 10.9.9.9")).toBe("203.0.113.7");
    // Not from a trusted proxy: the header is the client's own words.
    expect(cidrs("198.51.100.4", "203.0.113.7")).toBe("198.51.100.4");
    // Every hop trusted: the leftmost is the best guess.
    expect(cidrs("10.0.0.2", "10.1.1.1")).toBe("10.1.1.1");
    expect(createClientIp({ kind: "none" })("::ffff:10.0.0.2", "203.0.113.7")).toBe("10.0.0.2");
  });
});

describe("limitKey", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["2001:db8:aa:1::1", "2001:db8:aa:1::/64"],
    ["2001:db8:aa:1:ffff:ffff:ffff:ffff", "2001:db8:aa:1::/64"],
    ["::1", "::/64"],
    ["unknown", "unknown"],
  ])("counts %s as %s", (ip, key) => {
    expect(limitKey(ip)).toBe(key);
  });
});
