import type { OutboundError } from "./outbound.ts";

/**
 * An owner's sentence for a refused or failed outbound URL: the guard's reason, capitalised, and
 * what to do about it (the allowlist for a private address, the address itself for DNS).
 */
export function outboundAdvice(error: OutboundError): string {
  const reason = `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`;
  switch (error.code) {
    case "blocked_address":
      return `${reason} For a server on this machine or your own network, start Lore with its host or network in LORE_OUTBOUND_ALLOWLIST (a host name, an address or a network such as 10.0.0.0/8).`;
    case "dns_failed":
      return `${reason} Check the address for typos; a name only your network knows needs a DNS server this Lore server can reach.`;
    case "invalid_url":
      return `${reason} Use a web address like https://docs.example.com/.`;
    case "too_many_redirects":
      return `${reason} Use the address the site finally answers at.`;
    case "bad_status":
      return `${reason} Check that the page opens in a browser.`;
    case "timeout":
    case "network_error":
      return `${reason} Check that the site is up and reachable from the Lore server.`;
    case "too_large":
      return reason;
    default:
      return error.code satisfies never;
  }
}
