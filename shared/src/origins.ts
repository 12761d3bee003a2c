// What an owner types into "allowed origins" and the origin it means. Kept free of zod so the
// console can import it (`@lore/shared/origins`) without the schema library.

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;
const ORIGIN = /^(?:(https?):\/\/)?([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:]+\])(?::(\d{1,5}))?\/?$/;

/**
 * The origin an allowed-origins entry means, or null when it is not one: `*` stays; a bare host
 * (`example.com`, `127.0.0.1:8823`) gets `https://`, or `http://` for a loopback host; a trailing
 * slash goes; case folds. Paths, queries and other schemes are not origins.
 */
export function normaliseOrigin(input: string): string | null {
  const text = input.trim().toLowerCase();
  if (text === "*") return "*";
  const match = ORIGIN.exec(text);
  if (!match) return null;
  const [, scheme, host = "", port] = match;
  if (port !== undefined && Number(port) > 65535) return null;
  const resolved = scheme ?? (LOOPBACK.test(host) ? "http" : "https");
  // The browser's Origin header leaves out the scheme's default port.
  const defaultPort = resolved === "https" ? "443" : "80";
  return `${resolved}://${host}${port === undefined || port === defaultPort ? "" : `:${port}`}`;
}

export const ORIGIN_HINT =
  "must be a site's origin like https://example.com or a host like example.com or 127.0.0.1:8080 (no path)";
