/**
 * Ingestion throughput end to end through the API (create source → `ready`), server in its own process:
 * - PDF: FinanceBench PDFs uploaded through the `file` connector (multipart), pages/min.
 * - HTML: a crawl of ~550 generated pages from a local site on 127.0.0.1
 *   (LORE_OUTBOUND_ALLOWLIST=127.0.0.1, LORE_WEB_DELAY_MS=0), pages/min.
 *
 *   node_modules/.bin/tsx bench/src/ingestion.ts [--pdfs N] [--html-pages N]
 */
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type SitePage, startTestSite } from "../../test/fakes/web-site.ts";
import { datasetsDir, loadSquad } from "./datasets.ts";
import { loadFinanceBench } from "./financebench.ts";
import { LoreClient } from "./lib/api.ts";
import { log, markdownTable, writeResult } from "./lib/report.ts";
import { startBenchServer } from "./lib/server.ts";
import { round } from "./lib/stats.ts";
import { seededRandom, sentencePool } from "./lib/synthetic.ts";

export interface IngestionRow {
  kind: string;
  documents: number;
  pages: number;
  chunks: number;
  seconds: number;
  pagesPerMinute: number;
  how: string;
}

/** A site of `pages` content pages: home → sections of 10 → pages, each with ~6 real paragraphs. */
function generatedSite(pages: number): Record<string, SitePage> {
  const pool = sentencePool(loadSquad());
  const rand = seededRandom(42);
  const para = () => Array.from({ length: 5 }, () => pool[Math.floor(rand() * pool.length)] ?? "").join(" ");
  const site: Record<string, SitePage> = {};
  const sections = Math.ceil(pages / 10);
  site["/"] = {
    title: "Home",
    html: `<h1>Handbook</h1><ul>${Array.from({ length: sections }, (_, s) => `<li><a href="/s/${s}">Section ${s}</a></li>`).join("")}</ul>`,
  };
  for (let s = 0; s < sections; s++) {
    const children = Array.from({ length: 10 }, (_, j) => s * 10 + j).filter((i) => i < pages);
    site[`/s/${s}`] = {
      title: `Section ${s}`,
      html: `<h1>Section ${s}</h1><p>${para()}</p><ul>${children.map((i) => `<li><a href="/p/${i}">Page ${i}</a></li>`).join("")}</ul>`,
    };
    for (const i of children) {
      site[`/p/${i}`] = {
        title: `Page ${i}`,
        html: `<h1>Page ${i}</h1><h2>Overview</h2><p>${para()}</p><p>${para()}</p><h2>Details</h2><p>${para()}</p><p>${para()}</p><h2>Notes</h2><p>${para()}</p><p><a href="/s/${s}">Back</a></p>`,
      };
    }
  }
  return site;
}

export async function runIngestion(
  options: { pdfs?: number; htmlPages?: number; resultsDir?: string } = {},
): Promise<{ rows: IngestionRow[]; path: string }> {
  const rows: IngestionRow[] = [];
  const site = await startTestSite(generatedSite(options.htmlPages ?? 500));
  const server = await startBenchServer({ LORE_OUTBOUND_ALLOWLIST: "127.0.0.1", LORE_WEB_DELAY_MS: "0" });
  try {
    const client = new LoreClient(server.api);
    await client.login();

    const pdfs = loadFinanceBench().pdfs.slice(0, options.pdfs ?? 10);
    let started = performance.now();
    const pdfSource = await client.createFileSource("PDFs", pdfs);
    const pdfReady = await client.waitReady(pdfSource.id, 60 * 60_000, 250);
    let seconds = (performance.now() - started) / 1000;
    const pdfDocs = await client.documents(pdfSource.id);
    const pages = pdfDocs.reduce((n, d) => n + (d.pageCount ?? 0), 0);
    rows.push({
      kind: "PDF (text layer)",
      documents: pdfDocs.length,
      pages,
      chunks: pdfReady.chunkCount,
      seconds: round(seconds, 1),
      pagesPerMinute: round(pages / (seconds / 60), 1),
      how: `multipart POST /data-sources/ with ${pdfs.length} FinanceBench PDFs (${pdfs
        .map((p) => basename(p))
        .slice(0, 3)
        .join(", ")}, …) → ready`,
    });
    log(`ingestion: ${JSON.stringify(rows.at(-1))}`);

    started = performance.now();
    const web = await client.createWebSource("Site", {
      url: `${site.url}/`,
      mode: "crawl",
      maxPages: 1000,
      maxDepth: 3,
    });
    const webReady = await client.waitReady(web.id, 60 * 60_000, 250);
    seconds = (performance.now() - started) / 1000;
    const webDocs = await client.documents(web.id);
    rows.push({
      kind: "HTML (web crawl)",
      documents: webDocs.length,
      pages: webDocs.length,
      chunks: webReady.chunkCount,
      seconds: round(seconds, 1),
      pagesPerMinute: round(webDocs.length / (seconds / 60), 1),
      how: `web source mode=crawl of a generated local site on 127.0.0.1 (home → sections → pages, depth 2), LORE_WEB_DELAY_MS=0 → ready`,
    });
    log(`ingestion: ${JSON.stringify(rows.at(-1))}`);
  } finally {
    await server.close();
    await site.close();
  }
  const path = writeResult(
    "ingestion",
    { rows, datasets: join(datasetsDir, "financebench/pdfs") },
    options.resultsDir,
  );
  return { rows, path };
}

export function ingestionTable(rows: readonly IngestionRow[]): string {
  return markdownTable(
    ["kind", "documents", "pages", "chunks", "seconds", "pages/min"],
    rows.map((r) => [r.kind, r.documents, r.pages, r.chunks, r.seconds, r.pagesPerMinute]),
  );
}

function arg(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runIngestion({ pdfs: arg("--pdfs"), htmlPages: arg("--html-pages") });
  console.log(ingestionTable(result.rows));
  console.log(`wrote ${result.path}`);
}
