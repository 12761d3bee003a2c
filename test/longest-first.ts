/**
 * Runs the test files that take longest first, from the durations a full run recorded
 * (test/durations.json, written by `node scripts/record-test-durations.mjs <vitest json report>`).
 *
 * Vitest orders files by the durations it cached on this machine, and on a fresh clone (CI, a new
 * user) by file size: a 50-second file that happens to be short could start last and run alone at
 * the end while the other workers idle. Files missing from the record (new ones) go first, as vitest
 * itself runs unknown files first; a stale record only costs a less even spread, never a test.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const RECORD = join(import.meta.dirname, "durations.json");

function recordedSeconds(): Map<string, number> {
  try {
    const record = JSON.parse(readFileSync(RECORD, "utf8")) as { seconds: Record<string, number> };
    return new Map(Object.entries(record.seconds));
  } catch {
    return new Map();
  }
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = recordedSeconds();
    if (seconds.size === 0) return super.sort(files);
    const root = this.ctx.config.root;
    // Unknown files first (as the largest number), then the longest.
    const durationOf = (spec: TestSpecification) =>
      seconds.get(relative(root, spec.moduleId)) ?? Number.MAX_SAFE_INTEGER;
    return [...files].sort((a, b) => durationOf(b) - durationOf(a));
  }
}
