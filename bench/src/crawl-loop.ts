/**
 * How long one turn of the event loop lasts while a crawl reads a page of thousands of long links
 * (issue #49). The crawler (`crawlWeb`, with the server's guarded fetch) runs in this process; the
 * site runs in a child process, so its serving is not counted. A 1 ms sampler notes, between two of
 * its ticks, the wall time and the process's CPU time: on a shared machine a wall gap also counts
 * time the process waited for a core, the CPU time is the work itself (this process runs only the
 * crawl; its other threads are idle). Goal: no turn over ~100 ms.
 *
 *   node --import tsx bench/src/crawl-loop.ts [links=3000] [globs=4]
 */
import { spawn } from "node:child_process";
import { createGuardedFetch } from "../../server/src/net/outbound.ts";
import { crawlWeb } from "../../server/src/sources/connectors/web.ts";

const links = Number(process.argv[2] ?? 3000);
const globCount = Number(process.argv[3] ?? 4);

const SITE = `
import { createServer } from "node:http";
const links = Number(process.argv[1]);
const many = Array.from({ length: links }, (_, i) => '<a href="/' + "a".repeat(1990) + i + '">' + i + "</a>");
const page = (n) => "<!doctype html><html><head><title>Many</title></head><body><h1>Many</h1><p>Thousands of links.</p>" + many.slice(0, n).join(" ") + "</body></html>";
const full = page(links);
const server = createServer((req, res) => {
  if (req.url === "/many/") { res.writeHead(200, { "content-type": "text/html" }); res.end(full); }
  else if (req.url === "/few/") { res.writeHead(200, { "content-type": "text/html" }); res.end(page(10)); }
  else { res.writeHead(404, { "content-type": "text/plain" }); res.end("no"); }
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

const site = spawn(process.execPath, ["--input-type=module", "-e", SITE, String(links)], {
  stdio: ["ignore", "pipe", "inherit"],
});
const port = await new Promise<number>((resolve) =>
  site.stdout.setEncoding("utf8").once("data", (line: string) => resolve(Number(line.trim()))),
);

const glob = `/*${"a*".repeat(240)}b`;
const crawl = async (path: string): Promise<number> => {
  let documents = 0;
  for await (const _doc of crawlWeb(
    {
      url: `http://127.0.0.1:${port}${path}`,
      mode: "crawl",
      maxDepth: 1,
      maxPages: 10_000,
      include: [],
      exclude: Array.from({ length: globCount }, () => glob),
    },
    { fetch: createGuardedFetch({ allowlist: ["127.0.0.1"] }), delayMs: 0 },
  ))
    documents++;
  return documents;
};
// Warm-up: module loading and first compilation are not what is measured.
await crawl("/few/");

interface Turn {
  wallMs: number;
  cpuMs: number;
  /** When the turn ended, ms after the crawl started. */
  atMs: number;
}
const turns: Turn[] = [];
const started = performance.now();
let lastWall = started;
let lastCpu = process.cpuUsage();
const sampler = setInterval(() => {
  const wall = performance.now();
  const cpu = process.cpuUsage(lastCpu);
  turns.push({ wallMs: wall - lastWall, cpuMs: (cpu.user + cpu.system) / 1000, atMs: wall - started });
  lastWall = wall;
  lastCpu = process.cpuUsage();
}, 1);

const documents = await crawl("/many/");
const crawlMs = performance.now() - started;
clearInterval(sampler);
site.kill();

const top = (key: "wallMs" | "cpuMs") =>
  [...turns]
    .sort((a, b) => b[key] - a[key])
    .slice(0, 5)
    .map((t) => `${t[key].toFixed(0)} (at ${(t.atMs / 1000).toFixed(2)} s)`)
    .join(", ");
const over = (ms: number) => turns.filter((t) => t.cpuMs >= ms).length;
console.log(
  `${links} links of 2,000 characters, ${globCount} globs at the cap: crawl ${(crawlMs / 1000).toFixed(1)} s, ${documents} document(s), ${turns.length} sampler ticks`,
);
console.log(`longest turns by CPU: ${top("cpuMs")} ms (≥ 50 ms: ${over(50)}, ≥ 100 ms: ${over(100)})`);
console.log(`longest gaps by wall clock: ${top("wallMs")} ms`);
