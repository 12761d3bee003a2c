import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from "node:zlib";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./principal.ts";
import { requestHeader } from "./request-header.ts";
import { replaceResponse } from "./response-headers.ts";

export type Encoding = "br" | "gzip" | "identity";
/** Static files are compressed once, so at the highest levels; responses per request at fast ones. */
export type CompressionEffort = "static" | "dynamic";

/** Below this a compressed body saves less than its headers and the CPU cost. */
export const MIN_COMPRESS_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * The encoding to send for an `Accept-Encoding` header: the highest q-value among br and gzip
 * (an unlisted one takes `*`'s), brotli on a tie; identity when neither is acceptable.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return "identity";
  const q: Record<string, number> = {};
  for (const part of acceptEncoding.split(",")) {
    const [name = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const weight = params.find((p) => p.startsWith("q="));
    const value = weight === undefined ? 1 : Number(weight.slice(2));
    q[name] = Number.isFinite(value) ? value : 0;
  }
  const br = q.br ?? q["*"] ?? 0;
  const gz = q.gzip ?? q["x-gzip"] ?? q["*"] ?? 0;
  if (br > 0 && br >= gz) return "br";
  return gz > 0 ? "gzip" : "identity";
}

/** Text formats worth compressing; never Server-Sent Events (each event must leave at once). */
export function isCompressible(contentType: string | null): boolean {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "text/event-stream") return false;
  return (
    type.startsWith("text/") ||
    type === "application/json" ||
    type.endsWith("+json") ||
    type === "application/javascript" ||
    type === "image/svg+xml"
  );
}

/**
 * Responses up to this size are compressed on the event loop: a few kilobytes take tens of
 * microseconds, where the thread pool's round trip took 1.5 ms (median) in a busy server, each of
 * whose hops can wait behind other callbacks. 32 KB take about 0.3 ms at the dynamic levels.
 */
export const INLINE_COMPRESS_BYTES = 32 * 1024;

const brotliOptions = (bytes: Uint8Array, effort: CompressionEffort) => ({
  params: {
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    // 11 costs ~100 ms for the panel: fine once per build, not per request (5 beats gzip -6 at a lower cost).
    [constants.BROTLI_PARAM_QUALITY]: effort === "static" ? constants.BROTLI_MAX_QUALITY : 5,
    [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
  },
});
const gzipOptions = (effort: CompressionEffort) => ({ level: effort === "static" ? 9 : 6 });

/** Compresses a whole body: off the event loop (zlib's thread pool), unless it is a small response. */
export async function compressBytes(
  bytes: Uint8Array,
  encoding: Exclude<Encoding, "identity">,
  effort: CompressionEffort,
): Promise<Buffer> {
  if (effort === "dynamic" && bytes.byteLength <= INLINE_COMPRESS_BYTES) {
    return encoding === "br"
      ? brotliCompressSync(bytes, brotliOptions(bytes, effort))
      : gzipSync(bytes, gzipOptions(effort));
  }
  return encoding === "br"
    ? brotli(bytes, brotliOptions(bytes, effort))
    : gzipAsync(bytes, gzipOptions(effort));
}

/** Adds `Accept-Encoding` to a response's `Vary` unless it is already there. */
export function varyOnEncoding(headers: Headers): void {
  const vary = headers.get("vary");
  if (!vary) headers.set("Vary", "Accept-Encoding");
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary))
    headers.set("Vary", `${vary}, Accept-Encoding`);
}

/**
 * Compresses finished responses of a text type (JSON, HTML, …) of at least 1 KB with brotli or gzip,
 * as `Accept-Encoding` allows, and marks every such response `Vary: Accept-Encoding`. Left as they
 * are: SSE and other streams, `no-transform`, bodies that already have a Content-Encoding (the
 * site's precompressed files) and bodyless statuses.
 */
export function compressResponses(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const res = c.res;
    const headers = res.headers;
    if (
      res.status < 200 ||
      res.status === 204 ||
      res.status === 304 ||
      headers.has("content-encoding") ||
      !isCompressible(headers.get("content-type")) ||
      /\bno-transform\b/i.test(headers.get("cache-control") ?? "")
    ) {
      return;
    }
    // In place: the headers object is the one the response (and the later writers) use.
    varyOnEncoding(headers);
    const encoding = negotiateEncoding(requestHeader(c, "accept-encoding"));
    if (encoding === "identity") return;
    // Reading the body is safe here: text responses are built whole (streams are SSE, excluded above).
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength < MIN_COMPRESS_BYTES) {
      replaceResponse(c, new Response(bytes, { status: res.status, headers }));
      return;
    }
    const body = await compressBytes(bytes, encoding, "dynamic");
    headers.set("Content-Encoding", encoding);
    headers.delete("Content-Length");
    const etag = headers.get("etag");
    // A strong ETag names exact bytes; these are other bytes.
    if (etag && !etag.startsWith("W/")) headers.set("ETag", `W/${etag}`);
    replaceResponse(c, new Response(new Uint8Array(body), { status: res.status, headers }));
  };
}
