import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { makePdf } from "../fixtures/pdf.ts";

/** A page of the test site. HTML pages are wrapped in header/nav/footer boilerplate. */
export interface SitePage {
  title?: string;
  /** Main-content HTML (inside <main>). */
  html?: string;
  /** Raw body served as is (with `contentType`), instead of the HTML template. */
  raw?: string | Uint8Array;
  contentType?: string;
  /** Path or absolute URL for <link rel=canonical>. */
  canonical?: string;
  /** Listed in sitemap.xml (default: HTML pages yes). */
  inSitemap?: boolean;
  /** 301/302 redirect target instead of content. */
  redirectTo?: string;
}

export interface TestSite {
  url: string;
  /** Every request path received, in order (robots.txt and sitemaps included). */
  requests: string[];
  setPage(path: string, page: SitePage): void;
  removePage(path: string): void;
  close(): Promise<void>;
}

function layout(path: string, page: SitePage): string {
  const canonical = page.canonical ? `<link rel="canonical" href="${page.canonical}">` : "";
  return `<!doctype html><html><head><meta charset="utf-8"><title>${page.title ?? path} | Test Site</title>${canonical}</head>
<body><header class="site-header"><a href="/">Test Site</a><nav><a href="/">Home</a> <a href="/docs/">Docs</a> <a href="/blog/">Blog</a></nav></header>
<div class="cookie-consent">This site uses cookies. <button>OK</button></div>
<main>${page.html ?? ""}</main>
<aside class="sidebar">Popular: <a href="/blog/post-1">Post 1</a></aside>
<footer>Copyright Test Site Inc. <a href="/legal">Legal</a></footer></body></html>`;
}

/** The default site: docs with a canonical duplicate, a redirect, a PDF, a blog chain for depth, a private area. */
export function defaultSitePages(): Record<string, SitePage> {
  return {
    "/": {
      title: "Home",
      html: `<h1>Welcome</h1><p>The home of the test site.</p><a href="/docs/">Docs</a> <a href="/blog/">Blog</a> <a href="/private/secret">Secret</a> <a href="https://example.invalid/outside">Outside</a>`,
    },
    "/docs/": {
      title: "Docs",
      html: `<h1>Documentation</h1><p>Start here to learn the widget.</p><ul><li><a href="/docs/install">Install</a></li><li><a href="/docs/install-print?utm_source=x#top">Install (print)</a></li><li><a href="/docs/configure">Configure</a></li><li><a href="/old-guide">Old guide</a></li><li><a href="/docs/manual.pdf">Manual</a></li></ul>`,
    },
    "/docs/install": {
      title: "Install",
      canonical: "/docs/install",
      html: `<h1>Install</h1><p>Run the installer; installation takes about four minutes.</p><h2>Requirements</h2><p>You need 2 GB of free disk space.</p>`,
    },
    "/docs/install-print": {
      title: "Install (print)",
      canonical: "/docs/install",
      inSitemap: false,
      html: `<h1>Install</h1><p>Run the installer; installation takes about four minutes.</p>`,
    },
    "/docs/configure": {
      title: "Configure",
      html: `<h1>Configure</h1><p>Set the colour of the launcher in the settings panel.</p>`,
    },
    "/old-guide": { redirectTo: "/docs/guide", inSitemap: false },
    "/docs/guide": {
      title: "Guide",
      html: `<h1>Guide</h1><p>The guide explains advanced usage of the widget.</p>`,
    },
    "/docs/manual.pdf": {
      contentType: "application/pdf",
      raw: makePdf([
        [{ text: "Widget Manual", size: 20 }, "The warranty lasts three years from purchase."],
        ["Page two covers cleaning the device."],
      ]),
    },
    "/blog/": {
      title: "Blog",
      html: `<h1>Blog</h1><p>News from the team.</p><a href="/blog/post-1">Post 1</a>`,
    },
    "/blog/post-1": {
      title: "Post 1",
      html: `<h1>Post one</h1><p>The first post.</p><a href="/blog/post-2">Next</a>`,
    },
    "/blog/post-2": {
      title: "Post 2",
      html: `<h1>Post two</h1><p>The second post.</p><a href="/blog/post-3">Next</a>`,
    },
    "/blog/post-3": { title: "Post 3", html: `<h1>Post three</h1><p>The third post, deep in the site.</p>` },
    "/private/secret": { title: "Secret", html: `<h1>Secret</h1><p>Robots may not read this.</p>` },
    "/logo.png": {
      contentType: "image/png",
      raw: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      inSitemap: false,
    },
  };
}

/**
 * A real HTTP site on 127.0.0.1 for crawler tests: robots.txt (Disallow /private/ for LoreBot),
 * sitemap index → sitemap-pages.xml + gzip'd sitemap-files.xml.gz, boilerplate around every page,
 * canonical links, a redirect, a PDF, and helpers to edit, add and remove pages between syncs.
 */
export async function startTestSite(pages: Record<string, SitePage> = defaultSitePages()): Promise<TestSite> {
  const site = new Map(Object.entries(pages));
  const requests: string[] = [];
  let origin = "";
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push(req.url ?? "/");
    if (path === "/robots.txt") {
      res.setHeader("content-type", "text/plain");
      res.end(
        `User-agent: *\nDisallow: /blog/\n\nUser-agent: LoreBot\nDisallow: /private/\nAllow: /private/open\n\nSitemap: ${origin}/sitemap.xml\n`,
      );
      return;
    }
    const listed = [...site.entries()].filter(([, p]) => p.inSitemap ?? (!p.raw && !p.redirectTo));
    if (path === "/sitemap.xml") {
      res.setHeader("content-type", "application/xml");
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap><sitemap><loc>${origin}/sitemap-files.xml.gz</loc></sitemap></sitemapindex>`,
      );
      return;
    }
    if (path === "/sitemap-pages.xml") {
      res.setHeader("content-type", "application/xml");
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${listed.map(([p]) => `<url><loc>${origin}${p}</loc></url>`).join("")}</urlset>`,
      );
      return;
    }
    if (path === "/sitemap-files.xml.gz") {
      const files = [...site.entries()]
        .filter(([, p]) => p.contentType === "application/pdf")
        .map(([p]) => `<url><loc>${origin}${p}</loc></url>`);
      res.setHeader("content-type", "application/gzip");
      res.end(
        gzipSync(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${files.join("")}</urlset>`,
        ),
      );
      return;
    }
    const page = site.get(path);
    if (!page) {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<h1>Not found</h1>");
      return;
    }
    if (page.redirectTo) {
      res.writeHead(301, { location: page.redirectTo });
      res.end();
      return;
    }
    if (page.raw !== undefined) {
      res.writeHead(200, { "content-type": page.contentType ?? "application/octet-stream" });
      res.end(page.raw);
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(layout(path, page));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    requests,
    setPage: (path, page) => void site.set(path, page),
    removePage: (path) => void site.delete(path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
