#!/usr/bin/env node
// Writes test/durations.json (read by test/longest-first.ts) from a vitest JSON report:
//   npm test -- --reporter=default --reporter=json --outputFile.json=/tmp/vitest.json
//   node scripts/record-test-durations.mjs /tmp/vitest.json
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const reportPath = process.argv[2];
if (!reportPath) {
  console.error("usage: node scripts/record-test-durations.mjs <vitest json report>");
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, "utf8"));
// The report may come from another clone (a CI-like run): paths are taken relative to the folder
// all its files share, which is that clone's root.
const names = report.testResults.map((file) => file.name);
let reportRoot = dirname(names[0] ?? root);
while (!names.every((name) => name.startsWith(`${reportRoot}/`))) reportRoot = dirname(reportRoot);
const seconds = {};
for (const file of report.testResults) {
  const took = (file.endTime - file.startTime) / 1000;
  if (Number.isFinite(took)) seconds[relative(reportRoot, file.name)] = Math.round(took * 10) / 10;
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([, a], [, b]) => b - a));
writeFileSync(
  join(root, "test/durations.json"),
  `${JSON.stringify({ recorded: new Date().toISOString().slice(0, 10), seconds: sorted }, null, 2)}\n`,
);
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
