import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";

/**
 * `c.req.header(name)` (lower-case name) without building the request's fetch `Headers`: under
 * @hono/node-server that is a validated copy of every header, made only to read two or three of
 * them. Node's parsed `headersDistinct` gives the same value (duplicates joined with ", ", outer
 * whitespace trimmed). Elsewhere (`app.request()` in tests) it is `c.req.header()`.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const values = incoming.headersDistinct[name];
  if (values === undefined) return undefined;
  return values.length === 1 ? values[0] : values.join(", ");
}
