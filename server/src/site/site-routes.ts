import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context, Hono } from "hono";
import { AppError } from "../errors.ts";
import type { AppEnv } from "../http/principal.ts";
import type { Services } from "../services.ts";
import { verifyPreviewGrant } from "./preview-grant.ts";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const widgetDist = join(repoRoot, "widget", "dist");
const demoDir = join(repoRoot, "demo");

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

function send(
  _c: Context,
  body: Buffer,
  file: string,
  cacheControl: string,
  extra: Record<string, string> = {},
): Response {
  const ext = file.slice(file.lastIndexOf("."));
  return new Response(new Uint8Array(body), {
    headers: {
      "Content-Type": contentTypes[ext] ?? "application/octet-stream",
      "Cache-Control": cacheControl,
      "X-Content-Type-Options": "nosniff",
      "Cross-Origin-Resource-Policy": "cross-origin",
      ...extra,
    },
  });
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
  const page = (c: Context, file: string, vars: (nonce: string) => Record<string, string>) => {
    const template = readUnder(demoDir, file);
    if (!template) throw new AppError("not_found", "No such page", { resource: "page", id: file });
    const nonce = randomBytes(16).toString("base64");
    let html = template.toString("utf8");
    for (const [key, value] of Object.entries({ ...vars(nonce), nonce, apiPrefix: s.config.apiPrefix })) {
      html = html.replaceAll(`{{${key}}}`, escapeHtml(value));
    }
    return send(c, Buffer.from(html), file, "no-store", {
      "Content-Security-Policy": strictCsp(nonce),
      "Referrer-Policy": "strict-origin-when-cross-origin",
    });
  };

  app.get("/widget.js", (c) => {
    const body = readUnder(widgetDist, "widget.js");
    if (!body)
      throw new AppError("not_found", "The widget is not built; run npm start", {
        resource: "file",
        id: "widget.js",
      });
    return send(c, body, "widget.js", "public, max-age=300", { "Access-Control-Allow-Origin": "*" });
  });
  app.get("/assets/:file", (c) => {
    const file = c.req.param("file");
    const body = /^[\w.-]+$/.test(file) ? readUnder(join(widgetDist, "assets"), file) : null;
    if (!body) throw new AppError("not_found", "No such asset", { resource: "file", id: file });
    // The panel loads as a module script: cross-origin embeds need CORS.
    return send(c, body, file, "public, max-age=31536000, immutable", { "Access-Control-Allow-Origin": "*" });
  });
  app.get("/demo/:file", (c) => {
    const file = c.req.param("file");
    const body = /^[\w.-]+$/.test(file) && !file.endsWith(".html") ? readUnder(demoDir, file) : null;
    if (!body) throw new AppError("not_found", "No such file", { resource: "file", id: file });
    return send(c, body, file, "no-cache");
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
  app.get("/console", (c) => c.redirect("/console/", 308));
  app.get("/console/", (c) => page(c, "console.html", () => ({})));
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
