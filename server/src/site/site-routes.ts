import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, normalize, sep } from "node:path";
import type { Context, Hono } from "hono";
import { AppError } from "../errors.ts";
import { isCompressible, negotiateEncoding, varyOnEncoding } from "../http/compression.ts";
import { publicPrefix } from "../http/forwarded.ts";
import type { AppEnv } from "../http/principal.ts";
import { requestHeader } from "../http/request-header.ts";
import type { Services } from "../services.ts";
import { verifyPreviewGrant } from "./preview-grant.ts";
import { resolveSiteRoots } from "./site-roots.ts";
import { createStaticFiles, matchesEtag, type StaticFiles } from "./static-files.ts";

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".pdf": "application/pdf",
};

/** Reads a file under `root` only; anything resolving outside it is 404. */
function readUnder(root: string, relative: string): Buffer | null {
  const path = normalize(join(root, relative));
  if (!path.startsWith(root + sep) || !existsSync(path)) return null;
  return readFileSync(path);
}

function contentTypeOf(file: string): string {
  return contentTypes[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream";
}

function send(
  _c: Context,
  body: Buffer,
  file: string,
  cacheControl: string,
  extra: Record<string, string> = {},
): Response {
  return new Response(new Uint8Array(body), {
    headers: {
      "Content-Type": contentTypeOf(file),
      "Cache-Control": cacheControl,
      "X-Content-Type-Options": "nosniff",
      "Cross-Origin-Resource-Policy": "cross-origin",
      ...extra,
    },
  });
}

/**
 * A static file in the encoding the client accepts (see static-files.ts), with a strong ETag per
 * encoding and 304 for a matching `If-None-Match`; null when there is no such file.
 */
async function sendStatic(
  c: Context,
  files: StaticFiles,
  root: string,
  file: string,
  cacheControl: string,
  extra: Record<string, string> = {},
): Promise<Response | null> {
  const contentType = contentTypeOf(file);
  const variant = await files.read(
    root,
    file,
    contentType,
    negotiateEncoding(requestHeader(c, "accept-encoding")),
  );
  if (!variant) return null;
  // Headers (not a record): Hono's HEAD answer is built from this response's init.
  const headers = new Headers({
    "Cache-Control": cacheControl,
    ETag: variant.etag,
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "cross-origin",
    ...extra,
  });
  if (isCompressible(contentType)) varyOnEncoding(headers);
  if (matchesEtag(requestHeader(c, "if-none-match"), variant.etag)) {
    return new Response(null, { status: 304, headers });
  }
  headers.set("Content-Type", contentType);
  if (variant.encoding !== "identity") headers.set("Content-Encoding", variant.encoding);
  return new Response(new Uint8Array(variant.body), { headers });
}

/** A strict policy for our own pages: no inline script or style, scripts only with the page's nonce or from self. */
export function strictCsp(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self' data: https:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join("; ");
}

/**
 * The widget script (short cache; it names the hashed panel), the hashed panel assets (immutable),
 * the demo site and the owner console. Pages are served under a strict Content-Security-Policy.
 */
export function mountSite(app: Hono<AppEnv>, s: Pick<Services, "config" | "store">): void {
  const files = createStaticFiles();
  const { widget: widgetDist, demo: demoDir, console: consoleDist } = resolveSiteRoots(s.config.siteDir);
  const page = (
    c: Context<AppEnv>,
    file: string,
    vars: (nonce: string) => Record<string, string>,
    root: string = demoDir,
  ) => {
    const template = readUnder(root, file);
    if (!template) throw new AppError("not_found", "No such page", { resource: "page", id: file });
    const nonce = randomBytes(16).toString("base64");
    let html = template.toString("utf8");
    // The API as the browser reaches it: under a proxy's path prefix, the prefix first.
    const apiPrefix = `${publicPrefix(c)}${s.config.apiPrefix}`;
    for (const [key, value] of Object.entries({ ...vars(nonce), nonce, apiPrefix })) {
      html = html.replaceAll(`{{${key}}}`, escapeHtml(value));
    }
    return send(c, Buffer.from(html), file, "no-store", {
      "Content-Security-Policy": strictCsp(nonce),
      "Referrer-Policy": "strict-origin-when-cross-origin",
    });
  };

  app.get("/widget.js", async (c) => {
    const res = await sendStatic(c, files, widgetDist, "widget.js", "public, max-age=300", {
      "Access-Control-Allow-Origin": "*",
    });
    if (!res)
      throw new AppError("not_found", "The widget is not built; run npm start", {
        resource: "file",
        id: "widget.js",
      });
    return res;
  });
  app.get("/assets/:file", async (c) => {
    const file = c.req.param("file");
    // The panel loads as a module script: cross-origin embeds need CORS.
    const serve = () =>
      sendStatic(c, files, join(widgetDist, "assets"), file, "public, max-age=31536000, immutable", {
        "Access-Control-Allow-Origin": "*",
      });
    // The .br/.gz siblings are served as encodings of their file, never under their own names.
    const res = /^[\w.-]+$/.test(file) && !/\.(br|gz)$/.test(file) ? await serve() : null;
    if (!res) throw new AppError("not_found", "No such asset", { resource: "file", id: file });
    return res;
  });
  app.get("/demo/:file", async (c) => {
    const file = c.req.param("file");
    const res =
      /^[\w.-]+$/.test(file) && !file.endsWith(".html")
        ? await sendStatic(c, files, demoDir, file, "no-cache")
        : null;
    if (!res) throw new AppError("not_found", "No such file", { resource: "file", id: file });
    return res;
  });
  // The demo page embeds an agent only for a preview grant from the console, or (outside production)
  // for an explicit `?widget=`; whether that widget may talk to its agent is the origin check's call.
  app.get("/", (c) =>
    page(c, "index.html", () => {
      const preview = c.req.query("preview");
      if (preview !== undefined) {
        const claims = verifyPreviewGrant(s.config.jwtSecret, preview);
        const agent = claims ? s.store.agents.get(claims.agentId) : undefined;
        const live = agent !== undefined && agent.widgetId === claims?.widgetId;
        return { widgetId: live ? agent.widgetId : "", pageState: live ? "preview" : "preview-expired" };
      }
      const requested = s.config.production ? undefined : c.req.query("widget");
      const widgetId = requested && /^wgt_[\w-]+$/.test(requested) ? requested : "";
      return { widgetId, pageState: widgetId ? "widget" : "empty" };
    }),
  );
  // Relative, so that it stays under a proxy's path prefix (/support/console → /support/console/).
  app.get("/console", (c) => c.redirect("console/", 308));
  // The console's build (console/dist): its page under the same policy, its hashed assets immutable.
  const consoleRoot = () => {
    if (!consoleDist)
      throw new AppError("not_found", "The console is not built; run npm start", {
        resource: "page",
        id: "console",
      });
    return consoleDist;
  };
  app.get("/console/", (c) => page(c, "index.html", () => ({}), consoleRoot()));
  app.get("/console/assets/:file", async (c) => {
    const file = c.req.param("file");
    const res =
      /^[\w.-]+$/.test(file) && !/\.(br|gz)$/.test(file)
        ? await sendStatic(
            c,
            files,
            join(consoleRoot(), "assets"),
            file,
            "public, max-age=31536000, immutable",
          )
        : null;
    if (!res) throw new AppError("not_found", "No such asset", { resource: "file", id: file });
    return res;
  });
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
